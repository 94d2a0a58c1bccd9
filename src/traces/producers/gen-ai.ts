// OpenTelemetry GenAI semantic conventions: gen_ai.input.messages / gen_ai.output.messages as message
// JSON (semantic-conventions v1.41 gen-ai-input-messages.json / gen-ai-output-messages.json), and
// execute_tool spans with gen_ai.tool.* attributes (gen-ai-spans.md "Execute tool span").
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
} from '../../semconv/gen-ai.js';
import type { Message } from '../../types/run.js';
import { decodeJsonish, toStr } from '../_json.js';
import { isRecord } from '../../core/is-record.js';
import type { SpanRecord } from '../spans.js';
import { call, contentText, indexed, normaliseRole, toolCallsOf, type ExtractedCall, type LlmOutput, type ToolSpanReading } from './_shared.js';

/** gen_ai.output.messages / gen_ai.input.messages (semantic-conventions v1.41 message JSON schemas). */
export function genAiMessages(v: unknown): Array<{ role: Message['role']; text?: string; calls: ExtractedCall[]; responses: Array<{ id?: string; response: unknown }>; finishReason?: string }> {
  const list = decodeJsonish(v);
  return indexed(list).filter(isRecord).map((m) => {
    const calls: ExtractedCall[] = [];
    const responses: Array<{ id?: string; response: unknown }> = [];
    const texts: string[] = [];
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
      } else if (part.type === 'text' && typeof part.content === 'string') texts.push(part.content);
    }
    const out: { role: Message['role']; text?: string; calls: ExtractedCall[]; responses: Array<{ id?: string; response: unknown }>; finishReason?: string } = {
      role: normaliseRole(m.role),
      calls,
      responses,
    };
    if (texts.length) out.text = texts.join('\n');
    const fr = toStr(m.finish_reason);
    if (fr) out.finishReason = fr;
    return out;
  });
}

/** `gen_ai.response.finish_reasons` (first entry), when the span has it. */
export function genAiFinishReason(a: Record<string, unknown>): string | undefined {
  const finishReasons = a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS];
  return Array.isArray(finishReasons) ? toStr(finishReasons[0]) : toStr(finishReasons);
}

/** The model's answer from `gen_ai.output.messages`; undefined when the span does not carry it. */
export function readGenAiOutput(span: SpanRecord): LlmOutput | undefined {
  const v = span.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES];
  if (v === undefined) return undefined;
  const out: LlmOutput = { calls: [] };
  for (const m of genAiMessages(v)) {
    out.calls.push(...m.calls);
    if (m.text !== undefined && out.text === undefined) out.text = m.text;
    if (m.finishReason !== undefined && out.finishReason === undefined) out.finishReason = m.finishReason;
  }
  return out;
}

/** The request history from `gen_ai.system_instructions` + `gen_ai.input.messages`; undefined without them. */
export function readGenAiInput(span: SpanRecord): Message[] | undefined {
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
export function readGenAiToolSpan(span: SpanRecord): ToolSpanReading {
  const a = span.attributes;
  const name = toStr(a[ATTR_GEN_AI_TOOL_NAME]);
  return {
    recognised: name !== undefined && name !== '',
    fields: { name, id: toStr(a[ATTR_GEN_AI_TOOL_CALL_ID]), rawArgs: a[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS], result: a[ATTR_GEN_AI_TOOL_CALL_RESULT] },
  };
}
