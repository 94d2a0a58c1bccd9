// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export { matchArg, matchArgs, tolerantEquals, describeArgFailures, describeExpectation } from './arg-match.js';
export type { ArgMatch, ArgFailure } from './arg-match.js';
export { scoreMatch, matchAction, maximumMatching } from './match-modes.js';
export { detectJsonDump } from './json-dump.js';
export { replioMetrics, checkVerifier, checkVerifierDetailed, countRedundant } from './replio.js';
export type { VerifierFailure } from './replio.js';
export { scoreRun, PRECEDENCE } from './verdict.js';
export type { ScoreOptions } from './verdict.js';
export {
  wilsonInterval,
  passAtK,
  passHatK,
  passKValues,
  evaluateGate,
  aggregateCase,
  meetsThreshold,
  isJudged,
  isUnjudgedCategory,
  Z_95,
  type AggregateOptions,
} from './samples.js';
export { argumentHash, hashArguments, expectationsHash, tolerantCanonical } from './arg-hash.js';
export { checkArgs } from './arg-match.js';
export { unscorableReason } from './verdict.js';
export { summarize, sampleScore } from './summary.js';
export { sampleTraceOf } from './sample-trace.js';
export type { SuiteSummary, GroupRollup } from './summary.js';
