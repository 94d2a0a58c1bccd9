// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export type {
  ArgExpectation,
  Autonomy,
  Case,
  CaseGate,
  CaseMatchRule,
  CaseMessage,
  CaseVars,
  CaseMode,
  GateMetric,
  GateOperator,
  CaseSettings,
  CaseTool,
  Dialect,
  CallsEquality,
  ExpectedCall,
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
export type { ArgSpec, ArgType, ResolvedCall, Runnable, Subcommand, ToolCategory, ToolDefinition, ToolMode, Toolset } from './toolset.js';
export type { Message, ModelCallRecord, Run, RunError, AgentRunInfo, RunStatus, ToolCall, ToolCallRecord, ToolLogEntry, Usage } from './run.js';
export { VERDICT_CATEGORIES, TRACE_TEXT_CHARS, TRACE_MAX_STEPS } from './verdict.js';
export type {
  CaseResult,
  CheckResult,
  GateResult,
  PassKValue,
  Expected,
  MatchScore,
  Observed,
  ReplioMetrics,
  SampleOutcome,
  SampleTrace,
  SampleTraceStep,
  TraceRef,
  Verdict,
  VerdictCategory,
} from './verdict.js';
export type { EnvSource } from './env.js';
export type { SpanRecord } from './span.js';
