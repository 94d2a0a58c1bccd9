// OpenInference (Arize-ai/openinference: spec/semantic_conventions.md, spec/tool_calling.md,
// spec/annotations.md), read by Phoenix: the writer (flattened llm.input_messages / llm.output_messages,
// llm.tools, llm.provider / llm.system, TOOL span keys, evaluations.0.evaluation.*) and, below it, the
// reader that turns those attributes back into model and tool calls. A change to what we write goes next
// to what we read; repairs of third-party instrumentations' garbling stay in traces/producers/openinference.ts.
import type { Attributes } from '@opentelemetry/api';
import { LLMProvider, LLMSystem, MimeType, OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import {
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_INFERENCE,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_COHERE,
  GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEN_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GROQ,
  GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY,
  GEN_AI_PROVIDER_NAME_VALUE_X_AI,
} from '../../semconv/gen-ai.js';
import type { Message, ToolCall } from '../../types/run.js';
import type { ToolDefinition } from '../../types/toolset.js';
import { isRecord } from '../../core/is-record.js';
import { RecordSink, type AttributeSink } from '../attributes.js';
import type { VerdictSummary } from './runspec.js';
import { decodeJsonish, toStr } from './_json.js';
import { call, getPath, indexed, messageCalls, normaliseRole, subtree, type AttributeCarrier, type LlmOutput, type ToolSpanReading } from './_read.js';

export { MimeType };

// ================================================================ writer

/**
 * gen_ai.provider.name → OpenInference (llm.provider, llm.system). The two vocabularies differ; mapping
 * follows Phoenix's converter (Arize-ai/phoenix src/phoenix/trace/gen_ai/conversion.py).
 */
const PROVIDERS: Record<string, { provider?: string; system?: string }> = {
  [GEN_AI_PROVIDER_NAME_VALUE_OPENAI]: { provider: LLMProvider.OPENAI, system: LLMSystem.OPENAI },
  [GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC]: { provider: LLMProvider.ANTHROPIC, system: LLMSystem.ANTHROPIC },
  [GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI]: { provider: LLMProvider.AZURE, system: LLMSystem.OPENAI },
  [GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_INFERENCE]: { provider: LLMProvider.AZURE },
  [GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI]: { provider: LLMProvider.GOOGLE, system: LLMSystem.VERTEXAI },
  [GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI]: { provider: LLMProvider.GOOGLE, system: LLMSystem.VERTEXAI },
  [GEN_AI_PROVIDER_NAME_VALUE_GCP_GEN_AI]: { provider: LLMProvider.GOOGLE, system: LLMSystem.VERTEXAI },
  [GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK]: { provider: LLMProvider.AWS },
  [GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI]: { provider: LLMProvider.MISTRALAI, system: LLMSystem.MISTRALAI },
  [GEN_AI_PROVIDER_NAME_VALUE_COHERE]: { provider: LLMProvider.COHERE, system: LLMSystem.COHERE },
  [GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK]: { provider: LLMProvider.DEEPSEEK },
  [GEN_AI_PROVIDER_NAME_VALUE_GROQ]: { provider: LLMProvider.GROQ },
  [GEN_AI_PROVIDER_NAME_VALUE_X_AI]: { provider: LLMProvider.XAI },
  [GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY]: { provider: LLMProvider.PERPLEXITY },
};

export function openInferenceProvider(genAiProvider: string): { provider?: string; system?: string } {
  return PROVIDERS[genAiProvider] ?? {};
}

/** Flattened OpenInference message attributes under `prefix.{i}.message.*` (spec/semantic_conventions.md). */
export function openInferenceMessages(prefix: string, messages: Message[]): Attributes {
  const sink = new RecordSink();
  writeOpenInferenceMessages(sink, prefix, messages);
  return sink.attributes;
}

/** {@link openInferenceMessages}, written onto `sink` in wire order. */
export function writeOpenInferenceMessages(sink: AttributeSink, prefix: string, messages: readonly Message[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const base = `${prefix}.${i}.`;
    sink.setAttribute(base + OI.MESSAGE_ROLE, m.role);
    if (m.content !== undefined) sink.setAttribute(base + OI.MESSAGE_CONTENT, m.content);
    if (m.role === 'tool' && m.toolCallId !== undefined) sink.setAttribute(base + OI.MESSAGE_TOOL_CALL_ID, m.toolCallId);
    if (m.name !== undefined) sink.setAttribute(base + OI.MESSAGE_NAME, m.name);
    const calls = m.toolCalls ?? [];
    for (let j = 0; j < calls.length; j++) {
      const c = calls[j]!;
      const callBase = `${base}${OI.MESSAGE_TOOL_CALLS}.${j}.`;
      sink.setAttribute(callBase + OI.TOOL_CALL_ID, c.id);
      sink.setAttribute(callBase + OI.TOOL_CALL_FUNCTION_NAME, c.name);
      sink.setAttribute(callBase + OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON, JSON.stringify(c.arguments));
    }
  }
}

/** `llm.tools.{i}.tool.json_schema` in OpenAI's `{type, function:{name, description, parameters}}` form. */
export function openInferenceTools(tools: ToolDefinition[]): Attributes {
  const sink = new RecordSink();
  writeOpenInferenceTools(sink, tools);
  return sink.attributes;
}

// A run offers every case of a toolset the same tool list (the layout builds it once): serialised once per
// list, not once per model call.
const toolSchemas = new WeakMap<readonly ToolDefinition[], string[]>();

/** {@link openInferenceTools}, written onto `sink` in wire order. */
export function writeOpenInferenceTools(sink: AttributeSink, tools: readonly ToolDefinition[]): void {
  let schemas = toolSchemas.get(tools);
  if (schemas === undefined) {
    schemas = tools.map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    toolSchemas.set(tools, schemas);
  }
  for (let i = 0; i < schemas.length; i++) sink.setAttribute(`${OI.LLM_TOOLS}.${i}.${OI.TOOL_JSON_SCHEMA}`, schemas[i]!);
}

/** The OpenInference keys of a TOOL span that name the call (content goes on separately). */
export function oiToolSpanAttributes(call: Pick<ToolCall, 'id' | 'name'>, description: string | undefined): Attributes {
  const sink = new RecordSink();
  writeOiToolSpanAttributes(sink, call, description);
  return sink.attributes;
}

/** {@link oiToolSpanAttributes}, written onto `sink` in wire order. */
export function writeOiToolSpanAttributes(sink: AttributeSink, call: Pick<ToolCall, 'id' | 'name'>, description: string | undefined): void {
  sink.setAttribute(OI.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKind.TOOL);
  if (call.name !== undefined) sink.setAttribute(OI.TOOL_NAME, call.name);
  if (description !== undefined) sink.setAttribute(OI.TOOL_DESCRIPTION, description);
  // Both ids: the npm converter reads tool_call.id, Phoenix's server converter tool.id (Arize-ai/openinference: spec/semantic_conventions.md).
  if (call.id !== undefined) {
    sink.setAttribute(OI.TOOL_CALL_ID, call.id);
    sink.setAttribute(OI.TOOL_ID, call.id);
  }
}

/** OpenInference span-scope feedback attributes (spec/annotations.md): `evaluations.0.evaluation.*`. */
export function evaluationAttributes(s: VerdictSummary, identifier: string): Attributes {
  const sink = new RecordSink();
  writeEvaluationAttributes(sink, s, identifier);
  return sink.attributes;
}

/** {@link evaluationAttributes}, written onto `sink` in wire order. */
export function writeEvaluationAttributes(sink: AttributeSink, s: VerdictSummary, identifier: string): void {
  sink.setAttribute(EVALUATION_NAME_KEY, s.name);
  if (s.judged) sink.setAttribute(EVALUATION_SCORE_KEY, s.pass ? 1 : 0);
  sink.setAttribute(EVALUATION_LABEL_KEY, s.category);
  sink.setAttribute(EVALUATION_EXPLANATION_KEY, s.reason);
  sink.setAttribute(EVALUATION_ANNOTATOR_KIND_KEY, 'CODE');
  sink.setAttribute(EVALUATION_IDENTIFIER_KEY, identifier);
}

// `evaluations.0.*` keys, built once.
const evaluationKey = (field: string): string => `${OI.EVALUATIONS}.0.${field}`;
const EVALUATION_NAME_KEY = evaluationKey(OI.EVALUATION_NAME);
const EVALUATION_SCORE_KEY = evaluationKey(OI.EVALUATION_SCORE);
const EVALUATION_LABEL_KEY = evaluationKey(OI.EVALUATION_LABEL);
const EVALUATION_EXPLANATION_KEY = evaluationKey(OI.EVALUATION_EXPLANATION);
const EVALUATION_ANNOTATOR_KIND_KEY = evaluationKey(OI.EVALUATION_ANNOTATOR_KIND);
const EVALUATION_IDENTIFIER_KEY = evaluationKey(OI.EVALUATION_IDENTIFIER);

// ================================================================ reader

/** OpenInference flattened messages: `{prefix}.{i}.message.*` (spec/semantic_conventions.md, tool_calling.md). */
function oiMessages(attrs: Record<string, unknown>, prefix: string, withCalls = true): Message[] {
  return indexed(subtree(attrs, prefix)).map((m) => {
    const msg: Message = { role: normaliseRole(getPath(m, OI.MESSAGE_ROLE)) };
    const calls: ToolCall[] = [];
    // Without calls (a text-only read), no call is built and no arguments are parsed; the text is the same:
    // it never depends on the calls.
    for (const tc of withCalls ? indexed(getPath(m, OI.MESSAGE_TOOL_CALLS)) : []) {
      const c = call(getPath(tc, OI.TOOL_CALL_ID), getPath(tc, OI.TOOL_CALL_FUNCTION_NAME), getPath(tc, OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON));
      if (c) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
    }
    const texts: string[] = [];
    for (const part of indexed(getPath(m, OI.MESSAGE_CONTENTS))) {
      const type = getPath(part, OI.MESSAGE_CONTENT_TYPE);
      if (type === 'tool_use' && calls.length === 0) {
        if (!withCalls) continue;
        const c = call(getPath(part, OI.TOOL_CALL_ID), getPath(part, OI.TOOL_CALL_FUNCTION_NAME), getPath(part, OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON));
        if (c) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
      } else if (type === 'text' || type === undefined) {
        const t = getPath(part, OI.MESSAGE_CONTENT_TEXT);
        if (typeof t === 'string') texts.push(t);
      }
    }
    if (withCalls && calls.length === 0) {
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

/**
 * The model's answer from `llm.output_messages`, as written (no repair of third-party garbling: see
 * traces/producers/openinference.ts); undefined when the span has none.
 */
export function readOiOutput(span: AttributeCarrier): LlmOutput | undefined {
  const oi = oiMessages(span.attributes, OI.LLM_OUTPUT_MESSAGES);
  if (!oi.length) return undefined;
  const out: LlmOutput = { calls: messageCalls(oi) };
  const text = oi.find((m) => m.content !== undefined)?.content;
  if (text !== undefined) out.text = text;
  return out;
}

/**
 * What `readOiOutput` says besides the calls: whether the span has output messages at all, and their text
 * (the first message with content). For a reader whose calls came from another convention already: no
 * call arguments are parsed, and when no output key can hold content (no `content` in any key, no
 * structured value) the keys are only scanned, not unflattened.
 */
export function readOiOutputText(span: AttributeCarrier): { text?: string } | undefined {
  const a = span.attributes;
  const prefix = OI.LLM_OUTPUT_MESSAGES;
  if (a[prefix] === undefined) {
    const p = prefix + '.';
    let present = false;
    let mayHoldText = false;
    for (const key in a) {
      if (!key.startsWith(p)) continue;
      const v = a[key];
      if ((typeof v === 'object' && v !== null) || key.includes('content', p.length)) {
        mayHoldText = true;
        break;
      }
      // `indexed` keeps the entries whose first segment below the prefix is all digits.
      if (!present) {
        const dot = key.indexOf('.', p.length);
        present = isDigits(key, p.length, dot === -1 ? key.length : dot);
      }
    }
    if (!mayHoldText) return present ? {} : undefined;
  }
  const oi = oiMessages(a, prefix, false);
  if (!oi.length) return undefined;
  const text = oi.find((m) => m.content !== undefined)?.content;
  return text !== undefined ? { text } : {};
}

function isDigits(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The request history from `llm.input_messages`; undefined when the span has none. */
export function readOiInput(span: AttributeCarrier): Message[] | undefined {
  const oi = oiMessages(span.attributes, OI.LLM_INPUT_MESSAGES);
  return oi.length ? oi : undefined;
}

/** Looks like a JSON Schema rather than call arguments (OI converters put either in tool.parameters). */
function looksLikeSchema(v: Record<string, unknown>): boolean {
  return v.type === 'object' && isRecord(v.properties);
}

/** A TOOL span's call: tool.name, tool_call.id, input.value (or non-schema tool.parameters), output.value. */
export function readOiToolSpan(span: AttributeCarrier): ToolSpanReading {
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
