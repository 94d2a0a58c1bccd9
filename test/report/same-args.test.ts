import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sameArgs } from '../../src/report/results-encode.js';

// sameArgs answers plain JSON data itself and must say what `a === b || isDeepStrictEqual(a, b)` (what it
// was) says, always.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function value(r: () => number, depth: number): unknown {
  const leaves = [0, -0, 1, 1.5, NaN, '', 'a', '1', true, false, null, undefined];
  const k = r();
  if (depth > 3 || k < 0.45) return leaves[Math.floor(r() * leaves.length)];
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1));
  if (k < 0.95) {
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(r() * 3); i > 0; i--) o[['a', 'b', 'c'][Math.floor(r() * 3)]!] = value(r, depth + 1);
    return o;
  }
  const holey: unknown[] = [];
  holey[1] = 1; // [ <hole>, 1 ]
  return [new Date(0), Object.create(null), new Map(), Object.assign([1], { x: 1 }), holey][Math.floor(r() * 5)];
}

/** A variant of `v`: often equal (a deep copy with keys reordered), sometimes changed somewhere. */
function variant(v: unknown, r: () => number): unknown {
  if (r() < 0.1) return value(r, 2);
  if (Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype && Object.keys(v).length === v.length) return v.map((x) => variant(x, r));
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const entries = Object.entries(v).map(([k, x]) => [k, variant(x, r)] as const);
    if (r() < 0.5) entries.reverse();
    return Object.fromEntries(entries);
  }
  return v;
}

describe('sameArgs', () => {
  it('agrees with === or isDeepStrictEqual on generated values', () => {
    const r = rng(31);
    let equal = 0;
    for (let n = 0; n < 20_000; n++) {
      const a = value(r, 0);
      const b = r() < 0.7 ? variant(a, r) : value(r, 0);
      const want = a === b || isDeepStrictEqual(a, b);
      if (want) equal++;
      expect(sameArgs(a, b), `${String(JSON.stringify(a))} vs ${String(JSON.stringify(b))}`).toBe(want);
    }
    expect(equal).toBeGreaterThan(2000);
  });

  it('tells -0 from 0 and NaN from nothing, as isDeepStrictEqual does', () => {
    expect(sameArgs({ a: -0 }, { a: 0 })).toBe(false);
    expect(sameArgs([NaN], [NaN])).toBe(true);
    expect(sameArgs({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameArgs({ a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'x' }] } })).toBe(true);
  });
});
