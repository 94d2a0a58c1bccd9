// Exports added here are public.
export type {
  ArgExpectation,
  Autonomy,
  Case,
  CaseMatchRule,
  CaseMode,
  CaseSettings,
  Dialect,
  ExpectedAction,
  FixtureSource,
  MatchMode,
  PermissionAction,
  ReplioExpectation,
  ReplioVerifier,
  RunspecExpectation,
  SourceLocation,
  Suite,
  TurnstoneExpectation,
} from './case.js';
export type {
  ArgSpec,
  ArgType,
  ResolvedCall,
  Runnable,
  Subcommand,
  ToolCategory,
  ToolDefinition,
  ToolMode,
  Toolset,
} from './toolset.js';
export type {
  Message,
  ModelCallRecord,
  Run,
  RunError,
  RunStatus,
  ToolCall,
  ToolCallRecord,
  ToolLogEntry,
  Usage,
} from './run.js';
export { VERDICT_CATEGORIES } from './verdict.js';
export type {
  CaseResult,
  CheckResult,
  Expected,
  MatchScore,
  Observed,
  ReplioMetrics,
  SampleOutcome,
  TraceRef,
  Verdict,
  VerdictCategory,
} from './verdict.js';
export type { EnvSource } from './env.js';
