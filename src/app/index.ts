// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export {
  runEvalSuite,
  executeRun,
  exitCodeOf,
  problemsOf,
  loadProject,
  selectRunCases,
  loadToolsets,
  buildProvider,
  providerName,
  runSettings,
} from './run-suite.js';
export type { RunEvalOptions, RunEvalOutcome, ExecuteOptions, ExecuteResult, RunProgress, LoadedProject } from './run-suite.js';
export { scoreTraces, scoreExitCode, loadTraceScoring } from './score-traces.js';
export type { ScoreTracesOptions, TraceScoringFlags, TraceScoringSetup, VerdictSinks } from './score-traces.js';
export { optimizeSuite } from './optimize.js';
export type { OptimizeFlags, OptimizeOutcome } from './optimize.js';
export type { AppContext } from './context.js';
export type { RunFlags } from './run-options.js';
export { createProviderFromSpec, resolveProvider } from './provider.js';
