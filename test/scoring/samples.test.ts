import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateCase, passAtK, passHatK, wilsonInterval } from '../../src/scoring/index.js';
import type { SampleOutcome, Verdict } from '../../src/types/index.js';
import { makeCase } from './_build.js';
import { caseEntryOf } from '../../src/report/results.js';

function scored(sample: number, pass: boolean, extra: Partial<Verdict> = {}): SampleOutcome {
  const verdict: Verdict = {
    caseId: 'case',
    sample,
    dialect: 'runspec',
    pass,
    category: pass ? 'pass' : 'wrong_tool',
    reason: pass ? 'ok' : 'expected a, got b',
    expected: {},
    observed: {},
    jsonDump: false,
    status: 'ok',
    calls: [],
    ...extra,
  };
  return { status: 'scored', sample, verdict, elapsedMs: 1000, tokens: 10 };
}
const errored = (sample: number): SampleOutcome => ({ status: 'errored', sample, error: { code: 'PROVIDER', message: 'down' }, elapsedMs: 5 });

describe('wilsonInterval', () => {
  it('matches the textbook values', () => {
    const { low, high } = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 4);
    expect(high).toBeCloseTo(0.9433, 4);
    expect(wilsonInterval(0, 10).low).toBe(0);
    expect(wilsonInterval(10, 10).high).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it('always contains the observed rate and stays in [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.nat(), (n, x) => {
        const passes = x % (n + 1);
        const { low, high } = wilsonInterval(passes, n);
        expect(low).toBeGreaterThanOrEqual(0);
        expect(high).toBeLessThanOrEqual(1);
        expect(low).toBeLessThanOrEqual(passes / n + 1e-12);
        expect(high).toBeGreaterThanOrEqual(passes / n - 1e-12);
      }),
    );
  });
});

describe('passAtK and passHatK', () => {
  it('agree with the closed forms', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3);
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 3, 3)).toBe(1);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5);
    expect(passHatK(4, 3, 2)).toBeCloseTo(0.5);
    expect(passHatK(3, 3, 3)).toBe(1);
    expect(passHatK(3, 2, 3)).toBe(0);
    expect(passAtK(3, 4, 1)).toBeNaN();
  });

  it('carry no float noise into the results JSON (0.4, not 0.3999999999999999)', () => {
    expect(passAtK(5, 2, 1)).toBe(0.4);
    expect(passAtK(5, 2, 2)).toBe(0.7);
    expect(passHatK(5, 2, 2)).toBe(0.1);
    const r = aggregateCase(
      makeCase({ id: 'k' }),
      [0, 1, 2, 3, 4].map((i) => scored(i, i < 2)),
      { threshold: 0.5, passK: [1, 2, 3] },
    );
    const json = JSON.stringify(caseEntryOf(r));
    expect(json).toContain('{"k":1,"pass_at":0.4,"pass_hat":0.4}');
    expect(json).toContain('{"k":2,"pass_at":0.7,"pass_hat":0.1}');
    expect(JSON.stringify(caseEntryOf(r).pass_k)).not.toMatch(/\d\.\d{13,}/);
  });

  it('pass^k ≤ pass rate ≤ pass@k, and k = 1 gives the pass rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.nat(), fc.nat(), (n, x, y) => {
        const c = x % (n + 1);
        const k = 1 + (y % n);
        expect(passHatK(n, c, k)).toBeLessThanOrEqual(c / n + 1e-9);
        expect(passAtK(n, c, k)).toBeGreaterThanOrEqual(c / n - 1e-9);
        expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 9);
        expect(passHatK(n, c, 1)).toBeCloseTo(c / n, 9);
      }),
    );
  });
});

describe('aggregateCase', () => {
  const c = makeCase({ id: 'restart', suite: 'fleet', tags: ['ops'] });

  it('computes pass rate, interval, pass@k and pass^k over scored samples', () => {
    const r = aggregateCase(c, [scored(0, true), scored(1, false), scored(2, true)], { threshold: 0.6 });
    expect(r).toMatchObject({
      caseId: 'restart',
      suite: 'fleet',
      tags: ['ops'],
      passRate: 2 / 3,
      passAtK: 1,
      passHatK: 0,
      threshold: 0.6,
      meetsThreshold: true,
      errored: false,
    });
    expect(r.passRateLow).toBeCloseTo(wilsonInterval(2, 3).low);
  });

  it('counts errored samples apart, never as failures', () => {
    const r = aggregateCase(c, [scored(0, true), errored(1), scored(2, true)], { threshold: 1 });
    expect(r.passRate).toBe(1);
    expect(r.meetsThreshold).toBe(true);
    expect(r.errored).toBe(true);
  });

  it('cannot meet the threshold with no scored sample', () => {
    const r = aggregateCase(c, [errored(0)], { threshold: 0 });
    expect(r).toMatchObject({ passRate: 0, meetsThreshold: false, errored: true, passAtK: 0, passHatK: 0 });
  });

  it("lets the case's own threshold win over the run's", () => {
    const strict = makeCase({ id: 'x', settings: { threshold: 1 } });
    expect(aggregateCase(strict, [scored(0, true), scored(1, false)], { threshold: 0.5 })).toMatchObject({ threshold: 1, meetsThreshold: false });
  });

  it('meets a threshold written with fewer digits than the rate (2/3 vs 0.6666666667)', () => {
    expect(aggregateCase(c, [scored(0, true), scored(1, false), scored(2, true)], { threshold: 0.6666666667 }).meetsThreshold).toBe(true);
  });

  it('averages the turnstone match score when samples have one, and sorts samples', () => {
    const m = (score: number) => ({
      match: { matchMode: 'subset' as const, pass: score === 1, score, matched: [], unmatched: [], extraTools: [], detail: '' },
    });
    const r = aggregateCase(c, [scored(1, false, m(0.5)), scored(0, true, m(1))], { threshold: 1 });
    expect(r.avgScore).toBe(0.75);
    expect(r.samples.map((s) => s.sample)).toEqual([0, 1]);
    expect(aggregateCase(c, [scored(0, true)], { threshold: 1 }).avgScore).toBeUndefined();
  });
});

export { scored, errored };
