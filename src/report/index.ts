// Exports added here are public.
export { renderTable } from './table.js';
export type { TableOptions } from './table.js';
export { renderJson } from './json.js';
export { renderJUnit } from './junit.js';
export { renderMarkdown } from './markdown.js';
export { renderHtml, renderCompareHtml } from './html.js';
export { renderReportView, renderCompareView } from './view.js';
export type { ReportViewOptions } from './view.js';
export { renderComparison } from './comparison.js';
// The results codec: schema, reading, writing, JSON Schema export.
export {
  buildResultsDocument,
  caseResultsFromDocument,
  parseResultsDocument,
  resultsDocumentSchema,
  caseEntryOf,
  runEntryOf,
  aggregateOf,
  RESULTS_SCHEMA,
  resultsJsonSchema,
} from './results.js';
export type {
  ResultsDocument,
  ResultsMeta,
  ResultsInputs,
  ResultsInput,
  ResultsIteration,
  CaseEntry,
  RunEntry,
  Aggregate,
  SampleTraceJson,
  SampleTraceStepJson,
} from './results.js';
// The JSON line of `score` and `serve`: a trace's judgement as a run entry.
export { traceRunEntry, verdictLineJson } from './verdict-line.js';
export { compareResults } from './compare.js';
export type { Comparison, ComparisonRow, ComparisonCell } from './compare.js';
export { summarize } from '../scoring/summary.js';
export type { SuiteSummary } from '../scoring/summary.js';
