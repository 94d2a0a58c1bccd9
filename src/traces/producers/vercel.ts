// Vercel AI SDK telemetry (ai.* spans): ai.response.toolCalls / ai.prompt.messages on model-call spans,
// ai.toolCall spans for executed tools (ai-sdk.dev/docs/ai-sdk-core/telemetry).
import type { Message, ToolCall } from '../../types/run.js';
import * as K from '../../semconv/producers.js';
import { decodeJsonish, toInt, toStr } from '../../telemetry/conventions/_json.js';
import { isRecord } from '../../core/is-record.js';
import type { SpanRecord } from '../spans.js';
import type { ProducerReader, UsageReading } from './reader.js';
import type { ProducerFamily } from './family.js';
import { call, contentText, indexed, normaliseRole, type ExtractedCall, type LlmOutput, type ToolSpanReading } from '../../telemetry/conventions/_read.js';

/** Vercel AI SDK `ai.response.toolCalls` items: `{toolCallId, toolName, input | args}`; args may be JSON in JSON. */
function vercelCalls(v: unknown): ExtractedCall[] {
  return indexed(decodeJsonish(v)).flatMap((tc) => {
    if (!isRecord(tc)) return [];
    const c = call(tc.toolCallId ?? tc.id, tc.toolName ?? tc.name, tc.input ?? tc.args ?? tc.arguments);
    return c ? [c] : [];
  });
}

/** Vercel `ai.prompt.messages` (or `ai.prompt` {system, prompt, messages}). */
function vercelMessages(attrs: Record<string, unknown>): Message[] {
  let list = decodeJsonish(attrs[K.VERCEL_PROMPT_MESSAGES]);
  const out: Message[] = [];
  if (list === undefined) {
    const prompt = decodeJsonish(attrs[K.VERCEL_PROMPT]);
    if (isRecord(prompt)) {
      if (typeof prompt.system === 'string') out.push({ role: 'system', content: prompt.system });
      if (typeof prompt.prompt === 'string') out.push({ role: 'user', content: prompt.prompt });
      list = prompt.messages;
    } else if (typeof prompt === 'string') out.push({ role: 'user', content: prompt });
  }
  for (const m of indexed(list)) {
    if (!isRecord(m)) continue;
    const msg: Message = { role: normaliseRole(m.role) };
    const calls: ToolCall[] = [];
    if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (!isRecord(part)) continue;
        if (part.type === 'tool-call') {
          const c = call(part.toolCallId, part.toolName, part.input ?? part.args);
          if (c) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
        } else if (part.type === 'tool-result') {
          const id = toStr(part.toolCallId);
          if (id) msg.toolCallId = id;
          msg.content = contentText(part.output ?? part.result);
        }
      }
    }
    const text = contentText(typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content : undefined);
    if (text !== undefined && msg.content === undefined) msg.content = text;
    if (calls.length) msg.toolCalls = calls;
    out.push(msg);
  }
  return out;
}

/** The model's answer on an `ai.*` span; undefined when the span is not the SDK's. */
export function readVercelOutput(span: SpanRecord): LlmOutput | undefined {
  const a = span.attributes;
  const calls = a[K.VERCEL_RESPONSE_TOOL_CALLS] ?? a[K.VERCEL_RESULT_TOOL_CALLS];
  if (calls === undefined && !span.name.startsWith(K.VERCEL_SPAN_PREFIX)) return undefined;
  const out: LlmOutput = { calls: calls === undefined ? [] : vercelCalls(calls) };
  const text = toStr(a[K.VERCEL_RESPONSE_TEXT] ?? a[K.VERCEL_RESULT_TEXT]);
  if (text !== undefined) out.text = text;
  const fr = toStr(a[K.VERCEL_RESPONSE_FINISH_REASON] ?? a[K.VERCEL_FINISH_REASON]);
  if (fr !== undefined) out.finishReason = fr;
  return out;
}

/** The request history from `ai.prompt.messages` / `ai.prompt`; undefined when the span has none. */
export function readVercelInput(span: SpanRecord): Message[] | undefined {
  const vercel = vercelMessages(span.attributes);
  return vercel.length ? vercel : undefined;
}

/** An `ai.toolCall` span: ai.toolCall.name / id / args (or input) / result (or output). */
export function readVercelToolSpan(span: SpanRecord): ToolSpanReading {
  const a = span.attributes;
  if (span.name !== K.VERCEL_TOOL_CALL_SPAN && a[K.VERCEL_TOOL_CALL_NAME] === undefined) return { recognised: false, fields: {} };
  return {
    recognised: true,
    fields: {
      name: toStr(a[K.VERCEL_TOOL_CALL_NAME]),
      id: toStr(a[K.VERCEL_TOOL_CALL_ID]),
      rawArgs: a[K.VERCEL_TOOL_CALL_ARGS] ?? a[K.VERCEL_TOOL_CALL_INPUT],
      result: a[K.VERCEL_TOOL_CALL_RESULT] ?? a[K.VERCEL_TOOL_CALL_OUTPUT],
    },
  };
}

/** Vercel AI SDK `ai.*` spans (AI SDK 6, and AI SDK 7's LegacyOpenTelemetry). */
export const vercelReader: ProducerReader = {
  name: 'vercel',
  outputMerge: 'if_none',
  isToolSpan: (span) => span.name === K.VERCEL_TOOL_CALL_SPAN,
  isLlmSpanByMarker(span) {
    if (!span.name.startsWith(K.VERCEL_SPAN_PREFIX)) return undefined;
    return K.VERCEL_MODEL_CALL_SPAN_SUFFIXES.some((s) => span.name.endsWith(s));
  },
  readOutputs(span) {
    const out = readVercelOutput(span);
    return out ? [out] : undefined;
  },
  readInput: readVercelInput,
  readToolSpan: readVercelToolSpan,
  usage(a) {
    const u: UsageReading = {};
    const p = toInt(a[K.VERCEL_USAGE_PROMPT_TOKENS]);
    const c = toInt(a[K.VERCEL_USAGE_COMPLETION_TOKENS]);
    if (p !== undefined) u.promptTokens = p;
    if (c !== undefined) u.completionTokens = c;
    return u;
  },
  provider: (a) => toStr(a[K.VERCEL_MODEL_PROVIDER]),
  requestModel: (a) => toStr(a[K.VERCEL_MODEL_ID]),
};

/**
 * `ai.*` spans: AI SDK 6, or AI SDK 7's LegacyOpenTelemetry (the same layout and tracer name, so the two
 * cannot be told apart from a trace).
 */
export const aiSdkFamily: ProducerFamily = {
  name: 'ai-sdk',
  recognise: (spans) =>
    spans.some((s) => s.name.startsWith(K.VERCEL_SPAN_PREFIX) && (s.attributes[K.VERCEL_MODEL_ID] !== undefined || s.name === K.VERCEL_TOOL_CALL_SPAN)),
  contentSwitch: 'experimental_telemetry.recordOutputs: true (and recordInputs)',
};
