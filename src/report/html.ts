// A single self-contained HTML report: the report view (the same renderer the `ui` console uses) with its
// style and script inline. The Content-Security-Policy allows exactly that script (by its hash) and no
// fetch of any kind, so the file can be attached to a CI run and opened offline.
import { createHash } from 'node:crypto';
import type { ResultsDocument } from './results.js';
import { escapeXml as esc } from '../core/escape.js';
import { titleOf } from './_present.js';
import { REPORT_CSS, REPORT_SCRIPT } from './_view-assets.js';
import { renderCompareView, renderReportView, type ReportViewOptions } from './view.js';

const PAGE_SCRIPT = `${REPORT_SCRIPT}\nwindow.runspecReport.init(document);`;
const SCRIPT_HASH = `sha256-${createHash('sha256').update(PAGE_SCRIPT).digest('base64')}`;

/** The Content-Security-Policy of a report file: its own inline script and style, nothing fetched. */
export const REPORT_FILE_CSP = `default-src 'none'; script-src '${SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_FILE_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${body}
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * Render the results as one self-contained HTML page.
 *
 * @example writeFileSync('report.html', renderHtml(doc))
 */
export function renderHtml(doc: ResultsDocument, opts: ReportViewOptions = {}): string {
  return page(titleOf(doc), renderReportView(doc, opts));
}

/** Two results side by side as one self-contained HTML page. */
export function renderCompareHtml(a: { label?: string; doc: ResultsDocument }, b: { label?: string; doc: ResultsDocument }): string {
  return page(`runspec-eval comparison`, renderCompareView(a, b));
}
