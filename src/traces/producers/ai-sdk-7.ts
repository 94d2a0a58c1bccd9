// Vercel AI SDK 7 through @ai-sdk/otel's default integration: GenAI-convention spans (`invoke_agent …`,
// `chat …`, `execute_tool …`) from the tracer named `gen_ai`, read by the GenAI reader (gen-ai.ts). Its
// LegacyOpenTelemetry integration writes AI SDK 6's `ai.*` spans instead (vercel.ts: family `ai-sdk`).
import { ATTR_GEN_AI_OPERATION_NAME } from '../../semconv/gen-ai.js';
import type { ProducerFamily } from './family.js';

const AI_SDK_7_SCOPE = 'gen_ai';

export const aiSdk7Family: ProducerFamily = {
  name: 'ai-sdk-7',
  recognise: (spans) => spans.some((s) => s.scopeName === AI_SDK_7_SCOPE && s.attributes[ATTR_GEN_AI_OPERATION_NAME] !== undefined),
  contentSwitch: 'telemetry recordOutputs: true (and recordInputs)',
};
