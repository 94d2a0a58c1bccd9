// The results document (see results-schema.ts): one import for its schema, writers, readers and layout.
export { RESULTS_SCHEMA, resultsDocumentSchema, runEntrySchema, parseResultsDocument, resultsJsonSchema } from './results-schema.js';
export type {
  ResultsDocument,
  ResultsMeta,
  ResultsInputs,
  ResultsIteration,
  CaseEntry,
  RunEntry,
  Aggregate,
  SampleTraceJson,
  SampleTraceStepJson,
} from './results-schema.js';
export { runEntryOf, caseEntryOf, aggregateOf, aggregateFromSummary, buildResultsDocument } from './results-encode.js';
export type { ResultsInput } from './results-encode.js';
export { runEntryTrace, runEntryCalls, caseResultsFromDocument, caseResultOf, outcomeOf } from './results-decode.js';
export { resultsDocumentText, writeResultsDocumentSteps } from './results-layout.js';
