// Attribute keys and span names written by producers that no installed package exports (Vercel AI SDK,
// OpenLLMetry/Traceloop, deprecated GenAI events). Each cites where it is documented. Everything else comes from
// @opentelemetry/semantic-conventions, @arizeai/openinference-semantic-conventions or src/semconv.

/** Vercel AI SDK tool span name (older SDKs) and its attributes (vercel/ai 60-telemetry.mdx). */
export const VERCEL_TOOL_CALL_SPAN = 'ai.toolCall';
export const VERCEL_TOOL_CALL_NAME = 'ai.toolCall.name';
export const VERCEL_TOOL_CALL_ID = 'ai.toolCall.id';
export const VERCEL_TOOL_CALL_ARGS = 'ai.toolCall.args';
export const VERCEL_TOOL_CALL_INPUT = 'ai.toolCall.input';
export const VERCEL_TOOL_CALL_RESULT = 'ai.toolCall.result';
export const VERCEL_TOOL_CALL_OUTPUT = 'ai.toolCall.output';
/** Tool calls chosen by the model on doGenerate / doStream spans (newer and older names). */
export const VERCEL_RESPONSE_TOOL_CALLS = 'ai.response.toolCalls';
export const VERCEL_RESULT_TOOL_CALLS = 'ai.result.toolCalls';
export const VERCEL_RESPONSE_TEXT = 'ai.response.text';
export const VERCEL_RESULT_TEXT = 'ai.result.text';
/** generateObject / streamObject results and a model's reasoning text (vercel/ai 60-telemetry.mdx). */
export const VERCEL_RESPONSE_OBJECT = 'ai.response.object';
export const VERCEL_RESULT_OBJECT = 'ai.result.object';
export const VERCEL_RESPONSE_REASONING = 'ai.response.reasoning';
export const VERCEL_RESPONSE_FINISH_REASON = 'ai.response.finishReason';
export const VERCEL_FINISH_REASON = 'ai.finishReason';
export const VERCEL_PROMPT_MESSAGES = 'ai.prompt.messages';
export const VERCEL_PROMPT = 'ai.prompt';
export const VERCEL_MODEL_ID = 'ai.model.id';
export const VERCEL_MODEL_PROVIDER = 'ai.model.provider';
export const VERCEL_USAGE_PROMPT_TOKENS = 'ai.usage.promptTokens';
export const VERCEL_USAGE_COMPLETION_TOKENS = 'ai.usage.completionTokens';
/** Vercel span names: the per-model-call spans are `...doGenerate` / `...doStream`. */
export const VERCEL_MODEL_CALL_SPAN_SUFFIXES = ['.doGenerate', '.doStream'];
export const VERCEL_SPAN_PREFIX = 'ai.';

/** OpenLLMetry indexed prompt/completion prefixes (traceloop/openllmetry-js SemanticAttributes.ts). */
export const LEGACY_TOOL_CALLS = 'tool_calls';
export const LEGACY_FUNCTION_CALL = 'function_call';
export const LEGACY_ROLE = 'role';
export const LEGACY_CONTENT = 'content';
export const LEGACY_FINISH_REASON = 'finish_reason';
export const LEGACY_TOOL_CALL_ID = 'tool_call_id';
export const TRACELOOP_SPAN_KIND = 'traceloop.span.kind';
export const TRACELOOP_ENTITY_NAME = 'traceloop.entity.name';
export const TRACELOOP_ENTITY_INPUT = 'traceloop.entity.input';
export const TRACELOOP_ENTITY_OUTPUT = 'traceloop.entity.output';
export const LLM_REQUEST_TYPE = 'llm.request.type';

/** Deprecated GenAI events (model/gen-ai/deprecated/events-deprecated.yaml, v1.36.0 docs). */
export const EVENT_GEN_AI_CHOICE = 'gen_ai.choice';
/** Attributes of a deprecated GenAI message event that say which message it is (not what it says). */
export const EVENT_GEN_AI_INDEX = 'index';
export const EVENT_GEN_AI_FINISH_REASON = 'finish_reason';
export const EVENT_GEN_AI_ID = 'id';
export const EVENT_GEN_AI_ROLE = 'role';
export const EVENT_GEN_AI_USER_MESSAGE = 'gen_ai.user.message';
export const EVENT_GEN_AI_SYSTEM_MESSAGE = 'gen_ai.system.message';
export const EVENT_GEN_AI_ASSISTANT_MESSAGE = 'gen_ai.assistant.message';
export const EVENT_GEN_AI_TOOL_MESSAGE = 'gen_ai.tool.message';

/** OTel exception / error attribute (semantic-conventions registry `error.type`). */
export const ERROR_TYPE = 'error.type';

/** What OpenInference's TraceConfig (OPENINFERENCE_HIDE_INPUTS / _OUTPUTS ...) writes in place of hidden content. */
export const OPENINFERENCE_REDACTED_VALUE = '__REDACTED__';
