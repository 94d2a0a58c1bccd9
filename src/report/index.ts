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
// The results document API lives in scoring/ (pure); re-exported for the commands that render it.
export {
  buildResultsDocument,
  caseResultsFromDocument,
  parseResultsDocument,
  compareResults,
  summarize,
} from '../scoring/index.js';
export type { ResultsDocument, ResultsMeta, Comparison, SuiteSummary } from '../scoring/index.js';
