// Saved results documents: read one, merge shards.

import { readFileSync } from 'node:fs';
import { RunspecError } from '../errors.js';
import type { CaseResult } from '../types/verdict.js';
import { buildResultsDocument, caseResultsFromDocument, parseResultsDocument, resultsDocumentText, type ResultsDocument } from './results.js';
import { writeFileAtomic } from '../core/atomic-write.js';

/** Write a results document atomically: a reader (report, merge, a CI step) never sees half a file. */
export function writeResultsDocument(path: string, doc: ResultsDocument): void {
  writeFileAtomic(path, resultsDocumentText(doc));
}

/** Read and parse a saved results document at `path` (bad input names the file). */
export function readResultsDocument(path: string): ResultsDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new RunspecError('RESULTS', `${path}: cannot read the results file`, { hint: 'pass a results JSON written by `runspec-eval run --out`' });
  }
  return parseResultsDocument(text, path);
}

/**
 * Combine shard results into one document equal to an unsharded run's: cases in the original
 * selection order (meta.case_order), the aggregate recomputed, the shard marker dropped.
 */
export function mergeDocuments(docs: Array<{ file: string; doc: ResultsDocument }>): ResultsDocument {
  const seen = new Map<string, string>();
  const all: CaseResult[] = [];
  for (const { file, doc } of docs) {
    for (const r of caseResultsFromDocument(doc)) {
      const other = seen.get(r.caseId);
      if (other !== undefined) {
        throw new RunspecError('RESULTS', `${file}: case ${JSON.stringify(r.caseId)} is also in ${other}`, {
          hint: 'merge the results of disjoint shards (--shard 1/N … N/N) of one run',
        });
      }
      seen.set(r.caseId, file);
      all.push(r);
    }
  }
  const first = docs[0]!.doc;
  const order = first.meta.case_order ?? [];
  const rank = new Map(order.map((id, i) => [id, i]));
  // Stable sort: ids missing from the recorded order keep their file order after the known ones.
  const sorted = all
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (rank.get(a.r.caseId) ?? order.length + a.i) - (rank.get(b.r.caseId) ?? order.length + b.i))
    .map(({ r }) => r);
  const iteration = first.iterations[0];
  return buildResultsDocument({
    meta: { ...first.meta, shard: null },
    iterations: [{ iteration: 0, timestamp: iteration?.timestamp ?? new Date().toISOString(), prompt: iteration?.prompt ?? undefined, caseResults: sorted }],
  });
}
