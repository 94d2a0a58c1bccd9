// The public API: named re-exports only. The root holds what a library user needs to load cases and
// toolsets, pick a provider, run a suite or a case, score a run and score traces; five subpaths hold the
// rest (`runspec-eval/traces`, `/telemetry`, `/semconv`, `/report`, `/vitest`), listed in
// package.json "exports". The root does not load the OpenTelemetry SDK: setting up telemetry
// (`createTelemetry`) is under `/telemetry`. test/public-api.test.ts pins every exported name.

// --- errors ---
export { RunspecError, isRunspecError, exitCodeFor, EXIT_CODES } from './errors.js';
export type { ErrorCode } from './errors.js';

// --- the shapes everything passes around ---
export { VERDICT_CATEGORIES } from './types/verdict.js';
export type { Case, Suite, Dialect, CaseMode } from './types/case.js';
export type { Toolset, ToolMode, ToolDefinition } from './types/toolset.js';
export type { Run, ToolCall, Usage } from './types/run.js';
export type { Verdict, VerdictCategory, CaseResult, SampleOutcome } from './types/verdict.js';

// --- load cases and toolsets ---
export { loadFixtureFile } from './fixtures/load.js';
export { discoverFixtures, loadCasesFromPaths } from './fixtures/discover.js';
export { selectCases } from './fixtures/select.js';
export { loadToolset } from './toolset/load.js';
export type { LoadToolsetOptions } from './toolset/load.js';

// --- providers ---
export { resolveProvider } from './app/provider.js';
export { createOpenAIProvider } from './providers/openai.js';
export { createAnthropicProvider } from './providers/anthropic.js';
export { createMockProvider } from './providers/mock.js';
export { createReplayProvider, createRecordingProvider } from './providers/recording.js';
export type { Provider } from './providers/types.js';

// --- run a case or a suite ---
export { runCase } from './engine/run-case.js';
export type { RunCaseOptions } from './engine/run-case.js';
export { runSuite } from './engine/suite-runner.js';
export type { RunSuiteOptions, SuiteRunResult } from './engine/suite-runner.js';
export { runEvalSuite } from './app/run-suite.js';
export type { RunEvalOptions, RunEvalOutcome } from './app/run-suite.js';
export type { AppContext } from './app/context.js';

// --- score a run, read and write results ---
export { scoreRun } from './scoring/verdict.js';
export type { ScoreOptions } from './scoring/verdict.js';
export { aggregateCase } from './scoring/samples.js';
export { buildResultsDocument, parseResultsDocument } from './report/results.js';
export type { ResultsDocument } from './report/results.js';
export { renderDocument } from './report/render.js';
export type { OutputFormat } from './report/formats.js';

// --- score traces ---
export { scoreTraces } from './app/score-traces.js';
export type { ScoreTracesOptions } from './app/score-traces.js';
export { scoreTraceFiles } from './traces/pipeline.js';
export type { ScoreSummary, TraceVerdictLine } from './traces/score-traces.js';
