import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchArg, matchArgs, tolerantEquals } from '../../src/scoring/index.js';
import type { ArgExpectation } from '../../src/types/case.js';
import { RE2JS } from 're2js';

describe('matchArg', () => {
  it.each([
    { name: 'a numeric string matches a number', expected: { kind: 'equals', value: 3 } as const, actual: '3', ok: true },
    { name: 'a number matches a numeric string', expected: { kind: 'equals', value: '3' } as const, actual: 3, ok: true },
    { name: 'strings compare trimmed and case-insensitively', expected: { kind: 'equals', value: 'Prod' } as const, actual: '  prod ', ok: true },
    { name: '"true" matches true', expected: { kind: 'equals', value: true } as const, actual: 'True', ok: true },
    { name: 'different numbers do not match', expected: { kind: 'equals', value: 3 } as const, actual: '4', ok: false },
    { name: 'arrays compare element-wise', expected: { kind: 'equals', value: ['a', 1] } as const, actual: ['A', '1'], ok: true },
    { name: 'objects need the same keys', expected: { kind: 'equals', value: { a: 1 } } as const, actual: { a: 1, b: 2 }, ok: false },
    { name: 'one_of accepts any listed value', expected: { kind: 'one_of', values: ['MX', 'AAAA'] } as const, actual: 'mx', ok: true },
    { name: 'one_of rejects an unlisted value', expected: { kind: 'one_of', values: ['MX', 'AAAA'] } as const, actual: 'A', ok: false },
    { name: 'regex searches anywhere in the value', expected: { kind: 'regex', pattern: 'example\\.com$' } as const, actual: 'www.example.com', ok: true },
    { name: 'regex applies to numbers as text', expected: { kind: 'regex', pattern: '^4\\d\\d$' } as const, actual: 443, ok: true },
    { name: 'absent passes when the key is missing', expected: { kind: 'absent' } as const, actual: undefined, ok: true },
    { name: 'absent fails when the key is present', expected: { kind: 'absent' } as const, actual: false, ok: false },
  ])('$name', ({ expected, actual, ok }) => {
    expect(matchArg(expected as ArgExpectation, actual).ok).toBe(ok);
  });

  it('says what was expected and what was seen', () => {
    expect(matchArg({ kind: 'equals', value: 3 }, '4').reason).toBe('expected 3, got "4"');
    expect(matchArg({ kind: 'one_of', values: ['MX', 'mx'] }, 'A').reason).toBe('expected one of ["MX","mx"], got "A"');
    expect(matchArg({ kind: 'regex', pattern: '^a' }, 'b').reason).toBe('expected a match for /^a/, got "b"');
    expect(matchArg({ kind: 'absent' }, 'x').reason).toBe('expected no value (absent), got "x"');
    expect(matchArg({ kind: 'equals', value: 'nginx' }, undefined, { present: false }).reason).toBe('missing (expected "nginx")');
  });

  it('tells a JSON null apart from a missing key', () => {
    expect(matchArg({ kind: 'absent' }, null, { present: true }).ok).toBe(false);
    expect(matchArg({ kind: 'absent' }, undefined, { present: false }).ok).toBe(true);
  });

  it('reports an invalid pattern as a failed match instead of throwing', () => {
    const r = matchArg({ kind: 'regex', pattern: '(' }, 'x');
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/invalid pattern/);
  });

  it('runs a catastrophic-backtracking pattern in linear time (re2js)', () => {
    const r = matchArg({ kind: 'regex', pattern: '^(a+)+$' }, `${'a'.repeat(5000)}!`);
    expect(r.ok).toBe(false);
  });
});

describe('matchArgs', () => {
  it('checks that the expected keys are a subset of the observed ones', () => {
    const r = matchArgs({ service: { kind: 'equals', value: 'nginx' } }, { service: 'nginx', extra: true });
    expect(r).toEqual({ ok: true, failures: [] });
  });

  it('lists every failing argument', () => {
    const r = matchArgs({ replicas: { kind: 'equals', value: 3 }, env: { kind: 'equals', value: 'prod' } }, { replicas: 4 });
    expect(r.failures).toEqual([
      { arg: 'replicas', reason: 'expected 3, got 4' },
      { arg: 'env', reason: 'missing (expected "prod")' },
    ]);
  });
});

describe('matcher properties', () => {
  const scalar = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.constant(null));

  it('tolerant equals is symmetric for numbers and strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.integer(), fc.string(), fc.integer().map(String), fc.double().map(String)),
        fc.oneof(fc.double(), fc.integer(), fc.string(), fc.integer().map(String)),
        (a, b) => {
          expect(tolerantEquals(a, b)).toBe(tolerantEquals(b, a));
        },
      ),
    );
  });

  it('tolerant equals is reflexive, also through the string form of a number', () => {
    fc.assert(
      fc.property(scalar, (a) => {
        expect(tolerantEquals(a, a)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expect(tolerantEquals(n, String(n))).toBe(true);
        expect(tolerantEquals(n, ` ${n} `)).toBe(true);
      }),
    );
  });

  it('tolerant equals ignores case and surrounding space of strings', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('', ' ', '\t'), (s, pad) => {
        expect(tolerantEquals(s, `${pad}${s.toUpperCase()}${pad}`)).toBe(s.toUpperCase().toLowerCase() === s.toLowerCase());
      }),
    );
  });

  it('one_of with a single value agrees with equals', () => {
    fc.assert(
      fc.property(scalar, scalar, (expected, actual) => {
        expect(matchArg({ kind: 'one_of', values: [expected] }, actual).ok).toBe(matchArg({ kind: 'equals', value: expected }, actual).ok);
      }),
    );
  });

  it('a quoted literal regex always finds the string it quotes', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (before, s, after) => {
        expect(matchArg({ kind: 'regex', pattern: RE2JS.quote(s) }, `${before}${s}${after}`).ok).toBe(true);
      }),
    );
  });

  it('absent and equals never both pass for the same key', () => {
    fc.assert(
      fc.property(scalar, fc.boolean(), (value, present) => {
        const absent = matchArg({ kind: 'absent' }, present ? value : undefined, { present });
        const equals = matchArg({ kind: 'equals', value }, present ? value : undefined, { present });
        expect(absent.ok && equals.ok).toBe(false);
      }),
    );
  });
});
