import type { ResultsDocument } from './results.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJUnit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderTable } from './table.js';

import type { OutputFormat } from './formats.js';

/** Render a results document in the chosen format. */
export function renderDocument(doc: ResultsDocument, format: OutputFormat): string {
  const renderers: Record<OutputFormat, (d: ResultsDocument) => string> = {
    table: renderTable,
    json: renderJson,
    junit: renderJUnit,
    md: renderMarkdown,
    html: renderHtml,
  };
  return renderers[format](doc);
}
