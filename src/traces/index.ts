// Exports added here are public.
export {
  decodeTraceRequest,
  decodeLogsRequest,
  encodeTraceRequest,
  encodeLogsRequest,
  encodeTraceResponse,
  encodeLogsResponse,
  decodeTraceResponse,
  encodeRpcStatus,
  decodeRpcStatus,
} from './otlp-proto.js';
export type {
  OtlpAnyValue,
  OtlpKeyValue,
  OtlpResource,
  OtlpInstrumentationScope,
  OtlpSpanEvent,
  OtlpSpanLink,
  OtlpStatus,
  OtlpSpan,
  OtlpScopeSpans,
  OtlpResourceSpans,
  OtlpTraceRequest,
  OtlpLogRecord,
  OtlpScopeLogs,
  OtlpResourceLogs,
  OtlpLogsRequest,
  OtlpPartialSuccess,
} from './otlp-types.js';
export { spansFromRequest, logsFromRequest, anyValueToPlain, attributesToPlain, normaliseId, parseInt64, MAX_ATTRIBUTE_CHARS } from './spans.js';
export type { SpanRecord, LogRecordEntry, InputProblem } from './spans.js';
export { readTraceStream, readTracePaths, listTraceFiles, gunzipLimited } from './readers.js';
export { spansFromPhoenix } from './phoenix-spans.js';
export type { TraceInputItem, ReaderOptions } from './readers.js';
export { createTraceAssembler, shardOfTrace } from './assembler.js';
export type { AssembledTrace, AssemblerOptions, AssemblerStats, TraceAssembler } from './assembler.js';
export { normaliseTrace, isToolCallFinish } from './normalise.js';
export type { NormaliseOptions, NormaliseResult, TraceInfo } from './normalise.js';
export { casesForTrace, matchRuleHolds } from './match.js';
export { parseRulesText, loadRulesFile, applyRule } from './rules.js';
export type { TraceRule, RuleContext } from './rules.js';
export { createTraceScorer, createSummaryCollector } from './score-traces.js';
export type { TraceScorer, TraceScorerOptions, TraceOutcome, TraceVerdictLine, ObservedCallLine, ScoreSummary, SummaryCollector } from './score-traces.js';
export { createTracePipeline, scoreTraceFiles } from './pipeline.js';
export type { TracePipeline, TracePipelineOptions, ScoreFilesOptions, Shard } from './pipeline.js';
export { createOtlpReceiver } from './receiver.js';
export type { OtlpReceiver, OtlpReceiverOptions } from './receiver.js';
export { SCORE_OUTPUT_FORMATS, renderSummaryTable } from './format.js';
export type { ScoreOutputFormat } from './format.js';
