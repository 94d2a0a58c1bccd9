// Exports added here are public: `runspec-eval/vitest` (vitest >=4.1 <5, an optional peer dependency).
export { describeEvals, runEval, runspecEvals, RunspecReporter } from './suite.js';
export type { EvalOptions, InlineSuite } from './suite.js';
export { toCallTool, toCallToolsInOrder, toHaveVerdict, runspecMatchers } from './matchers.js';
export type { MatcherSubject } from './matchers.js';
export type { EvalCaseOutcome } from '../app/eval-case.js';
