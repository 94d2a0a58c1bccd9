// Side-by-side comparison of runs of the same suite (one per provider/model/label).
import type { ResultsDocument } from './results.js';
import { caseResultsFromDocument } from './results.js';
import { summarize, type SuiteSummary } from '../scoring/summary.js';

/** One case in one run of a comparison. */
export interface ComparisonCell {
  passRate: number;
  passRateLow: number;
  passRateHigh: number;
  /** Scored samples. */
  k: number;
  meetsThreshold: boolean;
  /** The category of the first failing sample, else `pass` (or `errored` when nothing was scored). */
  category: string;
}

export interface ComparisonRow {
  caseId: string;
  suite?: string;
  /** One cell per label, in label order; null where that run lacks the case. */
  cells: Array<ComparisonCell | null>;
  /** Pass-rate delta of each run against the first (0 for the first; null where either lacks the case or scored none of it). */
  deltas: Array<number | null>;
  /** Labels whose 95% Wilson interval does not overlap the first run's. */
  significant: string[];
}

export interface Comparison {
  labels: string[];
  rows: ComparisonRow[];
  summaries: Array<{ label: string; summary: SuiteSummary }>;
}

function cellOf(r: ReturnType<typeof caseResultsFromDocument>[number]): ComparisonCell {
  const scored = r.samples.flatMap((s) => (s.status === 'scored' ? [s] : []));
  const failing = scored.find((s) => !s.verdict.pass);
  return {
    passRate: r.passRate,
    passRateLow: r.passRateLow,
    passRateHigh: r.passRateHigh,
    k: scored.length,
    meetsThreshold: r.meetsThreshold,
    category: scored.length === 0 ? 'errored' : failing ? failing.verdict.category : 'pass',
  };
}

function overlaps(a: ComparisonCell, b: ComparisonCell): boolean {
  return a.passRateLow <= b.passRateHigh && b.passRateLow <= a.passRateHigh;
}

/**
 * Compare runs: per-case pass rates side by side, deltas against the first run, and the runs whose
 * interval does not overlap the first run's (a difference the samples can tell apart). Cases appear
 * in the first run's order, then any a later run adds.
 */
export function compareResults(runs: ReadonlyArray<{ label: string; doc: ResultsDocument }>): Comparison {
  const perRun = runs.map((r) => {
    const results = caseResultsFromDocument(r.doc);
    const byCase = new Map<string, (typeof results)[number]>();
    for (const x of results) if (!byCase.has(x.caseId)) byCase.set(x.caseId, x);
    return { label: r.label, results, byCase };
  });
  const order: string[] = [];
  const suites = new Map<string, string | undefined>();
  for (const run of perRun) {
    for (const r of run.results) {
      if (!suites.has(r.caseId)) {
        order.push(r.caseId);
        suites.set(r.caseId, r.suite);
      }
    }
  }
  const rows = order.map((caseId): ComparisonRow => {
    const cells = perRun.map((run) => {
      const r = run.byCase.get(caseId);
      return r ? cellOf(r) : null;
    });
    const base = cells[0] ?? null;
    // A run with nothing scored for the case has no pass rate to compare.
    const deltas = cells.map((cell) => (cell && base && cell.k > 0 && base.k > 0 ? cell.passRate - base.passRate : null));
    const significant = cells.flatMap((cell, i) => (i > 0 && cell && base && cell.k > 0 && base.k > 0 && !overlaps(base, cell) ? [perRun[i]!.label] : []));
    const row: ComparisonRow = { caseId, cells, deltas, significant };
    const suite = suites.get(caseId);
    if (suite !== undefined) row.suite = suite;
    return row;
  });
  return {
    labels: perRun.map((r) => r.label),
    rows,
    summaries: perRun.map((r) => ({ label: r.label, summary: summarize(r.results) })),
  };
}
