import { resultsDocumentText, type ResultsDocument } from './results.js';

/** The results document as pretty JSON (what `--output json` prints and the results file holds). */
export function renderJson(doc: ResultsDocument): string {
  return resultsDocumentText(doc);
}
