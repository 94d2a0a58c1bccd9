// OpenTelemetry GenAI spans (semantic-conventions/docs/gen-ai/gen-ai-spans.md): `gen_ai.operation.name`
// marks model calls (chat, text_completion, generate_content) and tool executions (execute_tool); messages
// ride `gen_ai.input.messages` / `gen_ai.output.messages`. The convention's readers live beside our writer
// (src/telemetry/conventions/gen-ai.ts); this file adapts them to the producer-reader interface.
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
} from '../../semconv/gen-ai.js';
import { toInt, toStr } from '../../telemetry/conventions/_json.js';
import { genAiFinishReason, readGenAiInput, readGenAiOutput, readGenAiToolSpan } from '../../telemetry/conventions/gen-ai.js';
import type { ProducerReader, UsageReading } from './reader.js';
import type { ProducerFamily } from './family.js';

/** Operations that are a model call. */
export const LLM_OPERATIONS: ReadonlySet<string> = new Set<string>([
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
]);

/** `execute_tool NAME`: the tool's name in the span name, when no attribute carries it. */
export function toolNameFromSpanName(spanName: string): string | undefined {
  const m = /^execute_tool (.+)$/.exec(spanName);
  return m ? m[1] : undefined;
}

export const genAiReader: ProducerReader = {
  name: 'gen_ai',
  outputMerge: 'all',
  keepsUnrecognisedToolFields: true,
  isToolSpan(span) {
    const a = span.attributes;
    const op = a[ATTR_GEN_AI_OPERATION_NAME];
    if (op === GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL) return true;
    return a[ATTR_GEN_AI_TOOL_NAME] !== undefined && (typeof op !== 'string' || !LLM_OPERATIONS.has(op));
  },
  isLlmSpanByMarker(span) {
    const op = span.attributes[ATTR_GEN_AI_OPERATION_NAME];
    return typeof op === 'string' ? LLM_OPERATIONS.has(op) : undefined;
  },
  finishReason: genAiFinishReason,
  readOutputs(span) {
    const out = readGenAiOutput(span);
    return out ? [out] : undefined;
  },
  readInput: readGenAiInput,
  readToolSpan: readGenAiToolSpan,
  usage(a) {
    const u: UsageReading = {};
    const p = toInt(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS]) ?? toInt(a[ATTR_GEN_AI_USAGE_PROMPT_TOKENS]);
    const c = toInt(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]) ?? toInt(a[ATTR_GEN_AI_USAGE_COMPLETION_TOKENS]);
    if (p !== undefined) u.promptTokens = p;
    if (c !== undefined) u.completionTokens = c;
    return u;
  },
  provider: (a) => toStr(a[ATTR_GEN_AI_PROVIDER_NAME]) ?? toStr(a[ATTR_GEN_AI_SYSTEM]),
  requestModel: (a) => toStr(a[ATTR_GEN_AI_REQUEST_MODEL]),
  responseModel: (a) => toStr(a[ATTR_GEN_AI_RESPONSE_MODEL]),
};

/**
 * GenAI spans in the current layout (gen_ai.provider.name; messages as gen_ai.input.messages /
 * gen_ai.output.messages), e.g. opentelemetry-instrumentation-openai-v2 with
 * OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental.
 */
export const otelGenAiFamily: ProducerFamily = {
  name: 'otel-genai',
  recognise: (spans) => spans.some((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] !== undefined && s.attributes[ATTR_GEN_AI_PROVIDER_NAME] !== undefined),
  contentSwitch: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT)',
};
