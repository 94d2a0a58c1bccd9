// One tolerant normal form: what tolerantEquals calls equal hashes alike (scoring/arg-hash.ts), and only that.
import { describe, expect, it } from 'vitest';
import { decimalKey, tolerantEquals } from '../../src/core/equality.js';
import { tolerantCanonical } from '../../src/scoring/arg-hash.js';

const PAIRS: Array<[unknown, unknown]> = [
  // "007" and "7" used to hash alike while tolerantEquals called them different.
  ['007', '7'],
  ['007', 7],
  ['3.0', '3'],
  ['1.50e2', 150],
  [' Prod ', 'prod'],
  ['true', true],
  ['TRUE', 'true'],
  [null, undefined],
  ['', 0],
  ['abc', 'ABC '],
  ['12345678901234567890', '12345678901234567891'],
  ['-0', '0'],
  [
    [1, '2'],
    ['1', 2],
  ],
  [{ a: '1', b: undefined }, { a: 1 }],
  [{ a: 1 }, { a: 1, b: 2 }],
  ['1', true],
  [1, '1e0'],
  ['0x10', '16'],
];

describe('tolerant equality and its normal form', () => {
  it.each(PAIRS)('%j ~ %j: equal exactly when the normal forms are', (a, b) => {
    expect(tolerantEquals(a, b)).toBe(tolerantEquals(b, a));
    expect(tolerantCanonical(a) === tolerantCanonical(b)).toBe(tolerantEquals(a, b));
  });

  it('keys decimals exactly', () => {
    expect(decimalKey('007')).toBe('7e0');
    expect(decimalKey('1.50e2')).toBe('15e1');
    expect(decimalKey('-0.000')).toBe('0e0');
    expect(decimalKey('12345678901234567891')).not.toBe(decimalKey('12345678901234567890'));
    expect(decimalKey('')).toBeUndefined();
  });
});
