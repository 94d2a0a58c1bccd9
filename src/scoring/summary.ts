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

/**
 * Summarise a suite. `opts.threshold` re-judges every case against that threshold (as `report
 * --threshold` does over saved results); without it each case keeps its own verdict.
 */
export function summarize(results: readonly CaseResult[], opts: { threshold?: number } = {}): SuiteSummary {
  const acc = createSummaryAccumulator(opts);
  for (const r of results) acc.add(r);
  return acc.summary();
}

/** A suite summary built one case at a time, so a run need not hold every case result. */
export interface SummaryAccumulator {
  add(result: CaseResult): void;
  /** The summary of the cases added so far: equal to `summarize` over them, in the order added. */
  summary(): SuiteSummary;
}

interface GroupSums {
  cases: number;
  meeting: number;
  withScored: number;
  passRateSum: number;
  scoredSamples: number;
  passedSamples: number;
}

/**
 * Fold case results into a {@link SuiteSummary} without keeping them: O(tags + suites) memory. The one
 * definition of the summary: {@link summarize} folds its whole list through it.
 */
export function createSummaryAccumulator(opts: { threshold?: number } = {}): SummaryAccumulator {
  const byCategory = Object.fromEntries(VERDICT_CATEGORIES.map((c) => [c, 0])) as Record<VerdictCategory, number>;
  let cases = 0;
  let samples = 0;
  let scored = 0;
  let passed = 0;
  let meeting = 0;
  let withScored = 0;
  let below = 0;
  let errored = 0;
  let passRateSum = 0;
  let accuracySum = 0;
  let accuracies = 0;
  let scoreSum = 0;
  let calls = 0;
  let redundant = 0;
  let errors = 0;
  let tokens = 0;
  let jsonDumps = 0;
  let unscorable = 0;
  const byTag = new Map<string, GroupSums>();
  const bySuite = new Map<string, GroupSums>();
  const addTo = (groups: Map<string, GroupSums>, key: string, r: CaseResult, meets: boolean, hasScored: boolean, scoredN: number, passedN: number): void => {
    const g = groups.get(key) ?? { cases: 0, meeting: 0, withScored: 0, passRateSum: 0, scoredSamples: 0, passedSamples: 0 };
    g.cases++;
    if (meets) g.meeting++;
    if (hasScored) {
      g.withScored++;
      g.passRateSum += r.passRate;
    }
    g.scoredSamples += scoredN;
    g.passedSamples += passedN;
    groups.set(key, g);
  };
  const rollups = (groups: Map<string, GroupSums>): Record<string, GroupRollup> =>
    Object.fromEntries(
      [...groups]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, g]) => [
          k,
          {
            cases: g.cases,
            casesMeetingThreshold: g.meeting,
            avgPassRate: g.withScored ? g.passRateSum / g.withScored : 0,
            scoredSamples: g.scoredSamples,
            passedSamples: g.passedSamples,
          },
        ]),
    );
  return {
    add(r) {
      cases++;
      samples += r.samples.length;
      let scoredN = 0;
      let passedN = 0;
      let anyErrored = false;
      for (const s of r.samples) {
        if (s.status !== 'scored') {
          anyErrored = true;
          // Calls, errors and tokens of a partial run (a provider failed mid-run) happened: they count.
          if (s.partial) {
            const m = s.partial.replio;
            if (m) {
              calls += m.calls;
              redundant += m.redundant;
              errors += m.errors;
            }
            tokens += s.tokens ?? 0;
          }
          continue;
        }
        const v = s.verdict;
        byCategory[v.category]++;
        if (!isJudged(s)) {
          unscorable++;
          continue;
        }
        scoredN++;
        if (v.pass) passedN++;
        if (v.replio?.accuracy != null) {
          accuracySum += v.replio.accuracy;
          accuracies++;
        }
        if (v.replio) {
          calls += v.replio.calls;
          redundant += v.replio.redundant;
          errors += v.replio.errors;
        }
        scoreSum += sampleScore(v);
        tokens += s.tokens;
        if (v.jsonDump) jsonDumps++;
      }
      scored += scoredN;
      passed += passedN;
      if (anyErrored) errored++;
      const meets = caseMeets(r, opts.threshold);
      if (meets) meeting++;
      const hasScored = scoredN > 0;
      if (hasScored) {
        withScored++;
        passRateSum += r.passRate;
        if (!meets) below++;
      }
      for (const tag of new Set(r.tags)) addTo(byTag, tag, r, meets, hasScored, scoredN, passedN);
      if (r.suite) addTo(bySuite, r.suite, r, meets, hasScored, scoredN, passedN);
    },
    summary() {
      const out: SuiteSummary = {
        cases,
        samples,
        scoredSamples: scored,
        passedSamples: passed,
        erroredSamples: samples - scored - unscorable,
        unscorableSamples: unscorable,
        casesMeetingThreshold: meeting,
        casesBelowThreshold: below,
        errored,
        avgPassRate: withScored ? passRateSum / withScored : 0,
        overallPassRate: scored ? passed / scored : 0,
        avgAccuracy: accuracies ? accuracySum / accuracies : null,
        avgScore: scored ? scoreSum / scored : null,
        calls,
        redundant,
        errors,
        tokens,
        jsonDumps,
        byCategory: { ...byCategory },
        byTag: rollups(byTag),
        bySuite: rollups(bySuite),
        allMeetThreshold: meeting === cases,
      };
      if (opts.threshold !== undefined) out.threshold = opts.threshold;
      return out;
    },
  };
}
