// What every renderer shows for a case: the verdict of its representative sample (the first failing
// scored sample, else the first scored one), its observed tool/command/autonomy/host, and the pass rate.
import type { CaseEntry, ResultsDocument, ResultsIteration, RunEntry } from '../scoring/index.js';

export interface CaseView {
  caseId: string;
  suite: string | null;
  entry: CaseEntry;
  /** The representative sample; undefined when every sample errored. */
  sample: RunEntry | undefined;
  /** A verdict category, or `errored` when nothing was scored. */
  verdict: string;
  tool: string;
  command: string;
  autonomy: string;
  host: string;
  /** "2/3 67%". */
  passRate: string;
  reason: string;
  meetsThreshold: boolean;
  /** No sample was scored (infrastructure failure only). */
  errored: boolean;
}

/** The iteration reports show: the last one. */
export function lastIteration(doc: ResultsDocument): ResultsIteration | undefined {
  return doc.iterations[doc.iterations.length - 1];
}

export function percent(rate: number, digits = 0): string {
  return `${(rate * 100).toFixed(digits)}%`;
}

export function passRateText(entry: CaseEntry): string {
  const scored = entry.runs.filter((r) => r.status === 'scored');
  const passed = scored.filter((r) => r.pass).length;
  if (scored.length === 0) return `0/0`;
  return `${passed}/${scored.length} ${percent(entry.pass_rate)}`;
}

export function caseViews(doc: ResultsDocument): CaseView[] {
  const it = lastIteration(doc);
  if (!it) return [];
  return Object.entries(it.cases).map(([caseId, entry]) => {
    const scored = entry.runs.filter((r) => r.status === 'scored' && r.verdict);
    const sample = scored.find((r) => !r.pass) ?? scored[0];
    const errored = scored.length === 0;
    const firstError = entry.runs.find((r) => r.status === 'errored');
    const observed = sample?.verdict?.observed ?? {};
    let reason = sample?.verdict?.reason ?? (firstError?.error ? `${firstError.error.code}: ${firstError.error.message}` : 'no samples');
    if (!errored && entry.errored_runs > 0) reason += ` (${entry.errored_runs} sample${entry.errored_runs === 1 ? '' : 's'} errored)`;
    return {
      caseId,
      suite: entry.suite,
      entry,
      sample,
      verdict: errored ? 'errored' : sample!.verdict!.category,
      tool: observed.tool ?? '',
      command: observed.command ?? '',
      autonomy: observed.autonomy ?? '',
      host: observed.host ?? '',
      passRate: passRateText(entry),
      reason,
      meetsThreshold: entry.meets_threshold,
      errored,
    };
  });
}

/** The threshold line: one value when all cases share it, else a range. */
export function thresholdText(views: readonly CaseView[]): string {
  const values = [...new Set(views.map((v) => v.entry.threshold))].sort((a, b) => a - b);
  if (values.length === 0) return 'n/a';
  if (values.length === 1) return values[0]!.toFixed(2);
  return `${values[0]!.toFixed(2)}–${values[values.length - 1]!.toFixed(2)}`;
}

/** Non-zero categories, most frequent first, then by name. */
export function categoryCounts(byCategory: Record<string, number>): Array<[string, number]> {
  return Object.entries(byCategory)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
}

export function formatInt(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A one-line title: suite and model when the meta says them. */
export function titleOf(doc: ResultsDocument): string {
  const parts = ['runspec-eval'];
  if (doc.meta.label) parts.push(String(doc.meta.label));
  if (doc.meta.test_suite) parts.push(String(doc.meta.test_suite));
  const model = doc.meta.model ? `${doc.meta.model}${doc.meta.provider ? ` (${doc.meta.provider})` : ''}` : doc.meta.provider;
  if (model) parts.push(model);
  return parts.join(' · ');
}
