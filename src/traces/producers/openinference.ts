// OpenInference glue for third-party producers: the OpenInference OpenAI instrumentation garbles streamed
// parallel tool calls, so the output reader of the convention (src/telemetry/conventions/openinference.ts,
// beside our writer) is followed here by a repair that splits such calls back.
import { OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { isRecord } from '../../core/is-record.js';
import { balancedJsonEnd } from '../../core/json-scan.js';
import { toInt, toStr } from '../../telemetry/conventions/_json.js';
import {
  offeredToolNames,
  oiFinishReason,
  readOiInput,
  readOiOutput as readOiOutputAsWritten,
  readOiOutputText,
  readOiToolSpan,
} from '../../telemetry/conventions/openinference.js';
import type { AttributeCarrier, ExtractedCall, LlmOutput } from '../../telemetry/conventions/_read.js';
import type { ProducerReader, UsageReading } from './reader.js';
import { someSpanHas, type ProducerFamily } from './family.js';

/** Top-level JSON values written back to back (`{"a":1}{"b":2}`), or undefined when the text is not that. */
export function splitConcatenatedJson(text: string, maxParts = 64): unknown[] | undefined {
  const parts: unknown[] = [];
  for (let i = 0; i < text.length;) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch !== '{') return undefined;
    const end = balancedJsonEnd(text, i);
    if (end < 0) return undefined;
    try {
      parts.push(JSON.parse(text.slice(i, end)));
    } catch {
      return undefined;
    }
    if (parts.length > maxParts) return undefined;
    i = end;
  }
  return parts.length > 0 ? parts : undefined;
}

/** `search_filesread_file` → ['search_files', 'read_file'] when it is exactly a concatenation of offered names. */
function splitNames(name: string, offered: readonly string[], parts: number): string[] | undefined {
  const sorted = [...new Set(offered)].filter(Boolean).sort((a, b) => b.length - a.length);
  const go = (rest: string, left: number): string[] | undefined => {
    if (left === 0) return rest === '' ? [] : undefined;
    for (const n of sorted) {
      if (!rest.startsWith(n)) continue;
      const tail = go(rest.slice(n.length), left - 1);
      if (tail) return [n, ...tail];
    }
    return undefined;
  };
  return go(name, parts);
}

/**
 * The OpenInference OpenAI instrumentation merges streamed parallel tool calls into one call whose name and
 * arguments are the concatenations (`search_filesread_file`, `{"pattern":"*.ts"}{"path":"src/index.ts"}`).
 * Split such a call back using the tool names offered on the same span and the JSON boundaries; the
 * recovered calls are marked `reconstructed`. Anything that does not split cleanly is left as it is.
 */
export function recoverMergedCalls(calls: ExtractedCall[], offered: readonly string[]): ExtractedCall[] {
  if (!offered.length) return calls;
  const known = new Set(offered);
  return calls.flatMap((c) => {
    const raw = c.arguments._raw;
    if (known.has(c.name) || typeof raw !== 'string' || Object.keys(c.arguments).length !== 1) return [c];
    const args = splitConcatenatedJson(raw);
    if (!args || args.length < 2 || !args.every(isRecord)) return [c];
    const names = splitNames(c.name, offered, args.length);
    if (!names) return [c];
    return names.map((name, i): ExtractedCall => {
      const out: ExtractedCall = { name, arguments: args[i] as Record<string, unknown>, reconstructed: true };
      if (c.id) out.id = i === 0 ? c.id : `${c.id}#${i}`;
      return out;
    });
  });
}

/** The model's answer from `llm.output_messages`, merged parallel calls split back; undefined when none. */
export function readOiOutput(span: AttributeCarrier): LlmOutput | undefined {
  const out = readOiOutputAsWritten(span);
  // The offered tools are read only when a call could be a merged one (unparsed `_raw` arguments).
  if (out?.calls.some(mayBeMerged)) out.calls = recoverMergedCalls(out.calls, offeredToolNames(span.attributes));
  return out;
}

/** What recoverMergedCalls can split: arguments that did not parse (`{ _raw }` alone). */
function mayBeMerged(c: ExtractedCall): boolean {
  return typeof c.arguments._raw === 'string' && Object.keys(c.arguments).length === 1;
}

function hasKeyWithPrefix(attrs: Record<string, unknown>, prefix: string): boolean {
  if (attrs[prefix] !== undefined) return true;
  const p = prefix + '.';
  for (const k in attrs) if (k.startsWith(p)) return true;
  return false;
}

/** OpenInference (`openinference.span.kind` LLM / TOOL, `llm.*`, `tool.*`, `input.value` / `output.value`). */
export const openInferenceReader: ProducerReader = {
  name: 'openinference',
  outputMerge: 'if_none',
  isToolSpan: (span) => span.attributes[OI.OPENINFERENCE_SPAN_KIND] === OpenInferenceSpanKind.TOOL,
  isLlmSpanByMarker(span) {
    const kind = span.attributes[OI.OPENINFERENCE_SPAN_KIND];
    return typeof kind === 'string' ? kind === OpenInferenceSpanKind.LLM : undefined;
  },
  isLlmSpanByContent: (span) => hasKeyWithPrefix(span.attributes, OI.LLM_OUTPUT_MESSAGES),
  finishReason: oiFinishReason,
  readOutputs(span) {
    const out = readOiOutput(span);
    return out ? [out] : undefined;
  },
  readOutputText: readOiOutputText,
  readInput: readOiInput,
  readToolSpan: readOiToolSpan,
  usage(a) {
    const u: UsageReading = {};
    const p = toInt(a[OI.LLM_TOKEN_COUNT_PROMPT]);
    const c = toInt(a[OI.LLM_TOKEN_COUNT_COMPLETION]);
    const t = toInt(a[OI.LLM_TOKEN_COUNT_TOTAL]);
    if (p !== undefined) u.promptTokens = p;
    if (c !== undefined) u.completionTokens = c;
    if (t !== undefined) u.totalTokens = t;
    return u;
  },
  provider: (a) => toStr(a[OI.LLM_PROVIDER]) ?? toStr(a[OI.LLM_SYSTEM]),
  requestModel: (a) => toStr(a[OI.LLM_REQUEST_MODEL_NAME]),
  responseModel: (a) => toStr(a[OI.LLM_MODEL_NAME]),
};

export const openInferenceFamily: ProducerFamily = {
  name: 'openinference',
  recognise: (spans) => someSpanHas(spans, OI.OPENINFERENCE_SPAN_KIND),
  contentSwitch: 'OPENINFERENCE_HIDE_OUTPUTS=false / traceConfig.hideOutputs: false',
};
