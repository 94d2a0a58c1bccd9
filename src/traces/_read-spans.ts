// One span read through every producer reader (src/traces/producers/): is it a tool execution or a model
// call, what did the model answer, what history did it see, which call did a tool span run, and its usage,
// provider and models. Readers are asked in READERS order; where a reader found something its name is
// added to `producers`.
import { canonicalJson } from '../core/canonical-json.js';
import { contentText, type ExtractedCall, type LlmOutput, type ToolSpanFields } from '../telemetry/conventions/_read.js';
import type { Message, Usage } from '../types/run.js';
import { wasDropped } from '../telemetry/conventions/runspec.js';
import { ExecutedCall } from './ledger.js';
import { toolNameFromSpanName } from './producers/gen-ai.js';
import { READERS } from './producers/index.js';
import type { ProducerReader } from './producers/reader.js';
import type { LogRecordEntry, SpanRecord } from './spans.js';

export function isToolSpan(span: SpanRecord): boolean {
  for (const r of READERS) if (r.isToolSpan?.(span)) return true;
  return false;
}

/** A convention's marker decides (the first reader that has one); else any reader's model output says yes. */
export function isLlmSpan(span: SpanRecord): boolean {
  for (const r of READERS) {
    const decided = r.isLlmSpanByMarker?.(span);
    if (decided !== undefined) return decided;
  }
  for (const r of READERS) if (r.isLlmSpanByContent?.(span)) return true;
  return false;
}

/** Text and finish reason: the first source that has one. */
function setTextAndReason(out: LlmOutput, found: LlmOutput): void {
  if (found.text !== undefined && out.text === undefined) out.text = found.text;
  if (found.finishReason !== undefined && out.finishReason === undefined) out.finishReason = found.finishReason;
}

function sameCall(x: ExtractedCall, y: ExtractedCall): boolean {
  if (x.id && y.id) return x.id === y.id;
  return x.name === y.name && canonicalJson(x.arguments) === canonicalJson(y.arguments);
}

/** One reader's answers merged into `out` by its OutputMerge rule. */
function mergeOutputs(out: LlmOutput, reader: ProducerReader, found: LlmOutput[]): void {
  for (const c of found) {
    if (reader.outputMerge === 'all' || (reader.outputMerge === 'if_none' && out.calls.length === 0)) out.calls.push(...c.calls);
    else if (reader.outputMerge === 'union' && (out.calls.length === 0 || c.calls.length) && out.calls.every((x) => !c.calls.some((y) => sameCall(x, y)))) {
      out.calls.push(...c.calls);
    }
    setTextAndReason(out, c);
  }
}

/**
 * What the model answered on an LLM span: each reader's calls merged by its rule (GenAI output messages,
 * else OpenInference, else OpenLLMetry, else the Vercel AI SDK; gen_ai.choice events add calls not seen).
 * Text and finish reason: the first source that has one, the finish-reason attributes first.
 */
export function llmOutput(span: SpanRecord, logs: LogRecordEntry[], producers: Set<string>): LlmOutput {
  const out: LlmOutput = { calls: [] };
  for (const r of READERS) {
    const fr = r.finishReason?.(span.attributes);
    if (fr !== undefined) {
      if (fr) out.finishReason = fr;
      break;
    }
  }
  for (const r of READERS) {
    if (!r.readOutputs) continue;
    if (r.outputMerge === 'if_none' && out.calls.length > 0 && r.readOutputText) {
      // This reader's calls would be dropped: only its presence and text are read.
      const t = r.readOutputText(span);
      if (t) {
        producers.add(r.name);
        if (t.text !== undefined) out.text ??= t.text;
      }
      continue;
    }
    const found = r.readOutputs(span, logs);
    if (!found || found.length === 0) continue;
    producers.add(r.name);
    mergeOutputs(out, r, found);
  }
  return out;
}

/** Input history of an LLM span (for the prompt, history fallback and tool results): the first reader that has one. */
export function llmInput(span: SpanRecord, logs: LogRecordEntry[]): Message[] {
  for (const r of READERS) {
    const m = r.readInput?.(span, logs);
    if (m !== undefined) return m;
  }
  return [];
}

/**
 * The call a tool span executed. Each reader's fields fill what the ones before it left unset; the span
 * name `execute_tool NAME` names the tool last.
 */
export function toolSpanCall(span: SpanRecord, producers: Set<string>): ExecutedCall | undefined {
  const f: ToolSpanFields = {};
  for (const r of READERS) {
    if (!r.readToolSpan) continue;
    const reading = r.readToolSpan(span);
    if (reading.recognised) producers.add(r.name);
    else if (!r.keepsUnrecognisedToolFields) continue;
    f.name ??= reading.fields.name;
    f.id ??= reading.fields.id;
    f.rawArgs ??= reading.fields.rawArgs;
    f.result ??= reading.fields.result;
  }
  const name = f.name || toolNameFromSpanName(span.name);
  if (!name) return undefined;
  const exec = new ExecutedCall(span, name, f.rawArgs);
  if (f.id) exec.id = f.id;
  if (wasDropped(span.attributes)) exec.dropped = true;
  if (f.result !== undefined) exec.result = contentText(f.result) ?? '';
  return exec;
}

/** Tool results carried apart from spans (log records), from every reader that reads them. */
export function toolResultsOf(logs: LogRecordEntry[]): Array<{ id: string; result: string }> {
  if (logs.length === 0) return [];
  return READERS.flatMap((r) => r.readToolResults?.(logs) ?? []);
}

/** Token usage: each count from the first reader that has it; the total, else prompt + completion. */
export function usageOf(a: Record<string, unknown>): Usage {
  let p: number | undefined;
  let c: number | undefined;
  let t: number | undefined;
  for (const r of READERS) {
    if (!r.usage) continue;
    const u = r.usage(a);
    p ??= u.promptTokens;
    c ??= u.completionTokens;
    t ??= u.totalTokens;
  }
  const u: Usage = {};
  if (p !== undefined) u.promptTokens = p;
  if (c !== undefined) u.completionTokens = c;
  if (t !== undefined) u.totalTokens = t;
  // withTotal's rule, without its copy: prompt + completion when no total was reported.
  else if (p !== undefined || c !== undefined) u.totalTokens = (p ?? 0) + (c ?? 0);
  return u;
}

function firstOf(
  a: Record<string, unknown>,
  pick: (r: ProducerReader) => ((a: Record<string, unknown>) => string | undefined) | undefined,
): string | undefined {
  for (const r of READERS) {
    const v = pick(r)?.(a);
    if (v !== undefined) return v;
  }
  return undefined;
}

export const providerOf = (a: Record<string, unknown>): string | undefined => firstOf(a, (r) => r.provider);
export const requestModelOf = (a: Record<string, unknown>): string | undefined => firstOf(a, (r) => r.requestModel);
export const responseModelOf = (a: Record<string, unknown>): string | undefined => firstOf(a, (r) => r.responseModel);
