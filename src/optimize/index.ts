// Exports added here are public.
export { runOptimization, bestOf } from './loop.js';
export type { IterationRecord, OptimizeOptions, OptimizeResult, OptimizerModel, StopReason } from './loop.js';
export { OPTIMIZER_SYSTEM, OBSERVER_SYSTEM, DEFAULT_AGENT_PROMPT } from './prompts.js';
