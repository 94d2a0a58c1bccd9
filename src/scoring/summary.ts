// Suite roll-ups: replio's summary (averages accuracy and pass rate, totals calls, redundant, errors,
// tokens), turnstone's aggregate, and roll-ups by verdict category, tag and suite.
import { VERDICT_CATEGORIES, type CaseResult, type VerdictCategory } from '../types/verdict.js';
import { isJudged, meetsThreshold } from './samples.js';

/** Cases sharing a tag (or a suite). */
export interface GroupRollup {
  cases: number;
  casesMeetingThreshold: number;
  /** Mean of the cases' pass rates (cases with at least one scored sample). */
  avgPassRate: number;
  scoredSamples: number;
  passedSamples: number;
}

export interface SuiteSummary {
  cases: number;
  /** Every sample, scored or errored. */
  samples: number;
  scoredSamples: number;
  passedSamples: number;
  erroredSamples: number;
  /** Samples with an `unscorable` or `incomplete` verdict: neither passed nor failed, left out of pass rates. */
  unscorableSamples: number;
  casesMeetingThreshold: number;
  /** Cases with scored samples whose pass rate is below their threshold. */
  casesBelowThreshold: number;
  /** Cases with at least one errored (infrastructure) sample. */
  errored: number;
  /** Mean of the case pass rates, over cases with at least one scored sample. */
  avgPassRate: number;
  /** Passed samples / scored samples (turnstone overall_pass_rate). */
  overallPassRate: number;
  /** Mean replio accuracy over samples that have an `expected` sequence; null when none do. */
  avgAccuracy: number | null;
  /** Mean sample score (turnstone score, else 1 for pass and 0 for fail); null without scored samples. */
  avgScore: number | null;
  calls: number;
  redundant: number;
  errors: number;
  tokens: number;
  jsonDumps: number;
  /** Scored samples per verdict category (every category present, zeros included). */
  byCategory: Record<VerdictCategory, number>;
  byTag: Record<string, GroupRollup>;
  bySuite: Record<string, GroupRollup>;
  /** The threshold override given to summarize, if any. */
  threshold?: number;
  /** Every case meets its threshold (vacuously true for no cases). */
  allMeetThreshold: boolean;
}

/** The score of one scored sample: the turnstone match score when there is one, else pass = 1. */
export function sampleScore(verdict: { pass: boolean; match?: { score: number } }): number {
  return verdict.match ? verdict.match.score : verdict.pass ? 1 : 0;
}

function caseMeets(r: CaseResult, threshold: number | undefined): boolean {
  if (threshold === undefined) return r.meetsThreshold;
  const scored = r.samples.filter((s) => isJudged(s)).length;
  return scored > 0 && meetsThreshold(r.passRate, threshold);
}

function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

function rollup(results: readonly CaseResult[], threshold: number | undefined): GroupRollup {
  const scored = results.filter((r) => r.samples.some((s) => isJudged(s)));
  const samples = results.flatMap((r) => r.samples.filter((s) => isJudged(s)));
  return {
    cases: results.length,
    casesMeetingThreshold: results.filter((r) => caseMeets(r, threshold)).length,
    avgPassRate: mean(scored.map((r) => r.passRate)),
    scoredSamples: samples.length,
    passedSamples: samples.filter((s) => s.status === 'scored' && s.verdict.pass).length,
  };
}

function groupBy(results: readonly CaseResult[], keys: (r: CaseResult) => string[]): Map<string, CaseResult[]> {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    for (const key of new Set(keys(r))) {
      const list = groups.get(key) ?? [];
      list.push(r);
      groups.set(key, list);
    }
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Summarise a suite. `opts.threshold` re-judges every case against that threshold (as `report
 * --threshold` does over saved results); without it each case keeps its own verdict.
 */
export function summarize(results: readonly CaseResult[], opts: { threshold?: number } = {}): SuiteSummary {
  const outcomes = results.flatMap((r) => r.samples);
  const all = outcomes.flatMap((s) => (s.status === 'scored' ? [s] : []));
  const scored = all.filter((s) => isJudged(s));
  const byCategory = Object.fromEntries(VERDICT_CATEGORIES.map((c) => [c, 0])) as Record<VerdictCategory, number>;
  for (const s of all) byCategory[s.verdict.category]++;
  const accuracies = scored.flatMap((s) => (s.verdict.replio?.accuracy != null ? [s.verdict.replio.accuracy] : []));
  const total = (pick: (m: NonNullable<(typeof scored)[number]['verdict']['replio']>) => number): number =>
    scored.reduce((sum, s) => sum + (s.verdict.replio ? pick(s.verdict.replio) : 0), 0);
  const meeting = results.filter((r) => caseMeets(r, opts.threshold)).length;
  const withScored = results.filter((r) => r.samples.some((s) => isJudged(s)));
  const summary: SuiteSummary = {
    cases: results.length,
    samples: outcomes.length,
    scoredSamples: scored.length,
    passedSamples: scored.filter((s) => s.verdict.pass).length,
    erroredSamples: outcomes.length - all.length,
    unscorableSamples: all.length - scored.length,
    casesMeetingThreshold: meeting,
    casesBelowThreshold: withScored.filter((r) => !caseMeets(r, opts.threshold)).length,
    errored: results.filter((r) => r.samples.some((s) => s.status === 'errored')).length,
    avgPassRate: mean(withScored.map((r) => r.passRate)),
    overallPassRate: scored.length ? scored.filter((s) => s.verdict.pass).length / scored.length : 0,
    avgAccuracy: accuracies.length ? mean(accuracies) : null,
    avgScore: scored.length ? mean(scored.map((s) => sampleScore(s.verdict))) : null,
    calls: total((m) => m.calls),
    redundant: total((m) => m.redundant),
    errors: total((m) => m.errors),
    // The sample's own token count covers runs scored without replio metrics too.
    tokens: scored.reduce((sum, s) => sum + s.tokens, 0),
    jsonDumps: scored.filter((s) => s.verdict.jsonDump).length,
    byCategory,
    byTag: Object.fromEntries([...groupBy(results, (r) => r.tags)].map(([k, v]) => [k, rollup(v, opts.threshold)])),
    bySuite: Object.fromEntries([...groupBy(results, (r) => (r.suite ? [r.suite] : []))].map(([k, v]) => [k, rollup(v, opts.threshold)])),
    allMeetThreshold: meeting === results.length,
  };
  if (opts.threshold !== undefined) summary.threshold = opts.threshold;
  return summary;
}
