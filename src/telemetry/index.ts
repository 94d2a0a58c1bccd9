// Exports added here are public.
export { renderRunTrace, emitVerdictSpan, DEFAULT_AGENT_NAME } from './render.js';
export type { RenderInput, RenderedTrace, VerdictSpanInput } from './render.js';
export { annotationTls, createTelemetry, TRACER_NAME } from './telemetry.js';
export type { Telemetry, TelemetryOptions } from './telemetry.js';
export { resolveTelemetryConfig } from '../config/telemetry.js';
export type { TelemetryConfig, TelemetryFlags } from '../config/telemetry.js';
export { buildSpanAnnotations, postSpanAnnotations } from './phoenix.js';
export type { AnnotationTarget, PostAnnotationsOptions, PostAnnotationsResult, SpanAnnotation } from './phoenix.js';
export { verdictAttributes, summarizeVerdict, evaluationIdentifier } from './conventions/runspec.js';
export type { VerdictContext, VerdictSummary } from './conventions/runspec.js';
export { evaluationAttributes, openInferenceProvider } from './conventions/openinference.js';
export { addEvaluationEvent, canonicalFinishReason, genAiMessage } from './conventions/gen-ai.js';
export { contentFreeReason } from './content-free.js';
