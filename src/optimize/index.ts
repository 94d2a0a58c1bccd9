// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export { runOptimization, bestOf } from './loop.js';
export type { IterationRecord, OptimizeOptions, OptimizeResult, OptimizerModel, StopReason } from './loop.js';
export { OPTIMIZER_SYSTEM, OBSERVER_SYSTEM, DEFAULT_AGENT_PROMPT } from './prompts.js';
