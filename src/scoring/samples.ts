// Samples of one case: pass rate, Wilson interval, pass@k / pass^k, threshold.
import type { Case, CaseGate } from '../types/case.js';
import type { CaseResult, GateResult, PassKValue, SampleOutcome, VerdictCategory } from '../types/verdict.js';

/** Verdicts that judged nothing definite: left out of pass rates, intervals and pass@k, counted on their own. */
const UNJUDGED: ReadonlySet<VerdictCategory> = new Set<VerdictCategory>(['unscorable', 'incomplete']);

/**
 * Whether a sample counts in pass rates: scored, with a definite verdict (not `unscorable`/`incomplete`).
 * @example isJudged({ status: 'scored', verdict: { category: 'unscorable' } }) // false
 */
export function isJudged(o: { status: string; verdict?: { category: VerdictCategory } }): boolean {
  return o.status === 'scored' && o.verdict !== undefined && !UNJUDGED.has(o.verdict.category);
}

/** Whether a verdict category is `unscorable` or `incomplete`. */
export function isUnjudgedCategory(category: VerdictCategory): boolean {
  return UNJUDGED.has(category);
}

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/** Pass-rate comparisons allow this much float slack, so 2/3 meets a threshold written as 0.6667. */
const EPSILON = 1e-9;

/**
 * Wilson score interval of a binomial proportion; `{ low: 0, high: 1 }` when there are no samples.
 *
 * @example wilsonInterval(8, 10) // { low: 0.490..., high: 0.943... }
 */
export function wilsonInterval(passes: number, n: number, z: number = Z_95): { low: number; high: number } {
  if (!(n > 0)) return { low: 0, high: 1 };
  const p = Math.min(Math.max(passes / n, 0), 1);
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // The bounds at p = 0 and p = 1 are exactly 0 and 1; floating point lands a hair inside.
  return { low: passes <= 0 ? 0 : Math.max(0, center - half), high: passes >= n ? 1 : Math.min(1, center + half) };
}

/**
 * An estimator's value to 12 significant digits: the products below leave float noise in the last bits
 * (pass@1 of 2 in 5 comes out 0.3999999999999999), which would reach the results JSON, JUnit and gates.
 */
function roundEstimate(x: number): number {
  // 0 and 1 (every estimate of a case run once) come out as they go in.
  if (x === 1 || Object.is(x, 0)) return x;
  return Number(x.toPrecision(12));
}

function validCounts(n: number, c: number, k: number): boolean {
  return Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k) && n >= 1 && c >= 0 && c <= n && k >= 1 && k <= n;
}

/**
 * Unbiased pass@k (Chen et al. 2021): the chance that at least one of k samples drawn without
 * replacement from n samples with c passes passes. NaN outside 0 ≤ c ≤ n, 1 ≤ k ≤ n.
 *
 * @example passAtK(10, 3, 1) // 0.3
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!validCounts(n, c, k)) return Number.NaN;
  if (n - c < k) return 1;
  // 1 - C(n-c, k) / C(n, k) as a product, which stays finite for large n.
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return roundEstimate(1 - fail);
}

/**
 * Unbiased pass^k (tau-bench): the chance that all k samples drawn without replacement pass,
 * C(c, k) / C(n, k). NaN outside 0 ≤ c ≤ n, 1 ≤ k ≤ n.
 *
 * @example passHatK(4, 3, 2) // 0.5
 */
export function passHatK(n: number, c: number, k: number): number {
  if (!validCounts(n, c, k)) return Number.NaN;
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return roundEstimate(all);
}

/** Whether a pass rate meets a threshold (with float slack). */
export function meetsThreshold(passRate: number, threshold: number): boolean {
  return passRate + EPSILON >= threshold;
}

/** What aggregation needs of a case (a trace rule's results are aggregated the same way). */
export type AggregateSubject = Pick<Case, 'id' | 'tags' | 'suite'> & { dialect: CaseResult['dialect']; settings: Pick<Case['settings'], 'threshold' | 'gate'> };

/**
 * pass@k and pass^k for each k (sorted, deduplicated) over n scored samples with c passes; null where
 * k > n (the estimator needs at least k samples).
 *
 * @example passKValues(5, 2, [1, 3]) // [{ k: 1, passAt: 0.4, passHat: 0.4 }, { k: 3, passAt: 0.9, passHat: 0 }]
 */
export function passKValues(n: number, c: number, ks: readonly number[]): PassKValue[] {
  if (ks.length === 0) return [];
  return [...new Set(ks)]
    .filter((k) => Number.isSafeInteger(k) && k >= 1)
    .sort((a, b) => a - b)
    .map((k) => (n >= k ? { k, passAt: passAtK(n, c, k), passHat: passHatK(n, c, k) } : { k, passAt: null, passHat: null }));
}

function compare(value: number, op: CaseGate['op'], bar: number): boolean {
  switch (op) {
    case '>=':
      return value + EPSILON >= bar;
    case '>':
      return value > bar + EPSILON;
    case '<=':
      return value <= bar + EPSILON;
    case '<':
      return value + EPSILON < bar;
    case '==':
      return Math.abs(value - bar) <= EPSILON;
  }
}

/**
 * Evaluate a gate over n scored samples with c passes. A gate on pass@k or pass^k with fewer than k
 * scored samples cannot be checked and is not met; nor is any gate when nothing was scored.
 */
export function evaluateGate(gate: CaseGate, n: number, c: number): GateResult {
  let value: number | null = null;
  if (n > 0) {
    if (gate.metric === 'pass_rate') value = c / n;
    else if (gate.k !== undefined && gate.k <= n) value = gate.metric === 'pass@k' ? passAtK(n, c, gate.k) : passHatK(n, c, gate.k);
  }
  return { text: gate.text, value, met: value !== null && compare(value, gate.op, gate.value) };
}

/** Options of {@link aggregateCase}. */
export interface AggregateOptions {
  /** Pass-rate threshold of cases without their own. */
  threshold: number;
  /** The k values of pass@k / pass^k to report (`--pass-k`). @default [] */
  passK?: readonly number[];
  /** The gate of cases without their own (`--gate`); a gate replaces the threshold check. */
  gate?: CaseGate;
}

/**
 * Aggregate the samples of one case. Errored samples (infrastructure) and unscorable ones (a needed check could
 * not be judged) are counted apart and never as failures: the pass rate is over scored samples only. A case with no scored sample cannot meet its
 * threshold. The case's own `threshold` setting wins over `opts.threshold` (as turnstone's per-case
 * n_runs wins over the CLI); a gate (the case's, else `opts.gate`) replaces the threshold check.
 */
export function aggregateCase(c: AggregateSubject, outcomes: readonly SampleOutcome[], opts: AggregateOptions): CaseResult {
  // In sample order; a case's samples usually are already (a sort allocates even then).
  const samples = [...outcomes];
  for (let i = 1; i < samples.length; i++) {
    if (samples[i - 1]!.sample - samples[i]!.sample > 0) {
      samples.sort((a, b) => a.sample - b.sample);
      break;
    }
  }
  const scored = samples.filter((o): o is Extract<SampleOutcome, { status: 'scored' }> => isJudged(o));
  const n = scored.length;
  const passes = scored.filter((o) => o.verdict.pass).length;
  const passRate = n ? passes / n : 0;
  const interval = wilsonInterval(passes, n);
  const threshold = c.settings.threshold ?? opts.threshold;
  const gate = c.settings.gate ?? opts.gate;
  const ks = [...(opts.passK ?? [])];
  if (gate?.k !== undefined) ks.push(gate.k);
  const gateResult = gate ? evaluateGate(gate, n, passes) : undefined;
  const scores = scored.flatMap((o) => (o.verdict.match ? [o.verdict.match.score] : []));
  const result: CaseResult = {
    caseId: c.id,
    dialect: c.dialect,
    tags: [...c.tags],
    samples,
    passRate,
    passRateLow: interval.low,
    passRateHigh: interval.high,
    passAtK: n ? passAtK(n, passes, n) : 0,
    passHatK: n ? passHatK(n, passes, n) : 0,
    passK: passKValues(n, passes, ks),
    threshold,
    meetsThreshold: gateResult ? gateResult.met : n > 0 && meetsThreshold(passRate, threshold),
    errored: samples.some((o) => o.status === 'errored'),
  };
  if (gateResult) result.gate = gateResult;
  const unscorable = samples.filter((o) => o.status === 'scored' && !isJudged(o)).length;
  if (unscorable) result.unscorable = unscorable;
  if (c.suite !== undefined) result.suite = c.suite;
  if (scores.length) result.avgScore = scores.reduce((a, b) => a + b, 0) / scores.length;
  return result;
}
