// OpenInference (Arize-ai/openinference: spec/semantic_conventions.md, spec/tool_calling.md): flattened
// llm.input_messages / llm.output_messages, and TOOL spans with tool.* and input/output values.
import { OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import type { Message, ToolCall } from '../../types/run.js';
import { decodeJsonish, toStr } from '../_json.js';
import { isRecord } from '../../core/is-record.js';
import type { SpanRecord } from '../spans.js';
import { call, getPath, indexed, messageCalls, normaliseRole, subtree, type ExtractedCall, type LlmOutput, type ToolSpanReading } from './_shared.js';

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

/** Names of the tools offered on an LLM span (`llm.tools.{i}.tool.json_schema`, OpenAI or flat form). */
export function offeredToolNames(attrs: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const t of indexed(subtree(attrs, OI.LLM_TOOLS))) {
    const schema = decodeJsonish(getPath(t, OI.TOOL_JSON_SCHEMA));
    if (!isRecord(schema)) continue;
    const fn = isRecord(schema.function) ? schema.function : schema;
    const name = toStr(fn.name);
    if (name) names.push(name);
  }
  return names;
}

/** Top-level JSON values written back to back (`{"a":1}{"b":2}`), or undefined when the text is not that. */
export function splitConcatenatedJson(text: string, maxParts = 64): unknown[] | undefined {
  const parts: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth < 0) return undefined;
      if (depth === 0) {
        try {
          parts.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return undefined;
        }
        if (parts.length > maxParts) return undefined;
      }
    } else if (depth === 0 && !/\s/.test(ch)) return undefined;
  }
  return depth === 0 && parts.length > 0 ? parts : undefined;
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

/** The model's answer from `llm.output_messages`; undefined when the span has none. */
export function readOiOutput(span: SpanRecord): LlmOutput | undefined {
  const oi = oiMessages(span.attributes, OI.LLM_OUTPUT_MESSAGES);
  if (!oi.length) return undefined;
  const out: LlmOutput = { calls: recoverMergedCalls(messageCalls(oi), offeredToolNames(span.attributes)) };
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
