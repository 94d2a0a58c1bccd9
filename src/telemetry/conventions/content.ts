// Which span attributes and events carry prompt/response content, across the conventions we read: GenAI
// (current and legacy indexed), OpenInference, Vercel AI SDK and OpenLLMetry. One list, two users: the agent-target
// export strips these when content capture is off, and trace scoring asks whether a trace was recorded with content.
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROMPT,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
} from '../../semconv/gen-ai.js';
import * as K from '../../semconv/producers.js';

const CONTENT_KEYS = new Set<string>([
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_PROMPT,
  ATTR_GEN_AI_COMPLETION,
  OI.INPUT_VALUE,
  OI.OUTPUT_VALUE,
  OI.PROMPT_TEMPLATE_VARIABLES,
  K.VERCEL_TOOL_CALL_ARGS,
  K.VERCEL_TOOL_CALL_INPUT,
  K.VERCEL_TOOL_CALL_RESULT,
  K.VERCEL_TOOL_CALL_OUTPUT,
  K.VERCEL_PROMPT,
  K.VERCEL_RESPONSE_TOOL_CALLS,
  K.VERCEL_RESULT_TOOL_CALLS,
  K.VERCEL_RESPONSE_TEXT,
  K.VERCEL_RESULT_TEXT,
  K.VERCEL_RESPONSE_OBJECT,
  K.VERCEL_RESULT_OBJECT,
  K.VERCEL_RESPONSE_REASONING,
  K.TRACELOOP_ENTITY_INPUT,
  K.TRACELOOP_ENTITY_OUTPUT,
]);
const CONTENT_PREFIXES = [
  `${OI.LLM_INPUT_MESSAGES}.`,
  `${OI.LLM_OUTPUT_MESSAGES}.`,
  `${ATTR_GEN_AI_PROMPT}.`,
  `${ATTR_GEN_AI_COMPLETION}.`,
  `${K.VERCEL_PROMPT}.`,
];

/**
 * Whether an attribute key holds prompt/response content (messages, tool arguments and results, input/output values).
 * @example isContentAttribute('llm.input_messages.0.message.content') // true
 */
export function isContentAttribute(key: string): boolean {
  if (CONTENT_KEYS.has(key)) return true;
  for (const p of CONTENT_PREFIXES) if (key.startsWith(p)) return true;
  return false;
}

/** The GenAI message events (deprecated events-as-span-events), whose bodies are the messages themselves. */
const MESSAGE_EVENTS = new Set<string>([
  K.EVENT_GEN_AI_CHOICE,
  K.EVENT_GEN_AI_USER_MESSAGE,
  K.EVENT_GEN_AI_SYSTEM_MESSAGE,
  K.EVENT_GEN_AI_ASSISTANT_MESSAGE,
  K.EVENT_GEN_AI_TOOL_MESSAGE,
]);

/** Attributes of a message event that say which message it is, not what it says. */
const MESSAGE_EVENT_KEPT = new Set<string>([
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_PROVIDER_NAME,
  K.EVENT_GEN_AI_INDEX,
  K.EVENT_GEN_AI_FINISH_REASON,
  K.EVENT_GEN_AI_ID,
  K.EVENT_GEN_AI_ROLE,
]);

/**
 * An attribute set without its content: content keys dropped, and a GenAI message event reduced to the
 * attributes that identify the message.
 * @example withoutContent({ [OI.INPUT_VALUE]: 'hi', [OI.LLM_MODEL_NAME]: 'm' }) // only the model name is left
 */
export function withoutContent(attrs: Record<string, unknown>, eventName?: string): Record<string, unknown> {
  const message = eventName !== undefined && MESSAGE_EVENTS.has(eventName);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (isContentAttribute(k) || (message && !MESSAGE_EVENT_KEPT.has(k))) continue;
    out[k] = v;
  }
  return out;
}
