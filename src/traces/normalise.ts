// Spans of one trace → the Run that scoring understands. Reads our own traces and the common producers
// (reference 7.3): OpenInference, OTel GenAI (current message JSON and execute_tool spans), the legacy
// indexed gen_ai.completion.* form (OpenLLMetry), the Vercel AI SDK, and the deprecated gen_ai.choice
// events recorded as log records (opentelemetry-python-contrib openai-v2). A call seen several times
// (LLM output, a later input history, a tool span) is counted once.
import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROMPT,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
} from '@opentelemetry/semantic-conventions/incubating';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import {
  ATTR_RUNSPEC_EVAL_CASE_ID,
  ATTR_RUNSPEC_EVAL_EXECUTED,
  ATTR_RUNSPEC_EVAL_SAMPLE,
  ATTR_RUNSPEC_EVAL_SUITE,
  ATTR_RUNSPEC_EVAL_TOOL_MODE,
} from '../semconv/index.js';
import { DISCOVERY_TOOLS } from '../toolset/index.js';
import type { Message, ModelCallRecord, Run, ToolCall, ToolCallRecord, Usage } from '../types/run.js';
import type { ToolMode } from '../types/toolset.js';
import * as K from '../semconv/producers.js';
import { canonicalJson, decodeJsonish, isRecord, parseArguments, toInt, toStr } from './_json.js';
import type { AssembledTrace } from './assembler.js';
import type { LogRecordEntry, SpanRecord } from './spans.js';

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
/** `runspec.eval.`: the namespace of our verdict attributes (derived, not spelled out). */
const RUNSPEC_EVAL_PREFIX = ATTR_RUNSPEC_EVAL_CASE_ID.slice(0, ATTR_RUNSPEC_EVAL_CASE_ID.lastIndexOf('.') + 1);
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

// ---------------------------------------------------------------- flattened attribute access

/** The subtree under `prefix`: a structured value at `prefix`, or the dotted keys below it, unflattened. */
function subtree(attrs: Record<string, unknown>, prefix: string): unknown {
  const direct = attrs[prefix];
  if (direct !== undefined && typeof direct === 'object') return direct;
  if (typeof direct === 'string' && (direct.startsWith('[') || direct.startsWith('{'))) {
    const parsed = decodeJsonish(direct);
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  }
  const root: Record<string, unknown> = {};
  let found = false;
  const p = prefix + '.';
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(p)) continue;
    found = true;
    const segs = key.slice(p.length).split('.');
    let node = root;
    for (let i = 0; i < segs.length - 1; i++) {
      const s = segs[i]!;
      let next = node[s];
      if (!isRecord(next)) {
        next = next === undefined ? {} : { '': next };
        node[s] = next;
      }
      node = next as Record<string, unknown>;
    }
    const last = segs[segs.length - 1]!;
    if (isRecord(node[last])) (node[last] as Record<string, unknown>)[''] = value;
    else node[last] = value;
  }
  return found ? root : undefined;
}

/** Dotted keys → nested objects (`a.0.b` → `{a: {0: {b}}}`); structured values are kept as they are. */
function unflatten(attrs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attrs)) {
    const segs = key.split('.');
    let node = out;
    for (let i = 0; i < segs.length - 1; i++) {
      const next = node[segs[i]!];
      if (!isRecord(next)) node[segs[i]!] = next === undefined ? {} : { '': next };
      node = node[segs[i]!] as Record<string, unknown>;
    }
    const last = segs[segs.length - 1]!;
    if (isRecord(node[last]) && !isRecord(value)) (node[last] as Record<string, unknown>)[''] = value;
    else node[last] = value;
  }
  return out;
}

/** Entries of an indexed node (array, or object with numeric keys), in index order. */
function indexed(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (!isRecord(node)) return [];
  return Object.keys(node)
    .filter((k) => /^\d+$/.test(k))
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => node[k]);
}

/** Walk a dotted path through nested objects (and objects whose keys still contain dots). */
function getPath(node: unknown, dotted: string): unknown {
  if (!isRecord(node)) return undefined;
  if (dotted in node) {
    const v = node[dotted];
    return isRecord(v) && '' in v ? v[''] : v;
  }
  const segs = dotted.split('.');
  for (let i = 1; i < segs.length; i++) {
    const head = segs.slice(0, i).join('.');
    if (head in node) {
      const found = getPath(node[head], segs.slice(i).join('.'));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function normaliseRole(v: unknown): Message['role'] {
  const r = typeof v === 'string' ? v.toLowerCase() : '';
  if (r === 'system' || r === 'developer') return 'system';
  if (r === 'assistant' || r === 'ai' || r === 'model') return 'assistant';
  if (r === 'tool' || r === 'function' || r === 'ipython') return 'tool';
  return 'user';
}

function contentText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const texts = v.flatMap((p) => (isRecord(p) && typeof (p.text ?? p.content) === 'string' && (p.type === undefined || p.type === 'text') ? [String(p.text ?? p.content)] : []));
    return texts.length ? texts.join('\n') : undefined;
  }
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// ---------------------------------------------------------------- extraction

interface ExtractedCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

interface LlmOutput {
  calls: ExtractedCall[];
  text?: string;
  finishReason?: string;
}

function call(id: unknown, name: unknown, args: unknown): ExtractedCall | undefined {
  const n = toStr(name);
  if (!n) return undefined;
  const c: ExtractedCall = { name: n, arguments: parseArguments(args) };
  const i = toStr(id);
  if (i) c.id = i;
  return c;
}

/** gen_ai.output.messages / gen_ai.input.messages (semantic-conventions v1.41 message JSON schemas). */
function genAiMessages(v: unknown): Array<{ role: Message['role']; text?: string; calls: ExtractedCall[]; responses: Array<{ id?: string; response: unknown }>; finishReason?: string }> {
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

/** OpenLLMetry indexed `gen_ai.prompt.{i}.*` / `gen_ai.completion.{i}.*` (traceloop/openllmetry-js). */
function legacyMessages(attrs: Record<string, unknown>, prefix: string): Array<Message & { finishReason?: string }> {
  return indexed(subtree(attrs, prefix)).map((m) => {
    const msg: Message & { finishReason?: string } = { role: normaliseRole(getPath(m, K.LEGACY_ROLE) ?? (prefix === ATTR_GEN_AI_COMPLETION ? 'assistant' : 'user')) };
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

/** gen_ai.choice body (deprecated event): tool calls at `message.tool_calls` (python-contrib) or `tool_calls`. */
function choiceCalls(body: unknown): { calls: ExtractedCall[]; text?: string; finishReason?: string } {
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

function toolCallsOf(calls: ExtractedCall[]): ToolCall[] {
  return calls.map((c) => ({ id: c.id ?? '', name: c.name, arguments: c.arguments }));
}

/** Requested calls of an LLM span, first source that has any wins (reference 7.3 "Requested calls"). */
function llmOutput(span: SpanRecord, logs: LogRecordEntry[], producers: Set<string>): LlmOutput {
  const a = span.attributes;
  const finishReasons = a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS];
  const out: LlmOutput = { calls: [] };
  const fr = Array.isArray(finishReasons) ? toStr(finishReasons[0]) : toStr(finishReasons) ?? toStr(a[OI.LLM_FINISH_REASON]);
  if (fr) out.finishReason = fr;
  const setText = (t: string | undefined): void => {
    if (t !== undefined && out.text === undefined) out.text = t;
  };
  const setReason = (r: string | undefined): void => {
    if (r !== undefined && out.finishReason === undefined) out.finishReason = r;
  };

  if (a[ATTR_GEN_AI_OUTPUT_MESSAGES] !== undefined) {
    producers.add('gen_ai');
    for (const m of genAiMessages(a[ATTR_GEN_AI_OUTPUT_MESSAGES])) {
      out.calls.push(...m.calls);
      setText(m.text);
      setReason(m.finishReason);
    }
  }
  const oi = oiMessages(a, OI.LLM_OUTPUT_MESSAGES);
  if (oi.length) {
    producers.add('openinference');
    if (out.calls.length === 0) for (const m of oi) out.calls.push(...(m.toolCalls ?? []).map((c) => ({ ...c, id: c.id || undefined }) as ExtractedCall));
    setText(oi.find((m) => m.content !== undefined)?.content);
  }
  const legacy = legacyMessages(a, ATTR_GEN_AI_COMPLETION);
  if (legacy.length) {
    producers.add('openllmetry');
    if (out.calls.length === 0) for (const m of legacy) out.calls.push(...(m.toolCalls ?? []).map((c) => ({ ...c, id: c.id || undefined }) as ExtractedCall));
    setText(legacy.find((m) => m.content !== undefined)?.content);
    setReason(legacy.find((m) => m.finishReason)?.finishReason);
  }
  const events = [
    // Span-event form: the body's fields are flattened into event attributes (`tool_calls.0.function.name`).
    ...span.events.filter((e) => e.name === K.EVENT_GEN_AI_CHOICE).map((e) => unflatten(e.attributes)),
    ...logs.filter((l) => l.spanId === span.spanId && l.eventName === K.EVENT_GEN_AI_CHOICE).map((l) => l.body),
  ];
  if (events.length) {
    producers.add('gen_ai_events');
    for (const body of events) {
      const c = choiceCalls(body);
      if (out.calls.length === 0 || c.calls.length) {
        if (out.calls.every((x) => !c.calls.some((y) => sameCall(x, y)))) out.calls.push(...c.calls);
      }
      setText(c.text);
      setReason(c.finishReason);
    }
  }
  const vercel = a[K.VERCEL_RESPONSE_TOOL_CALLS] ?? a[K.VERCEL_RESULT_TOOL_CALLS];
  if (vercel !== undefined || span.name.startsWith(K.VERCEL_SPAN_PREFIX)) {
    producers.add('vercel');
    if (out.calls.length === 0 && vercel !== undefined) out.calls.push(...vercelCalls(vercel));
    setText(toStr(a[K.VERCEL_RESPONSE_TEXT] ?? a[K.VERCEL_RESULT_TEXT]));
    setReason(toStr(a[K.VERCEL_RESPONSE_FINISH_REASON] ?? a[K.VERCEL_FINISH_REASON]));
  }
  return out;
}

function sameCall(x: ExtractedCall, y: ExtractedCall): boolean {
  if (x.id && y.id) return x.id === y.id;
  return x.name === y.name && canonicalJson(x.arguments) === canonicalJson(y.arguments);
}

/** Input history of an LLM span (for the prompt, history fallback and tool results). */
function llmInput(span: SpanRecord, logs: LogRecordEntry[]): Message[] {
  const a = span.attributes;
  const messages: Message[] = [];
  const sys = a[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS];
  if (a[ATTR_GEN_AI_INPUT_MESSAGES] !== undefined) {
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
  const oi = oiMessages(a, OI.LLM_INPUT_MESSAGES);
  if (oi.length) return oi;
  const legacy = legacyMessages(a, ATTR_GEN_AI_PROMPT);
  if (legacy.length) return legacy.map(({ finishReason: _f, ...m }) => m);
  const vercel = vercelMessages(a);
  if (vercel.length) return vercel;
  // Deprecated per-message events (log records or span events) in their emitted order.
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

interface ExecutedCall {
  span: SpanRecord;
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
  hasArguments: boolean;
  result?: string;
  isError: boolean;
  executed: boolean;
}

/** Looks like a JSON Schema rather than call arguments (OI converters put either in tool.parameters). */
function looksLikeSchema(v: Record<string, unknown>): boolean {
  return v.type === 'object' && isRecord(v.properties);
}

function toolSpanCall(span: SpanRecord, producers: Set<string>): ExecutedCall | undefined {
  const a = span.attributes;
  let name = toStr(a[ATTR_GEN_AI_TOOL_NAME]);
  let id = toStr(a[ATTR_GEN_AI_TOOL_CALL_ID]);
  let rawArgs: unknown = a[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS];
  let result: unknown = a[ATTR_GEN_AI_TOOL_CALL_RESULT];
  if (name) producers.add('gen_ai');
  if (a[OI.OPENINFERENCE_SPAN_KIND] === OpenInferenceSpanKind.TOOL || a[OI.TOOL_NAME] !== undefined) {
    producers.add('openinference');
    name ??= toStr(a[OI.TOOL_NAME]);
    id ??= toStr(a[OI.TOOL_CALL_ID]) ?? toStr(a[OI.TOOL_ID]);
    if (rawArgs === undefined) {
      const input = decodeJsonish(a[OI.INPUT_VALUE]);
      if (isRecord(input)) rawArgs = input;
      else {
        const params = decodeJsonish(a[OI.TOOL_PARAMETERS]);
        if (isRecord(params) && !looksLikeSchema(params)) rawArgs = params;
      }
    }
    result ??= a[OI.OUTPUT_VALUE];
  }
  if (span.name === K.VERCEL_TOOL_CALL_SPAN || a[K.VERCEL_TOOL_CALL_NAME] !== undefined) {
    producers.add('vercel');
    name ??= toStr(a[K.VERCEL_TOOL_CALL_NAME]);
    id ??= toStr(a[K.VERCEL_TOOL_CALL_ID]);
    rawArgs ??= a[K.VERCEL_TOOL_CALL_ARGS] ?? a[K.VERCEL_TOOL_CALL_INPUT];
    result ??= a[K.VERCEL_TOOL_CALL_RESULT] ?? a[K.VERCEL_TOOL_CALL_OUTPUT];
  }
  if (a[K.TRACELOOP_SPAN_KIND] === 'tool') {
    producers.add('openllmetry');
    name ??= toStr(a[K.TRACELOOP_ENTITY_NAME]) ?? span.name.replace(/\.tool$/, '');
    rawArgs ??= a[K.TRACELOOP_ENTITY_INPUT];
    result ??= a[K.TRACELOOP_ENTITY_OUTPUT];
  }
  if (!name) {
    const m = /^execute_tool (.+)$/.exec(span.name);
    if (m) name = m[1];
  }
  if (!name) return undefined;
  const exec: ExecutedCall = {
    span,
    name,
    arguments: parseArguments(rawArgs),
    hasArguments: rawArgs !== undefined && rawArgs !== '',
    isError: span.statusCode === 2 || a[ATTR_ERROR_TYPE] !== undefined,
    executed: a[ATTR_RUNSPEC_EVAL_EXECUTED] !== false && a[ATTR_RUNSPEC_EVAL_EXECUTED] !== 'false',
  };
  if (id) exec.id = id;
  if (result !== undefined) exec.result = contentText(result) ?? '';
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

function num(...vs: unknown[]): number | undefined {
  for (const v of vs) {
    const n = toInt(v);
    if (n !== undefined) return n;
  }
  return undefined;
}

function usageOf(a: Record<string, unknown>): Usage {
  const u: Usage = {};
  const p = num(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS], a[ATTR_GEN_AI_USAGE_PROMPT_TOKENS], a[OI.LLM_TOKEN_COUNT_PROMPT], a[K.VERCEL_USAGE_PROMPT_TOKENS]);
  const c = num(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS], a[ATTR_GEN_AI_USAGE_COMPLETION_TOKENS], a[OI.LLM_TOKEN_COUNT_COMPLETION], a[K.VERCEL_USAGE_COMPLETION_TOKENS]);
  const t = num(a[OI.LLM_TOKEN_COUNT_TOTAL]);
  if (p !== undefined) u.promptTokens = p;
  if (c !== undefined) u.completionTokens = c;
  if (t !== undefined) u.totalTokens = t;
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
  try {
    return normaliseUnsafe(trace, options);
  } catch (err) {
    return { ok: false, traceId: trace.traceId, reason: `could not interpret the trace (${(err as Error).message})` };
  }
}

function normaliseUnsafe(trace: AssembledTrace, options: NormaliseOptions): NormaliseResult {
  const isDiscovery = options.isDiscovery ?? ((n: string) => DEFAULT_DISCOVERY.has(n));
  const spans = [...trace.spans].sort(byStart);
  if (spans.length === 0) {
    return { ok: false, traceId: trace.traceId, reason: trace.logs.length ? 'only log records, no spans' : 'no spans' };
  }
  const ids = new Set(spans.map((s) => s.spanId));
  const root = spans.find((s) => s.parentSpanId === undefined) ?? spans.find((s) => !ids.has(s.parentSpanId!))!;
  const producers = new Set<string>();
  const logs = trace.logs;

  // Verdict carrier spans (ours or another evaluator's) are feedback about a trace, not an agent run.
  if (spans.every((s) => s.attributes[OI.OPENINFERENCE_SPAN_KIND] === OpenInferenceSpanKind.EVALUATOR)) {
    return { ok: false, traceId: trace.traceId, rootSpanId: root.spanId, reason: 'only evaluator (verdict) spans, no agent run' };
  }
  const toolSpans = spans.filter(isToolSpan);
  const toolSet = new Set(toolSpans);
  let llmSpans = spans.filter((s) => !toolSet.has(s) && isLlmSpan(s));
  const outputs = new Map<SpanRecord, LlmOutput>();
  for (const s of llmSpans) outputs.set(s, llmOutput(s, logs, producers));
  // No per-call LLM spans: fall back to a summary span (agent/root, Vercel ai.generateText) that lists calls.
  if (llmSpans.length === 0) {
    for (const s of spans) {
      if (toolSet.has(s)) continue;
      const out = llmOutput(s, logs, new Set());
      if (out.calls.length || s.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] !== undefined) {
        llmSpans = [s];
        outputs.set(s, llmOutput(s, logs, producers));
        break;
      }
    }
  }
  const executed = toolSpans.flatMap((s) => {
    const c = toolSpanCall(s, producers);
    return c ? [c] : [];
  });
  if (llmSpans.length === 0 && executed.length === 0) {
    return { ok: false, traceId: trace.traceId, rootSpanId: root.spanId, reason: 'no LLM or tool spans (not a GenAI agent trace)' };
  }
  if (spans.some((s) => Object.keys(s.attributes).some((k) => k.startsWith(RUNSPEC_EVAL_PREFIX)))) producers.add('runspec');

  // Model calls.
  const modelCalls: ModelCallRecord[] = [];
  const inputs: Message[][] = [];
  llmSpans.forEach((s, index) => {
    const a = s.attributes;
    const out = outputs.get(s)!;
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

  // Requested calls, once each.
  const pending: Pending[] = [];
  let seq = 0;
  const callSpanIds: Record<string, string> = {};
  const byId = new Map<string, Pending>();
  llmSpans.forEach((s, index) => {
    const out = outputs.get(s)!;
    out.calls.forEach((c) => {
      if (c.id && byId.has(c.id)) return;
      const p: Pending = {
        rec: {
          turn: index,
          modelCallIndex: index,
          call: { id: c.id ?? '', name: c.name, arguments: c.arguments },
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
    const canon = canonicalJson(e.arguments);
    match ??= pending.find((p) => !p.matchedTool && (!e.id || !p.rec.call.id) && p.rec.call.name === e.name && canonicalJson(p.rec.call.arguments) === canon);
    match ??= pending.find((p) => !p.matchedTool && (!e.id || !p.rec.call.id) && p.rec.call.name === e.name && (!e.hasArguments || Object.keys(p.rec.call.arguments).length === 0));
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
    const p: Pending = { rec, sortTimeMs: e.span.startTimeMs, seq: seq++, spanId: e.span.spanId, matchedTool: true };
    if (e.id) byId.set(e.id, p);
    pending.push(p);
  }

  // History fallback: calls only visible in later requests' assistant messages (no output, no tool span).
  let longest: { calls: ToolCall[]; at: number } = { calls: [], at: 0 };
  inputs.forEach((msgs, i) => {
    const calls = msgs.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
    if (calls.length > longest.calls.length) longest = { calls, at: llmSpans[i]!.startTimeMs };
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
  for (const m of inputs.flat()) {
    if (m.role !== 'tool' || !m.toolCallId) continue;
    const p = byId.get(m.toolCallId);
    if (p && p.rec.result === undefined && m.content !== undefined) p.rec.result = m.content;
  }
  for (const l of logs) {
    if (l.eventName !== K.EVENT_GEN_AI_TOOL_MESSAGE) continue;
    const b = decodeJsonish(l.body);
    const p = isRecord(b) ? byId.get(toStr(b.id) ?? '') : undefined;
    if (p && p.rec.result === undefined) p.rec.result = contentText(b && isRecord(b) ? b.content : undefined) ?? '';
  }

  pending.sort((x, y) => x.sortTimeMs - y.sortTimeMs || x.seq - y.seq);
  const toolCalls = pending.map((p) => p.rec);
  pending.forEach((p, i) => {
    if (p.spanId) callSpanIds[p.rec.call.id || `#${i}`] = p.spanId;
  });

  const anyToolFinish = modelCalls.some((m) => isToolCallFinish(m.response?.finishReason));
  if (toolCalls.length === 0 && anyToolFinish) {
    return {
      ok: false,
      traceId: trace.traceId,
      rootSpanId: root.spanId,
      reason: 'the model finished with tool calls but the trace carries no call content (enable content capture)',
    };
  }

  const decision = executed.some((e) => !e.executed);
  const ra = root.attributes;
  const usage: Usage = {};
  const sum = (k: keyof Usage): number | undefined => {
    const vals = modelCalls.map((m) => m.usage[k]).filter((v): v is number => v !== undefined);
    return vals.length ? vals.reduce((x, y) => x + y, 0) : undefined;
  };
  const rootUsage = usageOf(ra);
  for (const k of ['promptTokens', 'completionTokens', 'totalTokens'] as const) {
    const v = sum(k) ?? rootUsage[k];
    if (v !== undefined) usage[k] = v;
  }
  const caseId = findAttr(root, spans, ATTR_RUNSPEC_EVAL_CASE_ID);
  const run: Run = {
    caseId: caseId ?? trace.traceId,
    sample: toInt(findAttr(root, spans, ATTR_RUNSPEC_EVAL_SAMPLE)) ?? 0,
    mode: decision ? 'decision' : 'trajectory',
    provider: providerOf(ra) ?? modelCalls[0]?.provider ?? 'unknown',
    startTimeMs: root.startTimeMs,
    endTimeMs: Math.max(root.endTimeMs ?? root.startTimeMs, ...spans.map((s) => s.endTimeMs ?? s.startTimeMs)),
    modelCalls,
    toolCalls,
    status: root.statusCode === 2 ? 'error' : 'ok',
    usage,
    trace: { traceId: trace.traceId, rootSpanId: root.spanId, spanIds: callSpanIds },
  };
  const model = modelCalls.find((m) => m.responseModel ?? m.requestModel);
  if (model) run.model = (model.responseModel ?? model.requestModel)!;
  else if (toStr(ra[ATTR_GEN_AI_REQUEST_MODEL])) run.model = toStr(ra[ATTR_GEN_AI_REQUEST_MODEL])!;
  const toolMode = toStr(findAttr(root, spans, ATTR_RUNSPEC_EVAL_TOOL_MODE));
  if (toolMode === 'dedup' || toolMode === 'per_host' || toolMode === 'search') run.toolMode = toolMode as ToolMode;
  if (root.statusCode === 2) run.error = { code: toStr(ra[ATTR_ERROR_TYPE]) ?? 'error', message: root.statusMessage ?? '' };
  if (decision) {
    // The call the live run captured without executing it; else the first non-discovery call.
    const terminal = toolCalls.find((c) => !c.executed && !isDiscovery(c.call.name)) ?? toolCalls.find((c) => !isDiscovery(c.call.name));
    if (terminal) {
      terminal.executed = false;
      run.terminal = terminal;
    }
  }
  const lastText = [...modelCalls].reverse().find((m) => m.response?.text !== undefined)?.response?.text;
  if (lastText !== undefined) run.finalText = lastText;

  const info: TraceInfo = {
    traceId: trace.traceId,
    rootSpanId: root.spanId,
    rootName: root.name,
    rootAttributes: { ...root.resource, ...ra },
    spanAttributes: spans.map((s) => s.attributes),
    producers: [...producers].sort(),
    llmSpanIds: llmSpans.map((s) => s.spanId),
    toolSpanIds: toolSpans.map((s) => s.spanId),
    callSpanIds,
  };
  if (caseId !== undefined) info.caseId = caseId;
  const suite = toStr(findAttr(root, spans, ATTR_RUNSPEC_EVAL_SUITE));
  if (suite) info.suite = suite;
  if (toInt(findAttr(root, spans, ATTR_RUNSPEC_EVAL_SAMPLE)) !== undefined) info.sample = toInt(findAttr(root, spans, ATTR_RUNSPEC_EVAL_SAMPLE))!;
  const first = firstUserMessage(inputs, root);
  if (first !== undefined) info.firstUserMessage = first;
  if (logs.length) producers.add('gen_ai_events');
  info.producers = [...producers].sort();
  return { ok: true, run, info };
}

function findAttr(root: SpanRecord, spans: SpanRecord[], key: string): string | undefined {
  const v = root.attributes[key] ?? spans.find((s) => s.attributes[key] !== undefined)?.attributes[key];
  return v === undefined ? undefined : toStr(v);
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
