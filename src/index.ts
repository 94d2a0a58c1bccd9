// The public API: named re-exports only.

// --- errors ---
export { RunspecError, UsageError, FixtureError, ConfigError, ToolsetError, ProviderError, TraceError, EXIT_CODES, exitCodeFor, isRunspecError } from './errors.js';
export type { ErrorCode } from './errors.js';

// --- types ---
export { VERDICT_CATEGORIES } from './types/index.js';
export type {
  ArgExpectation, Autonomy, Case, CaseMatchRule, CaseMode, CaseSettings, Dialect, ExpectedAction, FixtureSource,
  MatchMode, PermissionAction, ReplioExpectation, ReplioVerifier, RunspecExpectation, SourceLocation, Suite,
  TurnstoneExpectation, ArgSpec, ArgType, ResolvedCall, Runnable, Subcommand, ToolCategory, ToolDefinition, ToolMode,
  Toolset, Message, ModelCallRecord, Run, RunError, RunStatus, ToolCall, ToolCallRecord, ToolLogEntry, Usage,
  CaseResult, Expected, MatchScore, Observed, ReplioMetrics, SampleOutcome, Verdict, VerdictCategory,
} from './types/index.js';

// --- config ---
export { readEnv } from './config/env.js';
export { redactSecrets } from './core/redact.js';
export type { Env, EnvSource } from './config/env.js';
export { firstSet } from './config/setting.js';
export type { Setting, Source } from './config/setting.js';
export { loadConfigFile } from './config/file.js';
export type { ConfigFile, ProviderProfile } from './config/file.js';

// --- fixtures (issue 2) ---
export {
  loadFixtureFile, loadFixtureText, discoverFixtures, loadCasesFromPaths, mergeSuites, selectCases, jsonSchemaFor, globalFixturesDir,
  toArgExpectation, regexProblem, BUNDLED_FIXTURES_DIR, SUITES_FILE, MAX_FIXTURE_BYTES, MAX_FIXTURE_FILE_BYTES, MAX_WORKTREE_FILE_BYTES,
} from './fixtures/index.js';
export type { Catalog, CaseSelection, DiscoverOptions, LoadOptions, LoadTextOptions } from './fixtures/index.js';

// --- toolset (issue 3) ---
export {
  loadToolset, loadToolsetFile, parseToolsetText, loadMcpToolset, createLayout, DISCOVERY_TOOLS, searchRunnables, describeRunnable,
  describeTool, effectiveAutonomy, validateCallArgs, coerceArgValue, validateFixtures, matchName, closestName,
  toOpenAITools, toAnthropicTools, WORKSPACE_TOOLSET, FLEET_TOOLSET_FILE,
} from './toolset/index.js';
export type {
  LoadToolsetOptions, Layout, CallTarget, SearchRow, ArgProblem, CoerceResult, FixtureProblem, NameMatch, OpenAITool, AnthropicTool,
} from './toolset/index.js';

// --- providers (issue 6) ---
export {
  createOpenAIProvider, createAnthropicProvider, createMockProvider, createReplayProvider, createRecordingProvider,
  resolveProvider, createProviderFromSpec, loadMockScript, loadRecording, canonicalJson, requestHash,
} from './providers/index.js';
export type {
  ChatKey, ChatRequest, ChatResponse, HttpProviderOptions, Provider, ReasoningEffort, RetryInfo, MockScript, MockTurn,
  RecordingEntry, RecordingFile, RecordingProvider,
} from './providers/index.js';
export { PROVIDER_PRESETS, resolveProviderSpec } from './config/providers.js';
export type { ProviderKind, ProviderPreset, ProviderSpec, ProviderFlags } from './config/providers.js';

// --- engine (issue 6) ---
export { runCase, DEFAULT_MAX_TURNS, MAX_PARALLEL_TOOL_CALLS, DEFAULT_DECISION_SYSTEM_PROMPT, DEFAULT_TRAJECTORY_SYSTEM_PROMPT } from './engine/run-case.js';
export type { RunCaseOptions } from './engine/run-case.js';
export { toolLog, TOOL_LOG_RESULT_CHARS } from './engine/tool-log.js';
export { DEFAULT_TOOL_PERMISSIONS, permissionsFor, deniedReason } from './engine/permissions.js';
export type { ToolPermissions } from './engine/permissions.js';
export { createWorktree } from './engine/worktree.js';
export type { Worktree } from './engine/worktree.js';
export { executeWorkspaceTool, WORKSPACE_TOOL_NAMES } from './engine/workspace-tools.js';
export type { WorkspaceToolContext, ToolOutcome } from './engine/workspace-tools.js';
export { runSuite, sampleCount, sampleOutcome } from './engine/suite-runner.js';
export type { RunSuiteOptions, SuiteRunResult, SampleProgress, RunCaseFn, SuiteScoring, CaseTelemetrySink } from './engine/suite-runner.js';

// --- scoring (issue 7) ---
export {
  scoreRun, aggregateCase, summarize, wilsonInterval, passAtK, passHatK, matchArg, matchArgs, tolerantEquals, scoreMatch,
  matchAction, replioMetrics, checkVerifier, detectJsonDump,
} from './scoring/index.js';
export type { ScoreOptions, SuiteSummary, GroupRollup, ArgMatch, ArgFailure, VerifierFailure } from './scoring/index.js';
export {
  buildResultsDocument, caseResultsFromDocument, parseResultsDocument, resultsDocumentSchema, resultsJsonSchema, compareResults, RESULTS_SCHEMA,
} from './report/index.js';
export type {
  ResultsDocument, ResultsMeta, ResultsInput, ResultsIteration, CaseEntry, RunEntry, Aggregate, Comparison, ComparisonRow, ComparisonCell,
} from './report/index.js';

// --- report (issue 7) ---
export { renderTable, renderJson, renderJUnit, renderMarkdown, renderHtml, renderComparison } from './report/index.js';
export type { TableOptions } from './report/index.js';
export { openResultsLog, readResultsLog, resultsPaths, logFileFor } from './report/results-file.js';
export { writeFileAtomic } from './core/atomic-write.js';
export type { ResultsLog, ResultsLogCase, ResultsLogHeader, ResultsLogRecord, ResultsLogWriter, ResultsPaths } from './report/results-file.js';

// --- telemetry (issue 4) ---
export { renderRunTrace, emitVerdictSpan, createTelemetry, buildSpanAnnotations, postSpanAnnotations, verdictAttributes, evaluationAttributes } from './telemetry/index.js';
export type { RenderInput, RenderedTrace, VerdictSpanInput, Telemetry, TelemetryOptions, AnnotationTarget, SpanAnnotation, PostAnnotationsOptions, PostAnnotationsResult, VerdictContext } from './telemetry/index.js';
export { resolveTelemetryConfig, phoenixBase } from './config/telemetry.js';
export type { TelemetryConfig, TelemetryExporterConfig, TelemetryFlags, OtlpProtocol, OtlpCompression } from './config/telemetry.js';
export {
  ATTR_RUNSPEC_EVAL_PASS, ATTR_RUNSPEC_EVAL_CATEGORY, ATTR_RUNSPEC_EVAL_REASON, ATTR_RUNSPEC_EVAL_PASS_RATE, ATTR_RUNSPEC_EVAL_PASS_RATE_LOW,
  ATTR_RUNSPEC_EVAL_PASS_RATE_HIGH, ATTR_RUNSPEC_EVAL_THRESHOLD, ATTR_RUNSPEC_EVAL_MEETS_THRESHOLD, ATTR_RUNSPEC_EVAL_SAMPLES, ATTR_RUNSPEC_EVAL_SAMPLE,
  ATTR_RUNSPEC_EVAL_CASE_ID, ATTR_RUNSPEC_EVAL_SUITE, ATTR_RUNSPEC_EVAL_RUN_ID, ATTR_RUNSPEC_EVAL_DIALECT, ATTR_RUNSPEC_EVAL_RULE,
  ATTR_RUNSPEC_EVAL_EXPECTED_TOOL, ATTR_RUNSPEC_EVAL_OBSERVED_TOOL, ATTR_RUNSPEC_EVAL_EXPECTED_COMMAND, ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND,
  ATTR_RUNSPEC_EVAL_EXPECTED_HOST, ATTR_RUNSPEC_EVAL_OBSERVED_HOST, ATTR_RUNSPEC_EVAL_EXPECTED_AUTONOMY, ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY,
  ATTR_RUNSPEC_EVAL_TOOL_MODE, ATTR_RUNSPEC_EVAL_SCORE, ATTR_RUNSPEC_EVAL_MATCH_MODE, ATTR_RUNSPEC_EVAL_ACCURACY, ATTR_RUNSPEC_EVAL_CALLS,
  ATTR_RUNSPEC_EVAL_REDUNDANT, ATTR_RUNSPEC_EVAL_ERRORS, ATTR_RUNSPEC_EVAL_TOKENS, ATTR_RUNSPEC_EVAL_JSON_DUMP, ATTR_RUNSPEC_EVAL_STATUS,
  ATTR_RUNSPEC_EVAL_EXECUTED, RUNSPEC_EVAL_ATTRIBUTE_TYPES, ATTR_LANGSMITH_SPAN_KIND, RUNSPEC_EVALUATION_NAME,
} from './semconv/index.js';

// --- traces (issue 5) ---
export {
  decodeTraceRequest, decodeLogsRequest, encodeTraceRequest, encodeLogsRequest, encodeTraceResponse, encodeLogsResponse,
  readTraceStream, readTracePaths, createTraceAssembler, shardOfTrace, normaliseTrace, isToolCallFinish, casesForTrace,
  parseRulesText, loadRulesFile, applyRule, createTraceScorer, createTracePipeline, scoreTraceFiles, createOtlpReceiver,
} from './traces/index.js';
export type {
  OtlpTraceRequest, OtlpLogsRequest, OtlpSpan, OtlpAnyValue, OtlpKeyValue, SpanRecord, LogRecordEntry, InputProblem,
  TraceInputItem, AssembledTrace, AssemblerOptions, TraceAssembler, NormaliseResult, TraceInfo, TraceRule, TraceScorer,
  TraceScorerOptions, TraceOutcome, TraceVerdictLine, ScoreSummary, TracePipeline, ScoreFilesOptions, OtlpReceiver,
  OtlpReceiverOptions,
} from './traces/index.js';


// --- optimize ---
export { runOptimization, bestOf, OPTIMIZER_SYSTEM, OBSERVER_SYSTEM, DEFAULT_AGENT_PROMPT } from './optimize/index.js';
export type { IterationRecord, OptimizeOptions, OptimizeResult, OptimizerModel, StopReason } from './optimize/index.js';

// --- schedules ---
export { loadSchedules, nextFire, dueSchedules, saveSchedule, SCHEDULES_FILE } from './config/schedules.js';
export type { ScheduleEntry } from './config/schedules.js';
