// Spans of one trace → the Run that scoring understands. Reads our own traces and the common producers
// (each reader cites its convention's specification): OpenInference, OTel GenAI (current message JSON and execute_tool spans), the legacy
// indexed gen_ai.completion.* form (OpenLLMetry), the Vercel AI SDK, and the deprecated gen_ai.choice
// events recorded as log records (opentelemetry-python-contrib openai-v2). The readers of the conventions
// we emit (gen_ai.*, OpenInference, runspec.eval.*) live beside their writers in telemetry/conventions/;
// those of producers we only read, in producers/; this file classifies spans and joins what the readers found, so that a call seen several
// times (LLM output, a later input history, a tool span) is counted once.
import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
} from '../semconv/gen-ai.js';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { DISCOVERY_TOOLS } from '../toolset/layout.js';
import type { Message, ModelCallRecord, Run, ToolCall, ToolCallRecord, Usage } from '../types/run.js';
import * as K from '../semconv/producers.js';
import { decodeJsonish, parseArguments, toInt, toStr } from '../telemetry/conventions/_json.js';
import { canonicalJson } from '../core/canonical-json.js';
import { isRecord } from '../core/is-record.js';
import type { AssembledTrace } from './assembler.js';
import type { LogRecordEntry, SpanRecord } from './spans.js';
import { contentText, indexed, normaliseRole, toolCallsOf, type ExtractedCall, type LlmOutput, type ToolSpanFields, type ToolSpanReading } from '../telemetry/conventions/_read.js';
import { genAiFinishReason, genAiMessages, readGenAiInput, readGenAiOutput, readGenAiToolSpan } from '../telemetry/conventions/gen-ai.js';
import { oiFinishReason, readOiInput, readOiOutputText, readOiToolSpan } from '../telemetry/conventions/openinference.js';
import { readOiOutput } from './producers/openinference.js';
import { readLegacyInput, readLegacyOutput, readTraceloopToolSpan } from './producers/openllmetry.js';
import { readVercelInput, readVercelOutput, readVercelToolSpan } from './producers/vercel.js';
import { readChoiceEvents, readEventInput, readToolMessageLogs } from './producers/gen-ai-events.js';
import { isRunspecTrace, readRunspecCase, wasDropped, wasExecuted, type RunspecCaseInfo } from '../telemetry/conventions/runspec.js';
import { byCodeUnits, sortSmall } from './_sort.js';

/** What the normaliser learned about a trace besides the Run (for matching, annotations and output). */
export interface TraceInfo {
  traceId: string;
  rootSpanId: string;
  rootName: string;
  caseId?: string;
  suite?: string;
  sample?: number;
  /** First user message, for a case's `match.prompt`. */
  firstUserMessage?: string;
  /** Resource attributes overlaid with the root span's attributes, for `match.attributes`. */
  rootAttributes: Record<string, unknown>;
  /** Every span's attributes, for `match.attributes` on any span. */
  spanAttributes: Array<Record<string, unknown>>;
  /** Producer families recognised: runspec, openinference, gen_ai, openllmetry, vercel, gen_ai_events. */
  producers: string[];
  llmSpanIds: string[];
  toolSpanIds: string[];
  /** Call id (or position `#n`) → span id of the span that carried the call. */
  callSpanIds: Record<string, string>;
}

export type NormaliseResult =
  | { ok: true; run: Run; info: TraceInfo }
  | { ok: false; traceId: string; rootSpanId?: string; reason: string };

export interface NormaliseOptions {
  /** Discovery tools are not terminal in decision mode. @default DISCOVERY_TOOLS of src/toolset */
  isDiscovery?: (toolName: string) => boolean;
}

const DEFAULT_DISCOVERY = new Set<string>(DISCOVERY_TOOLS);
const isDefaultDiscovery = (n: string): boolean => DEFAULT_DISCOVERY.has(n);
const LLM_OPERATIONS = new Set<string>([
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
]);
const TOOL_FINISH_REASONS = new Set(['tool_calls', 'tool_call', 'tool-calls', 'tool_use', 'function_call']);

/** Finish reasons `tool_calls`, `tool_call`, `tool-calls`, `tool_use` and `function_call` all mean "called tools". */
export function isToolCallFinish(reason: string | undefined): boolean {
  return reason !== undefined && TOOL_FINISH_REASONS.has(reason.toLowerCase());
}

/**
 * Requested calls of an LLM span: GenAI output messages, else OpenInference, else OpenLLMetry, plus
 * gen_ai.choice events not already seen, else the Vercel AI SDK.
 * Text and finish reason: the first source that has one.
 */
function llmOutput(span: SpanRecord, logs: LogRecordEntry[], producers: Set<string>): LlmOutput {
  const out: LlmOutput = { calls: [] };
  const fr = genAiFinishReason(span.attributes) ?? oiFinishReason(span.attributes);
  if (fr) out.finishReason = fr;
  takeOutput(out, producers, 'gen_ai', readGenAiOutput(span), false);
  if (out.calls.length === 0) takeOutput(out, producers, 'openinference', readOiOutput(span), true);
  else {
    // GenAI gave the calls: OpenInference's would be dropped, so only its presence and text are read.
    const oi = readOiOutputText(span);
    if (oi) {
      producers.add('openinference');
      if (oi.text !== undefined) out.text ??= oi.text;
    }
  }
  takeOutput(out, producers, 'openllmetry', readLegacyOutput(span), true);
  if (span.events.length || logs.length) {
    const events = readChoiceEvents(span, logs);
    if (events.length) {
      producers.add('gen_ai_events');
      for (const c of events) {
        if (out.calls.length === 0 || c.calls.length) {
          if (out.calls.every((x) => !c.calls.some((y) => sameCall(x, y)))) out.calls.push(...c.calls);
        }
        setTextAndReason(out, c);
      }
    }
  }
  takeOutput(out, producers, 'vercel', readVercelOutput(span), true);
  return out;
}

/** Text and finish reason: the first source that has one. */
function setTextAndReason(out: LlmOutput, found: LlmOutput): void {
  if (found.text !== undefined && out.text === undefined) out.text = found.text;
  if (found.finishReason !== undefined && out.finishReason === undefined) out.finishReason = found.finishReason;
}

/** One producer's reading of an LLM span into `out`: its calls (`onlyIfNone`: only when none yet), text, reason. */
function takeOutput(out: LlmOutput, producers: Set<string>, producer: string, found: LlmOutput | undefined, onlyIfNone: boolean): void {
  if (!found) return;
  producers.add(producer);
  if (!onlyIfNone || out.calls.length === 0) out.calls.push(...found.calls);
  setTextAndReason(out, found);
}

function sameCall(x: ExtractedCall, y: ExtractedCall): boolean {
  if (x.id && y.id) return x.id === y.id;
  return x.name === y.name && canonicalJson(x.arguments) === canonicalJson(y.arguments);
}

/** Input history of an LLM span (for the prompt, history fallback and tool results): the first producer that has one. */
function llmInput(span: SpanRecord, logs: LogRecordEntry[]): Message[] {
  return readGenAiInput(span) ?? readOiInput(span) ?? readLegacyInput(span) ?? readVercelInput(span) ?? readEventInput(span, logs);
}

/** The call a tool span executed (a class: an object literal with a getter costs a slow path per span). */
class ExecutedCall {
  id?: string;
  result?: string;
  /** A trajectory call beyond the parallel cap, not run (runspec.eval.dropped). */
  dropped?: boolean;
  readonly hasArguments: boolean;
  readonly isError: boolean;
  readonly executed: boolean;
  private parsedArguments: Record<string, unknown> | undefined;

  constructor(
    readonly span: SpanRecord,
    readonly name: string,
    private readonly rawArgs: unknown,
  ) {
    this.hasArguments = rawArgs !== undefined && rawArgs !== '';
    this.isError = span.statusCode === 2 || span.attributes[ATTR_ERROR_TYPE] !== undefined;
    this.executed = wasExecuted(span.attributes);
  }

  /** Parsed on first use: a call its id joins to the model's request keeps the request's arguments. */
  get arguments(): Record<string, unknown> {
    return (this.parsedArguments ??= parseArguments(this.rawArgs));
  }
}

/** Fill what the readings before left unset (toolSpanCall). */
function takeToolSpanReading(f: ToolSpanFields, producers: Set<string>, producer: string, r: ToolSpanReading): void {
  if (r.recognised) producers.add(producer);
  // gen_ai.tool.call.* count even without gen_ai.tool.name (the span name may carry the name).
  if (!r.recognised && producer !== 'gen_ai') return;
  f.name ??= r.fields.name;
  f.id ??= r.fields.id;
  f.rawArgs ??= r.fields.rawArgs;
  f.result ??= r.fields.result;
}

/**
 * The call a tool span executed. Each producer's reading fills what the ones before it left unset, in
 * this order: GenAI, OpenInference, Vercel AI SDK, OpenLLMetry; the span name `execute_tool NAME` last.
 */
function toolSpanCall(span: SpanRecord, producers: Set<string>): ExecutedCall | undefined {
  const f: ToolSpanFields = {};
  takeToolSpanReading(f, producers, 'gen_ai', readGenAiToolSpan(span));
  takeToolSpanReading(f, producers, 'openinference', readOiToolSpan(span));
  takeToolSpanReading(f, producers, 'vercel', readVercelToolSpan(span));
  takeToolSpanReading(f, producers, 'openllmetry', readTraceloopToolSpan(span));
  let name = f.name;
  if (!name) {
    const m = /^execute_tool (.+)$/.exec(span.name);
    if (m) name = m[1];
  }
  if (!name) return undefined;
  const a = span.attributes;
  const exec = new ExecutedCall(span, name, f.rawArgs);
  if (f.id) exec.id = f.id;
  if (wasDropped(a)) exec.dropped = true;
  if (f.result !== undefined) exec.result = contentText(f.result) ?? '';
  return exec;
}

function isToolSpan(span: SpanRecord): boolean {
  const a = span.attributes;
  const op = a[ATTR_GEN_AI_OPERATION_NAME];
  if (op === GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL) return true;
  if (a[OI.OPENINFERENCE_SPAN_KIND] === OpenInferenceSpanKind.TOOL) return true;
  if (span.name === K.VERCEL_TOOL_CALL_SPAN || a[K.TRACELOOP_SPAN_KIND] === 'tool') return true;
  return a[ATTR_GEN_AI_TOOL_NAME] !== undefined && (typeof op !== 'string' || !LLM_OPERATIONS.has(op));
}

function hasKeyWithPrefix(attrs: Record<string, unknown>, prefix: string): boolean {
  if (attrs[prefix] !== undefined) return true;
  const p = prefix + '.';
  for (const k in attrs) if (k.startsWith(p)) return true;
  return false;
}

function isLlmSpan(span: SpanRecord): boolean {
  const a = span.attributes;
  const op = a[ATTR_GEN_AI_OPERATION_NAME];
  if (typeof op === 'string') return LLM_OPERATIONS.has(op);
  const kind = a[OI.OPENINFERENCE_SPAN_KIND];
  if (typeof kind === 'string') return kind === OpenInferenceSpanKind.LLM;
  if (K.VERCEL_MODEL_CALL_SPAN_SUFFIXES.some((s) => span.name.endsWith(s)) && span.name.startsWith(K.VERCEL_SPAN_PREFIX)) return true;
  if (span.name.startsWith(K.VERCEL_SPAN_PREFIX)) return false;
  return hasKeyWithPrefix(a, ATTR_GEN_AI_COMPLETION) || hasKeyWithPrefix(a, OI.LLM_OUTPUT_MESSAGES) || a[K.LLM_REQUEST_TYPE] !== undefined;
}

/** The first of up to four values that reads as an integer. */
function num(a: unknown, b?: unknown, c?: unknown, d?: unknown): number | undefined {
  return toInt(a) ?? toInt(b) ?? toInt(c) ?? toInt(d);
}

/** The latest end (or start, for a span that did not end) of the root and every span. */
function latestEnd(root: SpanRecord, spans: readonly SpanRecord[]): number {
  let end = root.endTimeMs ?? root.startTimeMs;
  for (const s of spans) end = Math.max(end, s.endTimeMs ?? s.startTimeMs);
  return end;
}

function usageOf(a: Record<string, unknown>): Usage {
  const u: Usage = {};
  const p = num(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS], a[ATTR_GEN_AI_USAGE_PROMPT_TOKENS], a[OI.LLM_TOKEN_COUNT_PROMPT], a[K.VERCEL_USAGE_PROMPT_TOKENS]);
  const c = num(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS], a[ATTR_GEN_AI_USAGE_COMPLETION_TOKENS], a[OI.LLM_TOKEN_COUNT_COMPLETION], a[K.VERCEL_USAGE_COMPLETION_TOKENS]);
  const t = num(a[OI.LLM_TOKEN_COUNT_TOTAL]);
  if (p !== undefined) u.promptTokens = p;
  if (c !== undefined) u.completionTokens = c;
  if (t !== undefined) u.totalTokens = t;
  // withTotal's rule, without its copy: prompt + completion when no total was reported.
  else if (p !== undefined || c !== undefined) u.totalTokens = (p ?? 0) + (c ?? 0);
  return u;
}

function providerOf(a: Record<string, unknown>): string | undefined {
  return toStr(a[ATTR_GEN_AI_PROVIDER_NAME]) ?? toStr(a[ATTR_GEN_AI_SYSTEM]) ?? toStr(a[OI.LLM_PROVIDER]) ?? toStr(a[OI.LLM_SYSTEM]) ?? toStr(a[K.VERCEL_MODEL_PROVIDER]);
}

// Ties keep arrival order (the sort is stable): exporters send spans as they end, which orders calls made
// within the same millisecond; a span-id tie-break ordered them at random.
function byStart(x: SpanRecord, y: SpanRecord): number {
  return x.startTimeMs - y.startTimeMs;
}

// ---------------------------------------------------------------- assembly

interface Pending {
  rec: ToolCallRecord;
  sortTimeMs: number;
  seq: number;
  spanId?: string;
  matchedTool: boolean;
}

/**
 * Normalise one assembled trace into a Run. Never throws: a trace it cannot read comes back with a reason.
 * @example const r = normaliseTrace(trace); if (r.ok) scoreRun(c, r.run);
 */
export function normaliseTrace(trace: AssembledTrace, options: NormaliseOptions = {}): NormaliseResult {
  return normaliseCaught(trace, options, true);
}

/**
 * normaliseTrace for the scorer, which replaces `run.trace` by the trace and root ids: the call id → span id
 * map is left out of it (its lazy getter alone cost a slow object-literal path per trace).
 */
export function normaliseTraceForScoring(trace: AssembledTrace, options: NormaliseOptions = {}): NormaliseResult {
  return normaliseCaught(trace, options, false);
}

function normaliseCaught(trace: AssembledTrace, options: NormaliseOptions, runSpanIds: boolean): NormaliseResult {
  try {
    return normaliseUnsafe(trace, options, runSpanIds);
  } catch (err) {
    return { ok: false, traceId: trace.traceId, reason: `could not interpret the trace (${(err as Error).message})` };
  }
}

const SMALL_TRACE_SPANS = 16;

/**
 * Whether following parents from some span never ends (a self-parent or a longer loop), without a map: a
 * walk over n spans that takes more than n steps went round a loop. For small traces only (linear lookups);
 * the span found for an id is the last one with it, as a map filled in order would give. True means only
 * "look closer": parentCycle then finds and words the loop as before.
 */
function hasParentLoop(spans: readonly SpanRecord[]): boolean {
  const n = spans.length;
  for (const s of spans) {
    if (s.parentSpanId === s.spanId) return true;
    let id = s.parentSpanId;
    for (let steps = 0; id !== undefined; steps++) {
      if (steps > n) return true;
      let parent: SpanRecord | undefined;
      for (let i = n - 1; i >= 0; i--) {
        if (spans[i]!.spanId === id) {
          parent = spans[i];
          break;
        }
      }
      if (parent === undefined) break;
      id = parent.parentSpanId;
    }
  }
  return false;
}

/** A span that is its own parent, or a loop of parents: the trace has no root to read from. */
function parentCycle(spans: readonly SpanRecord[]): string | undefined {
  if (spans.length <= SMALL_TRACE_SPANS && !hasParentLoop(spans)) return undefined;
  const parentOf = new Map<string, string | undefined>();
  for (const s of spans) parentOf.set(s.spanId, s.parentSpanId);
  for (const s of spans) if (s.parentSpanId === s.spanId) return `span ${s.spanId} is its own parent`;
  const clean = new Set<string>();
  // One path buffer for every walk; a set of its ids only for a deep one (a search is cheaper when short).
  const path: string[] = [];
  for (const s of spans) {
    path.length = 0;
    let onPath: Set<string> | undefined;
    let id: string | undefined = s.spanId;
    while (id !== undefined && parentOf.has(id) && !clean.has(id)) {
      if (onPath ? onPath.has(id) : path.includes(id)) return `parent cycle: ${[...path.slice(path.indexOf(id)), id].join(' → ')}`;
      path.push(id);
      if (onPath) onPath.add(id);
      else if (path.length > 8) onPath = new Set(path);
      id = parentOf.get(id);
    }
    for (const p of path) clean.add(p);
  }
  return undefined;
}

function normaliseUnsafe(trace: AssembledTrace, options: NormaliseOptions, runSpanIds: boolean): NormaliseResult {
  const isDiscovery = options.isDiscovery ?? isDefaultDiscovery;
  const spans = sortSmall([...trace.spans], byStart);
  if (spans.length === 0) {
    return { ok: false, traceId: trace.traceId, reason: trace.logs.length ? 'only log records, no spans' : 'no spans' };
  }
  const cycle = parentCycle(spans);
  if (cycle) return { ok: false, traceId: trace.traceId, reason: cycle };
  const root =
    spans.find((s) => s.parentSpanId === undefined) ??
    ((ids) => spans.find((s) => !ids.has(s.parentSpanId!))!)(new Set(spans.map((s) => s.spanId)));
  const producers = new Set<string>();
  const logs = trace.logs;

  // Verdict carrier spans (ours or another evaluator's) are feedback about a trace, not an agent run.
  if (spans.every((s) => s.attributes[OI.OPENINFERENCE_SPAN_KIND] === OpenInferenceSpanKind.EVALUATOR)) {
    return { ok: false, traceId: trace.traceId, rootSpanId: root.spanId, reason: 'only evaluator (verdict) spans, no agent run' };
  }
  // Each span is a tool span, an LLM span, or neither (in span order, each list).
  const toolSpans: SpanRecord[] = [];
  let llmSpans: SpanRecord[] = [];
  for (const s of spans) {
    if (isToolSpan(s)) toolSpans.push(s);
    else if (isLlmSpan(s)) llmSpans.push(s);
  }
  // outputs[i] is what llmSpans[i] answered.
  let outputs: LlmOutput[] = llmSpans.map((s) => llmOutput(s, logs, producers));
  // No per-call LLM spans: fall back to a summary span (agent/root, Vercel ai.generateText) that lists calls.
  if (llmSpans.length === 0) {
    for (const s of spans) {
      if (toolSpans.includes(s)) continue;
      const out = llmOutput(s, logs, new Set());
      if (out.calls.length || s.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] !== undefined) {
        llmSpans = [s];
        outputs = [llmOutput(s, logs, producers)];
        break;
      }
    }
  }
  const executed: ExecutedCall[] = [];
  for (const s of toolSpans) {
    const c = toolSpanCall(s, producers);
    if (c) executed.push(c);
  }
  if (llmSpans.length === 0 && executed.length === 0) {
    return { ok: false, traceId: trace.traceId, rootSpanId: root.spanId, reason: 'no LLM or tool spans (not a GenAI agent trace)' };
  }
  const runspec = isRunspecTrace(spans);
  if (runspec) producers.add('runspec');

  const { modelCalls, inputs } = modelCallsOf(llmSpans, outputs, logs, root);
  const { toolCalls, callSpanPairs } = joinCalls({ llmSpans, outputs, executed, inputs, logs });
  // The call id → span id map is built when read (scoring never reads it): an object keyed by call ids gets
  // a new property name per trace, which costs a hidden-class transition each time.
  let callSpanIds: Record<string, string> | undefined;
  const spanIdsOfCalls = (): Record<string, string> => (callSpanIds ??= spanIdsByCall(callSpanPairs));

  const anyToolFinish = modelCalls.some((m) => isToolCallFinish(m.response?.finishReason));
  if (toolCalls.length === 0 && anyToolFinish) {
    return {
      ok: false,
      traceId: trace.traceId,
      rootSpanId: root.spanId,
      reason: 'the model finished with tool calls but the trace carries no call content (enable content capture)',
    };
  }

  // Decision runs capture a call without running it; a trajectory call that failed before running
  // (denied, unknown, no mock) or was dropped at the parallel cap is not a capture.
  const decision = executed.some((e) => !e.executed && !e.isError && !e.dropped);
  const ra = root.attributes;
  const usage: Usage = {};
  const sum = (k: keyof Usage): number | undefined => {
    let total: number | undefined;
    for (const m of modelCalls) {
      const v = m.usage[k];
      if (v !== undefined) total = (total ?? 0) + v;
    }
    return total;
  };
  const rootUsage = usageOf(ra);
  for (const k of ['promptTokens', 'completionTokens', 'totalTokens'] as const) {
    const v = sum(k) ?? rootUsage[k];
    if (v !== undefined) usage[k] = v;
  }
  // Without any runspec.eval.* attribute (isRunspecTrace), none of the case attributes can be there.
  const ours: RunspecCaseInfo = runspec ? readRunspecCase(root, spans) : {};
  const caseId = ours.caseId;
  const run: Run = {
    caseId: caseId ?? trace.traceId,
    sample: ours.sample ?? 0,
    mode: decision ? 'decision' : 'trajectory',
    provider: providerOf(ra) ?? modelCalls[0]?.provider ?? 'unknown',
    startTimeMs: root.startTimeMs,
    endTimeMs: latestEnd(root, spans),
    modelCalls,
    toolCalls,
    status: root.statusCode === 2 ? 'error' : 'ok',
    usage,
    // The public normaliseTrace returns plain writable fields; the scorer never reads the map.
    trace: runSpanIds ? { traceId: trace.traceId, rootSpanId: root.spanId, spanIds: spanIdsOfCalls() } : { traceId: trace.traceId, rootSpanId: root.spanId },
  };
  const model = modelCalls.find((m) => m.responseModel ?? m.requestModel);
  if (model) run.model = (model.responseModel ?? model.requestModel)!;
  else if (toStr(ra[ATTR_GEN_AI_REQUEST_MODEL])) run.model = toStr(ra[ATTR_GEN_AI_REQUEST_MODEL])!;
  if (ours.toolMode) run.toolMode = ours.toolMode;
  if (root.statusCode === 2) run.error = { code: toStr(ra[ATTR_ERROR_TYPE]) ?? 'error', message: root.statusMessage ?? '' };
  if (decision) {
    // The call the live run captured without executing it; else the first non-discovery call.
    const terminal = toolCalls.find((c) => !c.executed && !isDiscovery(c.call.name)) ?? toolCalls.find((c) => !isDiscovery(c.call.name));
    if (terminal) {
      terminal.executed = false;
      run.terminal = terminal;
    }
  }
  let lastText: string | undefined;
  for (let i = modelCalls.length - 1; i >= 0 && lastText === undefined; i--) lastText = modelCalls[i]!.response?.text;
  if (lastText !== undefined) run.finalText = lastText;

  let rootAttributes: Record<string, unknown> | undefined;
  const info: TraceInfo = {
    traceId: trace.traceId,
    rootSpanId: root.spanId,
    rootName: root.name,
    // Merged only when a case or rule asks for it (most scorings never do): spreading every root's
    // attributes cost more than reading them.
    get rootAttributes() {
      return (rootAttributes ??= { ...root.resource, ...ra });
    },
    set rootAttributes(value) {
      rootAttributes = value;
    },
    spanAttributes: spans.map((s) => s.attributes),
    producers: [],
    llmSpanIds: llmSpans.map((s) => s.spanId),
    toolSpanIds: toolSpans.map((s) => s.spanId),
    // Built on first read (scoring never reads it), and writable like the field it stands for.
    get callSpanIds() {
      return spanIdsOfCalls();
    },
    set callSpanIds(value) {
      callSpanIds = value;
    },
  };
  if (caseId !== undefined) info.caseId = caseId;
  if (ours.suite) info.suite = ours.suite;
  if (ours.sample !== undefined) info.sample = ours.sample;
  const first = firstUserMessage(inputs, root);
  if (first !== undefined) info.firstUserMessage = first;
  if (logs.length) producers.add('gen_ai_events');
  info.producers = sortSmall([...producers], byCodeUnits);
  return { ok: true, run, info };
}

/** One model call per LLM span, in start order, with the request history each one saw. */
function modelCallsOf(
  llmSpans: SpanRecord[],
  outputs: LlmOutput[],
  logs: LogRecordEntry[],
  root: SpanRecord,
): { modelCalls: ModelCallRecord[]; inputs: Message[][] } {
  const modelCalls: ModelCallRecord[] = [];
  const inputs: Message[][] = [];
  llmSpans.forEach((s, index) => {
    const a = s.attributes;
    const out = outputs[index]!;
    const input = llmInput(s, logs);
    inputs.push(input);
    const rec: ModelCallRecord = {
      index,
      turn: index,
      startTimeMs: s.startTimeMs,
      endTimeMs: s.endTimeMs ?? s.startTimeMs,
      provider: providerOf(a) ?? providerOf(root.attributes) ?? 'unknown',
      request: { messages: input, tools: [], params: {} },
      response: { toolCalls: toolCallsOf(out.calls) },
      usage: usageOf(a),
    };
    const reqModel = toStr(a[ATTR_GEN_AI_REQUEST_MODEL]) ?? toStr(a[OI.LLM_REQUEST_MODEL_NAME]) ?? toStr(a[K.VERCEL_MODEL_ID]);
    const resModel = toStr(a[ATTR_GEN_AI_RESPONSE_MODEL]) ?? toStr(a[OI.LLM_MODEL_NAME]);
    if (reqModel) rec.requestModel = reqModel;
    if (resModel) rec.responseModel = resModel;
    const respId = toStr(a[ATTR_GEN_AI_RESPONSE_ID]);
    if (respId) rec.responseId = respId;
    if (out.text !== undefined) rec.response!.text = out.text;
    if (out.finishReason !== undefined) rec.response!.finishReason = out.finishReason;
    if (s.statusCode === 2) rec.error = { code: toStr(a[ATTR_ERROR_TYPE]) ?? 'error', message: s.statusMessage ?? '' };
    modelCalls.push(rec);
  });

  return { modelCalls, inputs };
}

/**
 * The joiner: every tool call of the trace, counted once. A call can show up as an LLM span's output, as
 * a tool span, in a later request's history and as a tool result; these are joined by call id, else by
 * name and canonical arguments in order. Calls are ordered by when they were requested (or executed).
 */
function joinCalls(input: {
  llmSpans: SpanRecord[];
  outputs: LlmOutput[];
  executed: ExecutedCall[];
  inputs: Message[][];
  logs: LogRecordEntry[];
}): { toolCalls: ToolCallRecord[]; callSpanPairs: string[] } {
  const { llmSpans, outputs, executed, inputs, logs } = input;
  // Requested calls, once each.
  const pending: Pending[] = [];
  let seq = 0;
  const byId = new Map<string, Pending>();
  llmSpans.forEach((s, index) => {
    const out = outputs[index]!;
    out.calls.forEach((c) => {
      if (c.id && byId.has(c.id)) return;
      const call: ToolCall = { id: c.id ?? '', name: c.name, arguments: c.arguments };
      if (c.reconstructed) call.reconstructed = true;
      const p: Pending = {
        rec: {
          turn: index,
          modelCallIndex: index,
          call,
          startTimeMs: s.endTimeMs ?? s.startTimeMs,
          endTimeMs: s.endTimeMs ?? s.startTimeMs,
          executed: true,
        },
        sortTimeMs: s.endTimeMs ?? s.startTimeMs,
        seq: seq++,
        spanId: s.spanId,
        matchedTool: false,
      };
      if (c.id) byId.set(c.id, p);
      pending.push(p);
    });
  });

  // Tool spans: join by call id, else by name and canonical arguments in order, else add.
  for (const e of executed) {
    let match = e.id ? byId.get(e.id) : undefined;
    if (match?.matchedTool) match = undefined;
    if (!match) {
      // Canonical arguments only when the call id did not join it (most producers record ids).
      const canon = canonicalJson(e.arguments);
      match = pending.find((p) => !p.matchedTool && (!e.id || !p.rec.call.id) && p.rec.call.name === e.name && canonicalJson(p.rec.call.arguments) === canon);
      match ??= pending.find((p) => !p.matchedTool && (!e.id || !p.rec.call.id) && p.rec.call.name === e.name && (!e.hasArguments || Object.keys(p.rec.call.arguments).length === 0));
    }
    if (match) {
      match.matchedTool = true;
      const r = match.rec;
      if (!r.call.id && e.id) {
        r.call.id = e.id;
        byId.set(e.id, match);
      }
      if (Object.keys(r.call.arguments).length === 0 && e.hasArguments) r.call.arguments = e.arguments;
      r.executed = e.executed;
      r.startTimeMs = e.span.startTimeMs;
      r.endTimeMs = e.span.endTimeMs ?? e.span.startTimeMs;
      if (e.result !== undefined) r.result = e.result;
      if (e.isError) r.isError = true;
      if (e.dropped) r.dropped = true;
      match.spanId = e.span.spanId;
      continue;
    }
    const turn = Math.max(0, llmSpans.filter((s) => s.startTimeMs <= e.span.startTimeMs).length - 1);
    const rec: ToolCallRecord = {
      turn,
      modelCallIndex: llmSpans.length ? turn : -1,
      call: { id: e.id ?? '', name: e.name, arguments: e.arguments },
      startTimeMs: e.span.startTimeMs,
      endTimeMs: e.span.endTimeMs ?? e.span.startTimeMs,
      executed: e.executed,
    };
    if (e.result !== undefined) rec.result = e.result;
    if (e.isError) rec.isError = true;
    if (e.dropped) rec.dropped = true;
    const p: Pending = { rec, sortTimeMs: e.span.startTimeMs, seq: seq++, spanId: e.span.spanId, matchedTool: true };
    if (e.id) byId.set(e.id, p);
    pending.push(p);
  }

  // History fallback: calls only visible in later requests' assistant messages (no output, no tool span).
  let longest: { calls: ToolCall[]; at: number } = { calls: [], at: 0 };
  inputs.forEach((msgs, i) => {
    // Counted first: most histories hold no more calls than the longest so far, and need no list.
    let count = 0;
    for (const m of msgs) if (m.role === 'assistant') count += m.toolCalls?.length ?? 0;
    if (count > longest.calls.length) longest = { calls: msgs.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])), at: llmSpans[i]!.startTimeMs };
  });
  // Each history call claims at most one known call (same id; else same name with the same or unknown
  // arguments), so a call repeated in the history stays repeated and a known call is not added twice.
  const claimed = new Set<Pending>();
  for (const c of longest.calls) {
    const byIdMatch = c.id ? byId.get(c.id) : undefined;
    if (byIdMatch) {
      claimed.add(byIdMatch);
      continue;
    }
    const canon = canonicalJson(c.arguments);
    const same = pending.find(
      (p) =>
        !claimed.has(p) &&
        p.rec.call.name === c.name &&
        (!c.id || !p.rec.call.id) &&
        (canonicalJson(p.rec.call.arguments) === canon || Object.keys(p.rec.call.arguments).length === 0),
    );
    if (same) {
      claimed.add(same);
      if (Object.keys(same.rec.call.arguments).length === 0) same.rec.call.arguments = c.arguments;
      if (!same.rec.call.id && c.id) {
        same.rec.call.id = c.id;
        byId.set(c.id, same);
      }
      continue;
    }
    const p: Pending = {
      rec: { turn: 0, modelCallIndex: -1, call: { ...c }, startTimeMs: longest.at, endTimeMs: longest.at, executed: true },
      sortTimeMs: longest.at - 1e-3,
      seq: seq++,
      matchedTool: false,
    };
    claimed.add(p);
    if (c.id) byId.set(c.id, p);
    pending.push(p);
  }
  // Tool results from later histories, joined by call id.
  for (const msgs of inputs) {
    for (const m of msgs) {
      if (m.role !== 'tool' || !m.toolCallId) continue;
      const p = byId.get(m.toolCallId);
      if (p && p.rec.result === undefined && m.content !== undefined) p.rec.result = m.content;
    }
  }
  for (const m of logs.length ? readToolMessageLogs(logs) : []) {
    const p = byId.get(m.id);
    if (p && p.rec.result === undefined) p.rec.result = m.result;
  }

  // A call the model only requested (no tool span, no result in a later history) is not known to have run.
  for (const p of pending) if (!p.matchedTool && p.rec.result === undefined) p.rec.executed = false;
  sortSmall(pending, byRequestTime);
  const toolCalls = pending.map((p) => p.rec);
  // Call id (or position) and span id, in turn: spanIdsByCall builds the map from them.
  const callSpanPairs: string[] = [];
  pending.forEach((p, i) => {
    if (p.spanId) callSpanPairs.push(p.rec.call.id || `#${i}`, p.spanId);
  });

  return { toolCalls, callSpanPairs };
}

function byRequestTime(x: Pending, y: Pending): number {
  return x.sortTimeMs - y.sortTimeMs || x.seq - y.seq;
}

function spanIdsByCall(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) out[pairs[i]!] = pairs[i + 1]!;
  return out;
}

function firstUserMessage(inputs: Message[][], root: SpanRecord): string | undefined {
  for (const msgs of inputs) {
    const m = msgs.find((x) => x.role === 'user' && x.content !== undefined);
    if (m) return m.content;
  }
  const rootMsgs = genAiMessages(root.attributes[ATTR_GEN_AI_INPUT_MESSAGES]).find((m) => m.role === 'user' && m.text !== undefined);
  if (rootMsgs) return rootMsgs.text;
  const input = root.attributes[OI.INPUT_VALUE];
  if (typeof input === 'string') {
    const parsed = decodeJsonish(input);
    if (typeof parsed === 'string') return parsed;
    if (isRecord(parsed)) {
      const msgs = indexed(parsed.messages);
      const u = msgs.find((m) => isRecord(m) && normaliseRole(m.role) === 'user');
      if (isRecord(u)) return contentText(u.content);
      const p = parsed.prompt ?? parsed.input ?? parsed.task;
      if (typeof p === 'string') return p;
    }
    return input;
  }
  return undefined;
}
