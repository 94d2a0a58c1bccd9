// OpenTelemetry GenAI semantic conventions (semantic-conventions v1.41.0, vendored in src/semconv/gen-ai.ts):
// the writer (gen_ai.* message JSON, tool definitions, request parameters, the gen_ai.evaluation.result
// event) and, below it, the reader that turns gen_ai.input.messages / gen_ai.output.messages
// (gen-ai-input-messages.json / gen-ai-output-messages.json) and execute_tool spans (gen-ai-spans.md
// "Execute tool span") back into model and tool calls. A change to what we write goes next to what we read.
import type { Attributes, AttributeValue, Span, TimeInput } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  EVENT_GEN_AI_EVALUATION_RESULT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from '../../semconv/gen-ai.js';
import { GEN_AI_TOOL_TYPE_VALUE_FUNCTION } from '../../semconv/vendor.js';
import type { Message, ModelCallRecord, ToolCall } from '../../types/run.js';
import type { ToolDefinition } from '../../types/toolset.js';
import { isRecord } from '../../core/is-record.js';
import { RecordSink, type AttributeSink } from '../attributes.js';
import type { VerdictSummary } from './runspec.js';
import { decodeJsonish, toStr } from './_json.js';
import {
  call,
  contentText,
  indexed,
  normaliseRole,
  toolCallsOf,
  type AttributeCarrier,
  type ExtractedCall,
  type LlmOutput,
  type ToolSpanReading,
} from './_read.js';

// ================================================================ writer

/** Canonical `finish_reason` of gen_ai output messages (7.1.5); provider values stay in finish_reasons. */
export function canonicalFinishReason(reason: string | undefined, hasToolCalls: boolean): string {
  switch (reason) {
    case 'tool_calls':
    case 'tool_use':
    case 'tool-calls':
    case 'function_call':
    case 'tool_call':
      return 'tool_call';
    case 'end_turn':
    case 'stop_sequence':
    case 'stop':
      return 'stop';
    case 'max_tokens':
    case 'length':
      return 'length';
    case undefined:
      return hasToolCalls ? 'tool_call' : 'stop';
    default:
      return reason;
  }
}

type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_call_response'; id: string | null; response: string };

/** A message in the gen_ai.input.messages schema (gen-ai-input-messages.json). */
export function genAiMessage(m: Message): { role: string; parts: GenAiPart[]; name?: string } {
  const parts: GenAiPart[] = [];
  if (m.role === 'tool') {
    parts.push({ type: 'tool_call_response', id: m.toolCallId ?? null, response: m.content ?? '' });
  } else {
    if (m.content !== undefined && m.content !== '') parts.push({ type: 'text', content: m.content });
    for (const c of m.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments });
  }
  return m.name !== undefined ? { role: m.role, parts, name: m.name } : { role: m.role, parts };
}

export function genAiOutputMessages(call: ModelCallRecord): Array<ReturnType<typeof genAiMessage> & { finish_reason: string }> {
  const r = call.response;
  if (!r) return [];
  const msg = genAiMessage({ role: 'assistant', ...(r.text !== undefined ? { content: r.text } : {}), toolCalls: r.toolCalls });
  return [{ ...msg, finish_reason: canonicalFinishReason(r.finishReason, r.toolCalls.length > 0) }];
}

/** gen_ai.tool.definitions: flat `{type:"function", name, description, parameters}` (gen-ai-tool-definitions.json). */
export function genAiToolDefinitions(tools: readonly ToolDefinition[]): unknown[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }));
}

// A run offers every case of a toolset the same tool list (the layout builds it once): serialised once per
// list, not once per model call.
const toolDefinitionsJson = new WeakMap<readonly ToolDefinition[], string>();

/** {@link genAiToolDefinitions} as the attribute's JSON text, made once per tool list. */
export function genAiToolDefinitionsJson(tools: readonly ToolDefinition[]): string {
  let text = toolDefinitionsJson.get(tools);
  if (text === undefined) toolDefinitionsJson.set(tools, (text = JSON.stringify(genAiToolDefinitions(tools))));
  return text;
}

/** Sampling parameters actually sent → gen_ai.request.* (only the ones with a convention, well typed). */
export function requestParamAttributes(params: Record<string, unknown>): Attributes {
  const sink = new RecordSink();
  writeRequestParamAttributes(sink, params);
  return sink.attributes;
}

/** {@link requestParamAttributes}, written onto `sink` in wire order. */
export function writeRequestParamAttributes(sink: AttributeSink, params: Record<string, unknown>): void {
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const int = (v: unknown): number | undefined => (Number.isInteger(v) ? (v as number) : undefined);
  const stop = params.stop ?? params.stop_sequences;
  const stops = typeof stop === 'string' ? [stop] : Array.isArray(stop) && stop.every((s) => typeof s === 'string') ? (stop as string[]) : undefined;
  const n = int(params.n);
  const set = (key: string, value: AttributeValue | undefined): void => {
    if (value !== undefined) sink.setAttribute(key, value);
  };
  set(ATTR_GEN_AI_REQUEST_TEMPERATURE, num(params.temperature));
  set(ATTR_GEN_AI_REQUEST_MAX_TOKENS, int(params.max_tokens ?? params.max_completion_tokens));
  set(ATTR_GEN_AI_REQUEST_TOP_P, num(params.top_p));
  set(ATTR_GEN_AI_REQUEST_TOP_K, num(params.top_k));
  set(ATTR_GEN_AI_REQUEST_SEED, int(params.seed));
  set(ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY, num(params.frequency_penalty));
  set(ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY, num(params.presence_penalty));
  set(ATTR_GEN_AI_REQUEST_STOP_SEQUENCES, stops);
  set(ATTR_GEN_AI_REQUEST_CHOICE_COUNT, n !== undefined && n !== 1 ? n : undefined);
}

/** The `gen_ai.*` attributes of an execute_tool span that name the call (content goes on separately). */
export function genAiToolSpanAttributes(call: Pick<ToolCall, 'id' | 'name'>, description: string | undefined): Attributes {
  const sink = new RecordSink();
  writeGenAiToolSpanAttributes(sink, call, description);
  return sink.attributes;
}

/** {@link genAiToolSpanAttributes}, written onto `sink` in wire order. */
export function writeGenAiToolSpanAttributes(sink: AttributeSink, call: Pick<ToolCall, 'id' | 'name'>, description: string | undefined): void {
  sink.setAttribute(ATTR_GEN_AI_OPERATION_NAME, GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
  if (call.name !== undefined) sink.setAttribute(ATTR_GEN_AI_TOOL_NAME, call.name);
  if (call.id !== undefined) sink.setAttribute(ATTR_GEN_AI_TOOL_CALL_ID, call.id);
  sink.setAttribute(ATTR_GEN_AI_TOOL_TYPE, GEN_AI_TOOL_TYPE_VALUE_FUNCTION);
  if (description !== undefined) sink.setAttribute(ATTR_GEN_AI_TOOL_DESCRIPTION, description);
}

/** The `gen_ai.evaluation.result` span event (semantic-conventions v1.38+). */
export function addEvaluationEvent(span: Span, s: VerdictSummary, time: TimeInput): void {
  span.addEvent(
    EVENT_GEN_AI_EVALUATION_RESULT,
    // An infrastructure error is not an evaluation: error.type and no score (semconv gen-ai events).
    evaluationEventAttributes(s),
    time,
  );
}

function evaluationEventAttributes(s: VerdictSummary): Attributes {
  const a: Attributes = {};
  a[ATTR_GEN_AI_EVALUATION_NAME] = s.name;
  if (s.judged) a[ATTR_GEN_AI_EVALUATION_SCORE_VALUE] = s.pass ? 1 : 0;
  a[ATTR_GEN_AI_EVALUATION_SCORE_LABEL] = s.category;
  a[ATTR_GEN_AI_EVALUATION_EXPLANATION] = s.reason;
  if (s.errorType !== undefined) a[ATTR_ERROR_TYPE] = s.errorType;
  return a;
}

// ================================================================ reader

/** One message of gen_ai.input.messages / gen_ai.output.messages, as the readers use it. */
export interface GenAiMessage {
  role: Message['role'];
  text?: string;
  calls: ExtractedCall[];
  responses: Array<{ id?: string; response: unknown }>;
  finishReason?: string;
}

/** gen_ai.output.messages / gen_ai.input.messages (semantic-conventions v1.41 message JSON schemas). */
export function genAiMessages(v: unknown): GenAiMessage[] {
  // Loops, not filter + map, and texts joined as they come (no list): this runs for both message
  // attributes of every model call.
  const out: GenAiMessage[] = [];
  for (const m of indexed(decodeJsonish(v))) {
    if (!isRecord(m)) continue;
    const calls: ExtractedCall[] = [];
    const responses: Array<{ id?: string; response: unknown }> = [];
    let text: string | undefined;
    for (const part of indexed(decodeJsonish(m.parts))) {
      if (!isRecord(part)) continue;
      if (part.type === 'tool_call') {
        const c = call(part.id, part.name, part.arguments);
        if (c) calls.push(c);
      } else if (part.type === 'tool_call_response') {
        const r: { id?: string; response: unknown } = { response: part.response ?? part.result };
        const id = toStr(part.id);
        if (id) r.id = id;
        responses.push(r);
      } else if (part.type === 'text' && typeof part.content === 'string') text = text === undefined ? part.content : `${text}\n${part.content}`;
    }
    const msg: GenAiMessage = { role: normaliseRole(m.role), calls, responses };
    if (text !== undefined) msg.text = text;
    const fr = toStr(m.finish_reason);
    if (fr) msg.finishReason = fr;
    out.push(msg);
  }
  return out;
}

/** `gen_ai.response.finish_reasons` (first entry), when the span has it. */
export function genAiFinishReason(a: Record<string, unknown>): string | undefined {
  const finishReasons = a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS];
  return Array.isArray(finishReasons) ? toStr(finishReasons[0]) : toStr(finishReasons);
}

/** The model's answer from `gen_ai.output.messages`; undefined when the span does not carry it. */
export function readGenAiOutput(span: AttributeCarrier): LlmOutput | undefined {
  const v = span.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES];
  if (v === undefined) return undefined;
  const out: LlmOutput = { calls: [] };
  for (const m of genAiMessages(v)) {
    for (const c of m.calls) out.calls.push(c);
    if (m.text !== undefined && out.text === undefined) out.text = m.text;
    if (m.finishReason !== undefined && out.finishReason === undefined) out.finishReason = m.finishReason;
  }
  return out;
}

/** The request history from `gen_ai.system_instructions` + `gen_ai.input.messages`; undefined without them. */
export function readGenAiInput(span: AttributeCarrier): Message[] | undefined {
  const a = span.attributes;
  if (a[ATTR_GEN_AI_INPUT_MESSAGES] === undefined) return undefined;
  const messages: Message[] = [];
  const sys = a[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS];
  if (sys !== undefined) {
    const parts = indexed(decodeJsonish(sys)).flatMap((p) => (isRecord(p) && typeof p.content === 'string' ? [p.content] : []));
    if (parts.length) messages.push({ role: 'system', content: parts.join('\n') });
  }
  for (const m of genAiMessages(a[ATTR_GEN_AI_INPUT_MESSAGES])) {
    if (m.responses.length) {
      for (const r of m.responses) {
        const msg: Message = { role: 'tool', content: contentText(r.response) ?? '' };
        if (r.id) msg.toolCallId = r.id;
        messages.push(msg);
      }
      continue;
    }
    const msg: Message = { role: m.role };
    if (m.text !== undefined) msg.content = m.text;
    if (m.calls.length) msg.toolCalls = toolCallsOf(m.calls);
    messages.push(msg);
  }
  return messages;
}

/** `gen_ai.tool.*` of an execute_tool span; recognised when it names the tool. */
export function readGenAiToolSpan(span: AttributeCarrier): ToolSpanReading {
  const a = span.attributes;
  const name = toStr(a[ATTR_GEN_AI_TOOL_NAME]);
  return {
    recognised: name !== undefined && name !== '',
    fields: { name, id: toStr(a[ATTR_GEN_AI_TOOL_CALL_ID]), rawArgs: a[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS], result: a[ATTR_GEN_AI_TOOL_CALL_RESULT] },
  };
}
