// Canonical JSON: the one way we turn a value into text for comparing, hashing and showing it.
import { cutText } from './cut.js';

/** Nesting below this depth is serialised as it is (keys unsorted), bounding work on hostile trace content. */
const MAX_SORT_DEPTH = 64;

/**
 * JSON with object keys sorted at every level, so `{a, b}` and `{b, a}` are the same text (equal calls,
 * equal request hashes). Keys whose value is `undefined` are dropped (as `JSON.stringify` does);
 * `undefined` itself becomes `"null"`, so the result is always a string.
 *
 * @example canonicalJson({ b: 1, a: [ { d: 2, c: 3 } ] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

/** A copy of `value` with object keys sorted at every level and `undefined` members dropped. */
export function sortKeys(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_SORT_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of sortedKeys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v, depth + 1);
  }
  return out;
}

/** Own enumerable keys in sort order (a sort allocates even when they are in order already). */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  return inOrder(keys) ? keys : keys.sort();
}

function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

/** A value as a short, one-line string for reasons: strings quoted, long values cut. */
export function showValue(value: unknown, maxChars = 80): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return cutText(text, maxChars);
}
