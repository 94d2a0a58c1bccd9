// The deprecated GenAI events (gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message,
// gen_ai.choice), as span events or as log records (opentelemetry-python-contrib openai-v2 emits them
// as logs joined to their span by trace and span id).
import type { Message } from '../../types/run.js';
import * as K from '../../semconv/producers.js';
import { decodeJsonish, toStr } from '../../telemetry/conventions/_json.js';
import { isRecord } from '../../core/is-record.js';
import type { LogRecordEntry, SpanRecord } from '../spans.js';
import type { ProducerReader } from './reader.js';
import type { ProducerFamily } from './family.js';
import { ATTR_GEN_AI_OPERATION_NAME } from '../../semconv/gen-ai.js';
import { call, contentText, indexed, toolCallsOf, unflatten, type ExtractedCall, type LlmOutput } from '../../telemetry/conventions/_read.js';

/** gen_ai.choice body (deprecated event): tool calls at `message.tool_calls` (python-contrib) or `tool_calls`. */
export function choiceCalls(body: unknown): { calls: ExtractedCall[]; text?: string; finishReason?: string } {
  const b = decodeJsonish(body);
  if (!isRecord(b)) return { calls: [] };
  const message = isRecord(b.message) ? b.message : {};
  const list = indexed(message.tool_calls ?? b.tool_calls);
  const calls = list.flatMap((tc) => {
    if (!isRecord(tc)) return [];
    const fn = isRecord(tc.function) ? tc.function : tc;
    const c = call(tc.id, fn.name, fn.arguments);
    return c ? [c] : [];
  });
  const out: { calls: ExtractedCall[]; text?: string; finishReason?: string } = { calls };
  const text = contentText(message.content ?? b.content);
  if (text) out.text = text;
  const fr = toStr(b.finish_reason);
  if (fr) out.finishReason = fr;
  return out;
}

/** One answer per `gen_ai.choice` event of the span (span events and log records); empty when none. */
export function readChoiceEvents(span: SpanRecord, logs: LogRecordEntry[]): LlmOutput[] {
  if (span.events.length === 0 && logs.length === 0) return [];
  const bodies = [
    // Span-event form: the body's fields are flattened into event attributes (`tool_calls.0.function.name`).
    ...span.events.filter((e) => e.name === K.EVENT_GEN_AI_CHOICE).map((e) => unflatten(e.attributes)),
    ...logs.filter((l) => l.spanId === span.spanId && l.eventName === K.EVENT_GEN_AI_CHOICE).map((l) => l.body),
  ];
  return bodies.map(choiceCalls);
}

/** The request history from per-message events (span events or log records), in emitted order. */
export function readEventInput(span: SpanRecord, logs: LogRecordEntry[]): Message[] {
  const messages: Message[] = [];
  const bodies = [
    ...span.events.map((e) => ({ name: e.name, body: e.attributes as unknown, t: e.timeMs })),
    ...logs.filter((l) => l.spanId === span.spanId).map((l) => ({ name: l.eventName, body: l.body, t: l.timeMs })),
  ].sort((x, y) => x.t - y.t);
  for (const { name, body } of bodies) {
    const b = decodeJsonish(body);
    if (!isRecord(b)) continue;
    if (name === K.EVENT_GEN_AI_USER_MESSAGE) messages.push({ role: 'user', content: contentText(b.content) ?? '' });
    else if (name === K.EVENT_GEN_AI_SYSTEM_MESSAGE) messages.push({ role: 'system', content: contentText(b.content) ?? '' });
    else if (name === K.EVENT_GEN_AI_TOOL_MESSAGE) {
      const msg: Message = { role: 'tool', content: contentText(b.content) ?? '' };
      const id = toStr(b.id);
      if (id) msg.toolCallId = id;
      messages.push(msg);
    } else if (name === K.EVENT_GEN_AI_ASSISTANT_MESSAGE) {
      const c = choiceCalls({ message: b });
      const msg: Message = { role: 'assistant' };
      if (c.text) msg.content = c.text;
      if (c.calls.length) msg.toolCalls = toolCallsOf(c.calls);
      messages.push(msg);
    }
  }
  return messages;
}

/** Tool results carried by `gen_ai.tool.message` log records: call id → result text. */
export function readToolMessageLogs(logs: LogRecordEntry[]): Array<{ id: string; result: string }> {
  const out: Array<{ id: string; result: string }> = [];
  for (const l of logs) {
    if (l.eventName !== K.EVENT_GEN_AI_TOOL_MESSAGE) continue;
    const b = decodeJsonish(l.body);
    if (!isRecord(b)) continue;
    out.push({ id: toStr(b.id) ?? '', result: contentText(b.content) ?? '' });
  }
  return out;
}

/** The deprecated GenAI events, on spans or as log records. */
export const genAiEventsReader: ProducerReader = {
  name: 'gen_ai_events',
  outputMerge: 'union',
  readOutputs: readChoiceEvents,
  readInput: readEventInput,
  readToolResults: readToolMessageLogs,
};

/**
 * GenAI spans whose messages go out as events (the deprecated per-message events): the default layout of
 * opentelemetry-instrumentation-openai-v2 (gen_ai.system, log records joined by span id).
 */
export const otelGenAiEventsFamily: ProducerFamily = {
  name: 'otel-genai-events',
  recognise: (spans, logs) => logs.length > 0 || spans.some((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] !== undefined),
  contentSwitch: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true',
};
