import type { ResultsDocument } from '../scoring/index.js';

/** The results document as pretty JSON (what `--output json` prints and the results file holds). */
export function renderJson(doc: ResultsDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
