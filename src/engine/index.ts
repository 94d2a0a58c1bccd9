// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export { runCase, DEFAULT_MAX_TURNS, MAX_PARALLEL_TOOL_CALLS, DEFAULT_DECISION_SYSTEM_PROMPT, DEFAULT_TRAJECTORY_SYSTEM_PROMPT } from './run-case.js';
export type { RunCaseOptions } from './run-case.js';
export { toolLog, TOOL_LOG_RESULT_CHARS } from './tool-log.js';
export { DEFAULT_TOOL_PERMISSIONS, permissionsFor, deniedReason } from './permissions.js';
export type { ToolPermissions } from './permissions.js';
export { createWorktree } from './worktree.js';
export type { Worktree } from './worktree.js';
export { executeWorkspaceTool, WORKSPACE_TOOL_NAMES } from './workspace-tools.js';
export type { WorkspaceToolContext, ToolOutcome } from './workspace-tools.js';
export { runSuite, sampleCount, sampleOutcome } from './suite-runner.js';
export type { RunSuiteOptions, SuiteRunResult, SampleProgress, RunCaseFn, SuiteScoring, CaseTelemetrySink } from './suite-runner.js';
