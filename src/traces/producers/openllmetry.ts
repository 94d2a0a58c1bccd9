// OpenLLMetry (traceloop/openllmetry-js): the legacy indexed gen_ai.prompt.{i}.* / gen_ai.completion.{i}.*
// attributes, and traceloop.span.kind = tool spans with traceloop.entity.* input and output.
import { ATTR_GEN_AI_COMPLETION, ATTR_GEN_AI_INPUT_MESSAGES, ATTR_GEN_AI_PROMPT } from '../../semconv/gen-ai.js';
import type { Message, ToolCall } from '../../types/run.js';
import * as K from '../../semconv/producers.js';
import { toStr } from '../../telemetry/conventions/_json.js';
import type { SpanRecord } from '../spans.js';
import type { ProducerReader } from './reader.js';
import { someSpanHas, type ProducerFamily } from './family.js';
import {
  call,
  contentText,
  getPath,
  indexed,
  messageCalls,
  normaliseRole,
  subtree,
  type LlmOutput,
  type ToolSpanReading,
} from '../../telemetry/conventions/_read.js';

/** OpenLLMetry indexed `gen_ai.prompt.{i}.*` / `gen_ai.completion.{i}.*` (traceloop/openllmetry-js). */
function legacyMessages(attrs: Record<string, unknown>, prefix: string): Array<Message & { finishReason?: string }> {
  return indexed(subtree(attrs, prefix)).map((m) => {
    const msg: Message & { finishReason?: string } = {
      role: normaliseRole(getPath(m, K.LEGACY_ROLE) ?? (prefix === ATTR_GEN_AI_COMPLETION ? 'assistant' : 'user')),
    };
    const calls: ToolCall[] = [];
    for (const tc of indexed(getPath(m, K.LEGACY_TOOL_CALLS))) {
      const c = call(getPath(tc, 'id'), getPath(tc, 'name'), getPath(tc, 'arguments'));
      if (c) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
    }
    if (calls.length === 0) {
      const fc = getPath(m, K.LEGACY_FUNCTION_CALL);
      const c = call(undefined, getPath(fc, 'name'), getPath(fc, 'arguments'));
      if (c) calls.push({ id: '', name: c.name, arguments: c.arguments });
    }
    const content = getPath(m, K.LEGACY_CONTENT);
    if (content !== undefined) msg.content = contentText(content) ?? '';
    if (calls.length) msg.toolCalls = calls;
    const tcid = toStr(getPath(m, K.LEGACY_TOOL_CALL_ID));
    if (tcid) msg.toolCallId = tcid;
    const fr = toStr(getPath(m, K.LEGACY_FINISH_REASON));
    if (fr) msg.finishReason = fr;
    return msg;
  });
}

/** The model's answer from `gen_ai.completion.{i}.*`; undefined when the span has none. */
export function readLegacyOutput(span: SpanRecord): LlmOutput | undefined {
  const legacy = legacyMessages(span.attributes, ATTR_GEN_AI_COMPLETION);
  if (!legacy.length) return undefined;
  const out: LlmOutput = { calls: messageCalls(legacy) };
  const text = legacy.find((m) => m.content !== undefined)?.content;
  if (text !== undefined) out.text = text;
  const fr = legacy.find((m) => m.finishReason)?.finishReason;
  if (fr !== undefined) out.finishReason = fr;
  return out;
}

/** The request history from `gen_ai.prompt.{i}.*`; undefined when the span has none. */
export function readLegacyInput(span: SpanRecord): Message[] | undefined {
  const legacy = legacyMessages(span.attributes, ATTR_GEN_AI_PROMPT);
  return legacy.length ? legacy.map(({ finishReason: _f, ...m }) => m) : undefined;
}

/** A `traceloop.span.kind = tool` span: the entity name (else the span name less `.tool`), input, output. */
export function readTraceloopToolSpan(span: SpanRecord): ToolSpanReading {
  const a = span.attributes;
  if (a[K.TRACELOOP_SPAN_KIND] !== 'tool') return { recognised: false, fields: {} };
  return {
    recognised: true,
    fields: {
      name: toStr(a[K.TRACELOOP_ENTITY_NAME]) ?? span.name.replace(/\.tool$/, ''),
      rawArgs: a[K.TRACELOOP_ENTITY_INPUT],
      result: a[K.TRACELOOP_ENTITY_OUTPUT],
    },
  };
}

function hasKeyWithPrefix(attrs: Record<string, unknown>, prefix: string): boolean {
  if (attrs[prefix] !== undefined) return true;
  const p = prefix + '.';
  for (const k in attrs) if (k.startsWith(p)) return true;
  return false;
}

/** OpenLLMetry: `llm.request.type` model calls, legacy indexed messages, `traceloop.span.kind = tool` spans. */
export const openLlmetryReader: ProducerReader = {
  name: 'openllmetry',
  outputMerge: 'if_none',
  isToolSpan: (span) => span.attributes[K.TRACELOOP_SPAN_KIND] === 'tool',
  isLlmSpanByContent: (span) => hasKeyWithPrefix(span.attributes, ATTR_GEN_AI_COMPLETION) || span.attributes[K.LLM_REQUEST_TYPE] !== undefined,
  readOutputs(span) {
    const out = readLegacyOutput(span);
    return out ? [out] : undefined;
  },
  readInput: readLegacyInput,
  readToolSpan: readTraceloopToolSpan,
};

/** Either OpenLLMetry layout: its request type on model calls, or its span kinds on workflow and tool spans. */
function isOpenLlmetry(spans: readonly SpanRecord[]): boolean {
  return someSpanHas(spans, K.LLM_REQUEST_TYPE) || someSpanHas(spans, K.TRACELOOP_SPAN_KIND);
}

const TRACE_CONTENT = 'TRACELOOP_TRACE_CONTENT=true / traceContent: true';

/** The instrumentation scopes of openllmetry-js (`@traceloop/instrumentation-openai`, …). */
const isTraceloopScope = (s: SpanRecord): boolean => s.scopeName?.startsWith('@traceloop/') === true;

/**
 * The scopes of OpenLLMetry's Python SDK (traceloop-sdk): its decorators' tracer, and its OpenAI
 * instrumentation's (`opentelemetry.instrumentation.openai.v1`; the contrib one is `…openai_v2`).
 */
const isTraceloopPythonScope = (s: SpanRecord): boolean =>
  s.scopeName === 'traceloop.tracer' || s.scopeName === 'opentelemetry.instrumentation.openai.v1' || s.scopeName === 'opentelemetry.instrumentation.openai.v0';

/**
 * OpenLLMetry's current layout: openllmetry-js writes GenAI spans (gen_ai.provider.name, finish reasons,
 * gen_ai.input.messages with content) under its own scopes; the Python SDK writes the same under its
 * scopes (`use_attributes`, formerly `use_legacy_attributes`, on), or sends messages as log events (off).
 * Its legacy layout always writes `llm.request.type`, which the current one no longer does.
 */
export const openLlmetryFamily: ProducerFamily = {
  name: 'openllmetry',
  recognise: (spans, logs) =>
    spans.some(isTraceloopScope) ||
    (spans.some(isTraceloopPythonScope) && !someSpanHas(spans, K.LLM_REQUEST_TYPE)) ||
    (isOpenLlmetry(spans) && (logs.length > 0 || someSpanHas(spans, ATTR_GEN_AI_INPUT_MESSAGES))),
  contentSwitch: TRACE_CONTENT,
};

/** OpenLLMetry's legacy indexed `gen_ai.prompt.{i}.*` / `gen_ai.completion.{i}.*` layout (its default). */
export const openLlmetryLegacyFamily: ProducerFamily = {
  name: 'openllmetry-legacy',
  recognise: isOpenLlmetry,
  contentSwitch: TRACE_CONTENT,
};
