// OpenInference (Arize-ai/openinference: spec/semantic_conventions.md, spec/tool_calling.md): flattened
// llm.input_messages / llm.output_messages, and TOOL spans with tool.* and input/output values.
import { OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import type { Message, ToolCall } from '../../types/run.js';
import { decodeJsonish, toStr } from '../_json.js';
import { isRecord } from '../../core/is-record.js';
import type { SpanRecord } from '../spans.js';
import { call, getPath, indexed, messageCalls, normaliseRole, subtree, type LlmOutput, type ToolSpanReading } from './_shared.js';

/** OpenInference flattened messages: `{prefix}.{i}.message.*` (spec/semantic_conventions.md, tool_calling.md). */
function oiMessages(attrs: Record<string, unknown>, prefix: string): Message[] {
  return indexed(subtree(attrs, prefix)).map((m) => {
    const msg: Message = { role: normaliseRole(getPath(m, OI.MESSAGE_ROLE)) };
    const calls: ToolCall[] = [];
    for (const tc of indexed(getPath(m, OI.MESSAGE_TOOL_CALLS))) {
      const c = call(getPath(tc, OI.TOOL_CALL_ID), getPath(tc, OI.TOOL_CALL_FUNCTION_NAME), getPath(tc, OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON));
      if (c) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
    }
    const texts: string[] = [];
    for (const part of indexed(getPath(m, OI.MESSAGE_CONTENTS))) {
      const type = getPath(part, OI.MESSAGE_CONTENT_TYPE);
      if (type === 'tool_use' && calls.length === 0) {
        const c = call(getPath(part, OI.TOOL_CALL_ID), getPath(part, OI.TOOL_CALL_FUNCTION_NAME), getPath(part, OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON));
        if (c) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
      } else if (type === 'text' || type === undefined) {
        const t = getPath(part, OI.MESSAGE_CONTENT_TEXT);
        if (typeof t === 'string') texts.push(t);
      }
    }
    if (calls.length === 0) {
      const legacy = call(undefined, getPath(m, OI.MESSAGE_FUNCTION_CALL_NAME), getPath(m, OI.MESSAGE_FUNCTION_CALL_ARGUMENTS_JSON));
      if (legacy) calls.push({ id: '', name: legacy.name, arguments: legacy.arguments });
    }
    const content = getPath(m, OI.MESSAGE_CONTENT);
    if (typeof content === 'string') msg.content = content;
    else if (texts.length) msg.content = texts.join('\n');
    if (calls.length) msg.toolCalls = calls;
    const tcid = toStr(getPath(m, OI.MESSAGE_TOOL_CALL_ID));
    if (tcid) msg.toolCallId = tcid;
    const name = toStr(getPath(m, OI.MESSAGE_NAME));
    if (name) msg.name = name;
    return msg;
  });
}

/** `llm.finish_reason`, when the span has it. */
export function oiFinishReason(a: Record<string, unknown>): string | undefined {
  return toStr(a[OI.LLM_FINISH_REASON]);
}

/** The model's answer from `llm.output_messages`; undefined when the span has none. */
export function readOiOutput(span: SpanRecord): LlmOutput | undefined {
  const oi = oiMessages(span.attributes, OI.LLM_OUTPUT_MESSAGES);
  if (!oi.length) return undefined;
  const out: LlmOutput = { calls: messageCalls(oi) };
  const text = oi.find((m) => m.content !== undefined)?.content;
  if (text !== undefined) out.text = text;
  return out;
}

/** The request history from `llm.input_messages`; undefined when the span has none. */
export function readOiInput(span: SpanRecord): Message[] | undefined {
  const oi = oiMessages(span.attributes, OI.LLM_INPUT_MESSAGES);
  return oi.length ? oi : undefined;
}

/** Looks like a JSON Schema rather than call arguments (OI converters put either in tool.parameters). */
function looksLikeSchema(v: Record<string, unknown>): boolean {
  return v.type === 'object' && isRecord(v.properties);
}

/** A TOOL span's call: tool.name, tool_call.id, input.value (or non-schema tool.parameters), output.value. */
export function readOiToolSpan(span: SpanRecord): ToolSpanReading {
  const a = span.attributes;
  if (a[OI.OPENINFERENCE_SPAN_KIND] !== OpenInferenceSpanKind.TOOL && a[OI.TOOL_NAME] === undefined) return { recognised: false, fields: {} };
  let rawArgs: unknown;
  const input = decodeJsonish(a[OI.INPUT_VALUE]);
  if (isRecord(input)) rawArgs = input;
  else {
    const params = decodeJsonish(a[OI.TOOL_PARAMETERS]);
    if (isRecord(params) && !looksLikeSchema(params)) rawArgs = params;
  }
  return {
    recognised: true,
    fields: { name: toStr(a[OI.TOOL_NAME]), id: toStr(a[OI.TOOL_CALL_ID]) ?? toStr(a[OI.TOOL_ID]), rawArgs, result: a[OI.OUTPUT_VALUE] },
  };
}
