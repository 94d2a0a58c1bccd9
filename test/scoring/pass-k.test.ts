import { describe, expect, it } from 'vitest';
import { aggregateCase, evaluateGate, passKValues } from '../../src/scoring/index.js';
import { parseGate } from '../../src/fixtures/gate.js';
import type { SampleOutcome, Verdict } from '../../src/types/index.js';
import { makeCase } from './_build.js';

function scored(sample: number, pass: boolean): SampleOutcome {
  const verdict: Verdict = {
    caseId: 'case',
    sample,
    dialect: 'runspec',
    pass,
    category: pass ? 'pass' : 'wrong_tool',
    reason: '',
    expected: {},
    observed: {},
    jsonDump: false,
    status: 'ok',
    calls: [],
  };
  return { status: 'scored', sample, verdict, elapsedMs: 1, tokens: 1 };
}
const errored = (sample: number): SampleOutcome => ({ status: 'errored', sample, error: { code: 'PROVIDER', message: 'down' }, elapsedMs: 1 });

describe('pass@k / pass^k for k < n (hand-computed)', () => {
  // n = 5, c = 2: pass@1 = 2/5; pass@3 = 1 − C(3,3)/C(5,3) = 1 − 1/10; pass@4 = 1 − 0/5 = 1;
  // pass^1 = 2/5; pass^2 = C(2,2)/C(5,2) = 1/10; pass^3 = 0.
  it.each([
    { name: 'n=5 c=2 k=1', n: 5, c: 2, k: 1, at: 0.4, hat: 0.4 },
    { name: 'n=5 c=2 k=2', n: 5, c: 2, k: 2, at: 1 - 3 / 10, hat: 1 / 10 },
    { name: 'n=5 c=2 k=3', n: 5, c: 2, k: 3, at: 0.9, hat: 0 },
    { name: 'n=5 c=2 k=4', n: 5, c: 2, k: 4, at: 1, hat: 0 },
    // n = 10, c = 7, k = 3: pass@3 = 1 − C(3,3)/C(10,3) = 1 − 1/120; pass^3 = C(7,3)/C(10,3) = 35/120.
    { name: 'n=10 c=7 k=3', n: 10, c: 7, k: 3, at: 119 / 120, hat: 35 / 120 },
    // n = 4, c = 3, k = 2: pass@2 = 1 − C(1,2)/C(4,2) = 1; pass^2 = C(3,2)/C(4,2) = 3/6.
    { name: 'n=4 c=3 k=2', n: 4, c: 3, k: 2, at: 1, hat: 0.5 },
    // n = 6, c = 1, k = 2: pass@2 = 1 − C(5,2)/C(6,2) = 1 − 10/15.
    { name: 'n=6 c=1 k=2', n: 6, c: 1, k: 2, at: 1 - 10 / 15, hat: 0 },
  ])('$name', ({ n, c, k, at, hat }) => {
    const [v] = passKValues(n, c, [k]);
    expect(v!.k).toBe(k);
    expect(v!.passAt).toBeCloseTo(at, 12);
    expect(v!.passHat).toBeCloseTo(hat, 12);
  });

  it('gives null where k exceeds the scored samples, and sorts and dedupes k', () => {
    expect(passKValues(2, 1, [5, 1, 1])).toEqual([
      { k: 1, passAt: 0.5, passHat: 0.5 },
      { k: 5, passAt: null, passHat: null },
    ]);
  });
});

describe('gates', () => {
  it.each([
    { text: 'pass@3 >= 0.9', want: { metric: 'pass@k', k: 3, op: '>=', value: 0.9, text: 'pass@3 >= 0.9' } },
    { text: 'pass^2>0.5', want: { metric: 'pass^k', k: 2, op: '>', value: 0.5, text: 'pass^2 > 0.5' } },
    { text: ' pass_rate <= 1 ', want: { metric: 'pass_rate', op: '<=', value: 1, text: 'pass_rate <= 1' } },
  ])('parses $text', ({ text, want }) => {
    expect(parseGate(text)).toEqual(want);
  });

  it.each(['pass@0 >= 0.5', 'pass@3 >= 1.5', 'pass@3 => 0.9', 'pass@k >= 0.9', 'accuracy >= 0.9', ''])('rejects %j', (text) => {
    expect(parseGate(text)).toBeUndefined();
  });

  it('meets pass@3 >= 0.9 with 2 passes of 5 (pass@3 = 0.9 exactly)', () => {
    expect(evaluateGate(parseGate('pass@3 >= 0.9')!, 5, 2)).toEqual({ text: 'pass@3 >= 0.9', value: expect.closeTo(0.9, 12), met: true });
    expect(evaluateGate(parseGate('pass@3 > 0.9')!, 5, 2).met).toBe(false);
  });

  it('is not met when fewer than k samples were scored', () => {
    expect(evaluateGate(parseGate('pass@3 >= 0.1')!, 2, 2)).toEqual({ text: 'pass@3 >= 0.1', value: null, met: false });
  });
});

describe('aggregateCase with k and a gate', () => {
  it('leaves errored samples out of n and lets the case gate replace the threshold', () => {
    const c = makeCase({ settings: { gate: parseGate('pass^2 >= 0.5')! } });
    // 4 scored (3 pass) + 1 errored: n = 4, c = 3 → pass^2 = 0.5, pass@2 = 1; the threshold 1.0 would fail.
    const r = aggregateCase(c, [scored(0, true), scored(1, true), errored(2), scored(3, false), scored(4, true)], { threshold: 1, passK: [1, 2] });
    expect(r.passK).toEqual([
      { k: 1, passAt: 0.75, passHat: 0.75 },
      { k: 2, passAt: 1, passHat: 0.5 },
    ]);
    expect(r.gate).toEqual({ text: 'pass^2 >= 0.5', value: 0.5, met: true });
    expect(r.meetsThreshold).toBe(true);
  });

  it('uses the --gate of cases without their own and adds its k to the reported list', () => {
    const r = aggregateCase(makeCase({}), [scored(0, true), scored(1, false), scored(2, false)], { threshold: 0, gate: parseGate('pass@2 >= 0.9')! });
    // n = 3, c = 1: pass@2 = 1 − C(2,2)/C(3,2) = 2/3 < 0.9.
    expect(r.passK).toEqual([{ k: 2, passAt: expect.closeTo(2 / 3, 12), passHat: 0 }]);
    expect(r.meetsThreshold).toBe(false);
  });

  it('keeps the threshold check and reports no k when neither is asked for', () => {
    const r = aggregateCase(makeCase({}), [scored(0, true)], { threshold: 1 });
    expect(r.passK).toEqual([]);
    expect(r.gate).toBeUndefined();
    expect(r.meetsThreshold).toBe(true);
  });
});
