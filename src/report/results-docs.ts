// Saved results documents: read one, merge shards. Loaded only by the merge and report actions.

import { readFileSync } from 'node:fs';
import type { CliContext } from '../context.js';
import { RunspecError } from '../../errors.js';
import type { CaseResult } from '../../types/index.js';
import { buildResultsDocument, caseResultsFromDocument, parseResultsDocument, type ResultsDocument } from '../../scoring/results.js';
import { cwdPath } from './_run-options.js';

/** Read and parse a saved results document (bad input names the file). */
export function readResultsDocument(ctx: CliContext, file: string): ResultsDocument {
  const path = cwdPath(ctx, file);
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
          hint: 'merge the results of disjoint shards (--shard 0/N ... N-1/N) of one run',
        });
      }
      seen.set(r.caseId, file);
      all.push(r);
    }
  }
  const first = docs[0]!.doc as ResultsDocument & { meta: Record<string, unknown> };
  const order = Array.isArray(first.meta.case_order) ? (first.meta.case_order as string[]) : [];
  const rank = new Map(order.map((id, i) => [id, i]));
  // Stable sort: ids missing from the recorded order keep their file order after the known ones.
  const sorted = all
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (rank.get(a.r.caseId) ?? order.length + a.i) - (rank.get(b.r.caseId) ?? order.length + b.i))
    .map(({ r }) => r);
  const iteration = (first as unknown as { iterations: Array<{ timestamp?: string; prompt?: string }> }).iterations[0];
  return buildResultsDocument({
    meta: { ...first.meta, shard: null },
    iterations: [{ iteration: 0, timestamp: iteration?.timestamp ?? new Date().toISOString(), prompt: iteration?.prompt ?? undefined, caseResults: sorted }],
  });
}

