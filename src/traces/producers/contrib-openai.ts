// The OpenAI instrumentation of opentelemetry-js-contrib (@opentelemetry/instrumentation-openai): GenAI
// `chat …` client spans with gen_ai.system, model, usage and finish reasons; messages only as log events
// (gen_ai.user.message, gen_ai.choice) and only with `captureMessageContent`. It is recognised by its
// instrumentation scope; without the scope its spans read as otel-genai-events (gen-ai-events.ts).
import type { ProducerFamily } from './family.js';

const SCOPES = new Set(['@opentelemetry/instrumentation-openai']);

export const contribOpenAiFamily: ProducerFamily = {
  name: 'otel-contrib-openai',
  recognise: (spans) => spans.some((s) => s.scopeName !== undefined && SCOPES.has(s.scopeName)),
  contentSwitch: 'captureMessageContent: true (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)',
};
