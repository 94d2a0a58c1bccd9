import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSummaryAccumulator, summarize } from '../../src/scoring/summary.js';
import { isJudged, meetsThreshold } from '../../src/scoring/samples.js';
import { VERDICT_CATEGORIES, type CaseResult, type SampleOutcome, type Verdict } from '../../src/types/index.js';

// The run folds case results into the summary one at a time (it keeps none of them); summarize folds a
// whole list the same way. Checked against counts written out here, on generated suites.
const outcome = (sample: number): fc.Arbitrary<SampleOutcome> =>
  fc.oneof(
    fc
      .record({
        code: fc.constantFrom('PROVIDER_TIMEOUT', 'PROVIDER_HTTP'),
        partial: fc.option(fc.record({ calls: fc.nat(5), redundant: fc.nat(2), errors: fc.nat(2), tokens: fc.nat(500) }), { nil: undefined }),
      })
      .map(({ code, partial }) => {
        const out = { status: 'errored' as const, sample, error: { code, message: 'down' }, elapsedMs: 5 } as Extract<SampleOutcome, { status: 'errored' }>;
        if (partial) {
          // A provider failed mid-run: the calls it made still count.
          out.partial = {
            caseId: 'c',
            sample,
            dialect: 'replio',
            pass: false,
            category: 'error',
            reason: '',
            expected: {},
            observed: {},
            jsonDump: false,
            status: 'error',
            calls: [],
            replio: {
              trace: [],
              names: [],
              accuracy: null,
              pass: null,
              tokens: 0,
              status: 'error',
              calls: partial.calls,
              redundant: partial.redundant,
              errors: partial.errors,
            },
          } as unknown as Verdict;
          out.tokens = partial.tokens;
        }
        return out;
      }),
    fc
      .record({
        pass: fc.boolean(),
        category: fc.constantFrom(...VERDICT_CATEGORIES),
        jsonDump: fc.boolean(),
        tokens: fc.nat(1000),
        replio: fc.option(fc.record({ accuracy: fc.option(fc.constantFrom(0, 1)), calls: fc.nat(5), redundant: fc.nat(2), errors: fc.nat(2) }), {
          nil: undefined,
        }),
        score: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      })
      .map(({ pass, category, jsonDump, tokens, replio, score }) => {
        const verdict = {
          caseId: 'c',
          sample,
          dialect: 'runspec',
          pass,
          category,
          reason: '',
          expected: {},
          observed: {},
          jsonDump,
          status: 'ok',
          calls: [],
        } as unknown as Verdict;
        if (replio) verdict.replio = { trace: [], names: [], pass: null, tokens: 0, status: 'ok', ...replio };
        if (score !== undefined) verdict.match = { matchMode: 'exact', pass, score, matched: [], unmatched: [], extraTools: [], detail: '' };
        return { status: 'scored' as const, sample, verdict, elapsedMs: 5, tokens };
      }),
  );

const caseResult = (i: number): fc.Arbitrary<CaseResult> =>
  fc
    .record({
      n: fc.nat(3),
      tags: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }),
      suite: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
      passRate: fc.double({ min: 0, max: 1, noNaN: true }),
      meetsThreshold: fc.boolean(),
    })
    .chain(({ n, tags, suite, passRate, meetsThreshold }) =>
      fc.tuple(...Array.from({ length: n }, (_, s) => outcome(s))).map((samples) => ({
        caseId: `case-${i}`,
        dialect: 'runspec' as const,
        tags,
        ...(suite ? { suite } : {}),
        samples,
        passRate,
        passRateLow: 0,
        passRateHigh: 1,
        passAtK: 0,
        passHatK: 0,
        passK: [],
        threshold: 0.5,
        meetsThreshold,
        errored: samples.some((s) => s.status === 'errored'),
      })),
    );

const suite = fc.nat(12).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => caseResult(i))));

/** The counts a summary must show, written out over the whole list. */
function counted(results: CaseResult[], threshold: number | undefined) {
  const samples = results.flatMap((r) => r.samples);
  const scored = samples.flatMap((s) => (s.status === 'scored' ? [s] : []));
  const judged = scored.filter((s) => isJudged(s));
  const meets = (r: CaseResult): boolean =>
    threshold === undefined ? r.meetsThreshold : r.samples.some((s) => isJudged(s)) && meetsThreshold(r.passRate, threshold);
  const byTag: Record<string, number> = {};
  for (const r of results) for (const t of new Set(r.tags)) byTag[t] = (byTag[t] ?? 0) + 1;
  return {
    cases: results.length,
    samples: samples.length,
    scoredSamples: judged.length,
    passedSamples: judged.filter((s) => s.verdict.pass).length,
    erroredSamples: samples.length - scored.length,
    unscorableSamples: scored.length - judged.length,
    casesMeetingThreshold: results.filter(meets).length,
    errored: results.filter((r) => r.samples.some((s) => s.status === 'errored')).length,
    tokens: judged.reduce((n, s) => n + s.tokens, 0) + samples.reduce((n, s) => n + (s.status === 'errored' && s.partial ? (s.tokens ?? 0) : 0), 0),
    jsonDumps: judged.filter((s) => s.verdict.jsonDump).length,
    byCategory: Object.fromEntries(VERDICT_CATEGORIES.map((c) => [c, scored.filter((s) => s.verdict.category === c).length])),
    byTagCases: byTag,
  };
}

describe('summary accumulator', () => {
  it.each([
    { name: 'each case its own threshold', threshold: undefined },
    { name: 're-judged at 0.6', threshold: 0.6 },
  ])('counts what the cases hold, one at a time as summarize does ($name)', ({ threshold }) => {
    fc.assert(
      fc.property(suite, (results) => {
        const opts = threshold === undefined ? {} : { threshold };
        const acc = createSummaryAccumulator(opts);
        for (const r of results) acc.add(r);
        const got = acc.summary();
        const { byTagCases, ...want } = counted(results, threshold);
        expect(got).toMatchObject(want);
        expect(Object.fromEntries(Object.entries(got.byTag).map(([k, g]) => [k, g.cases]))).toEqual(byTagCases);
        expect(Object.keys(got.byTag)).toEqual(Object.keys(byTagCases).sort());
        expect(summarize(results, opts)).toEqual(got);
      }),
      { numRuns: 200 },
    );
  });
});
