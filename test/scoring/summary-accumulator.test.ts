import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSummaryAccumulator, summarize } from '../../src/scoring/summary.js';
import { VERDICT_CATEGORIES, type CaseResult, type SampleOutcome, type Verdict } from '../../src/types/index.js';

// The run folds case results into the summary one at a time (it keeps none of them); summarize takes
// them all at once. They are two codings of one definition: any difference is a bug in one of them.
const outcome = (sample: number): fc.Arbitrary<SampleOutcome> =>
  fc.oneof(
    fc
      .record({ code: fc.constantFrom('PROVIDER_TIMEOUT', 'PROVIDER_HTTP'), partial: fc.option(fc.record({ calls: fc.nat(5), redundant: fc.nat(2), errors: fc.nat(2), tokens: fc.nat(500) }), { nil: undefined }) })
      .map(({ code, partial }) => {
        const out = { status: 'errored' as const, sample, error: { code, message: 'down' }, elapsedMs: 5 } as Extract<SampleOutcome, { status: 'errored' }>;
        if (partial) {
          // A provider failed mid-run: the calls it made still count.
          out.partial = { caseId: 'c', sample, dialect: 'replio', pass: false, category: 'error', reason: '', expected: {}, observed: {}, jsonDump: false, status: 'error', calls: [], replio: { trace: [], names: [], accuracy: null, pass: null, tokens: 0, status: 'error', calls: partial.calls, redundant: partial.redundant, errors: partial.errors } } as unknown as Verdict;
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
        replio: fc.option(fc.record({ accuracy: fc.option(fc.constantFrom(0, 1)), calls: fc.nat(5), redundant: fc.nat(2), errors: fc.nat(2) }), { nil: undefined }),
        score: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      })
      .map(({ pass, category, jsonDump, tokens, replio, score }) => {
        const verdict = { caseId: 'c', sample, dialect: 'runspec', pass, category, reason: '', expected: {}, observed: {}, jsonDump, status: 'ok', calls: [] } as unknown as Verdict;
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
        threshold: 0.5,
        meetsThreshold,
        errored: samples.some((s) => s.status === 'errored'),
      })),
    );

const suite = fc.nat(12).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => caseResult(i))));

describe('summary accumulator', () => {
  it.each([{ name: 'each case its own threshold', threshold: undefined }, { name: 're-judged at 0.6', threshold: 0.6 }])('equals summarize over the same cases ($name)', ({ threshold }) => {
    fc.assert(
      fc.property(suite, (results) => {
        const acc = createSummaryAccumulator(threshold === undefined ? {} : { threshold });
        for (const r of results) acc.add(r);
        expect(acc.summary()).toEqual(summarize(results, threshold === undefined ? {} : { threshold }));
      }),
      { numRuns: 200 },
    );
  });
});
