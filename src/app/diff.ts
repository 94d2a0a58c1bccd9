// `diff BASE HEAD` and `run --baseline`: read two results documents (or a file against the newest results
// document in a directory) and compare them with report/diff.ts.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RunspecError } from '../errors.js';
import { readResultsDocument } from '../report/results-docs.js';
import { diffResults, type DiffFailOn, type ResultsDiff } from '../report/diff.js';
import type { ResultsDocument } from '../report/results.js';

/**
 * The results document at `path`; for a directory, the newest `.json` results document in it by
 * `meta.started` (files that are not results documents are skipped), never `exclude`.
 */
export function readBaselineDocument(path: string, exclude?: string): { file: string; doc: ResultsDocument } {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new RunspecError('RESULTS', `${path}: no such results file or directory`, {
      hint: 'pass a results JSON written by `runspec-eval run --out`, or a directory of them',
    });
  }
  if (!isDir) return { file: path, doc: readResultsDocument(path) };
  let best: { file: string; doc: ResultsDocument } | undefined;
  for (const name of readdirSync(path).sort()) {
    if (!name.endsWith('.json')) continue;
    const file = join(path, name);
    if (exclude !== undefined && resolve(file) === resolve(exclude)) continue;
    let doc: ResultsDocument;
    try {
      doc = readResultsDocument(file);
    } catch {
      continue;
    }
    if (!best || doc.meta.started > best.doc.meta.started) best = { file, doc };
  }
  if (!best) {
    throw new RunspecError('RESULTS', `${path}: no results document in this directory`, {
      hint: 'point at a directory holding the .json files `runspec-eval run --out` wrote',
    });
  }
  return best;
}

/**
 * Compare `head` against `base` (files, or a directory for the baseline).
 * @returns the diff and its exit code: 1 when a case regressed under `failOn`, else 0.
 */
export function diffResultFiles(opts: { base: string; head: string; failOn?: DiffFailOn }): { diff: ResultsDiff; exitCode: 0 | 1 } {
  const head = readBaselineDocument(opts.head);
  const base = readBaselineDocument(opts.base, head.file);
  const diff = diffResults(base.doc, head.doc, { baseLabel: base.file, headLabel: head.file, ...(opts.failOn ? { failOn: opts.failOn } : {}) });
  return { diff, exitCode: diff.regressions.length ? 1 : 0 };
}
