import type { ResultsDocument } from './results.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJUnit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderTable } from './table.js';

import type { OutputFormat } from './formats.js';
import type { ReportViewOptions } from './view.js';

/** Render a results document in the chosen format (`view` applies to HTML: the trace link template). */
export function renderDocument(doc: ResultsDocument, format: OutputFormat, view: ReportViewOptions = {}): string {
  const renderers: Record<OutputFormat, (d: ResultsDocument) => string> = {
    table: renderTable,
    json: renderJson,
    junit: renderJUnit,
    md: renderMarkdown,
    html: (d) => renderHtml(d, view),
  };
  return renderers[format](doc);
}
