// Hashed argument capture: per argument, HMAC-SHA-256 (key from RUNSPEC_HASH_KEY, read by config/) of the
// value in the tolerant-canonical form the scorer compares, so equality and `$one_of` expectations can be
// re-checked offline with the same key while no value leaves the process. Regex expectations need the
// value itself and stay not checkable under hashing.
//
// Canonical form: core/equality.ts `tolerantNormalForm` (one owner with tolerantEquals: what compares equal
// hashes alike, "007", "7" and 7 included), as canonical JSON.
import { createHash, createHmac } from 'node:crypto';
import type { ArgExpectation } from '../types/case.js';
import { canonicalJson } from '../core/canonical-json.js';
import { tolerantNormalForm } from '../core/equality.js';

/**
 * The tolerant-canonical text of a value: what is hashed.
 * @example tolerantCanonical(' Prod ') === tolerantCanonical('prod') // true
 */
export function tolerantCanonical(value: unknown): string {
  return canonicalJson(tolerantNormalForm(value));
}

/** HMAC-SHA-256 (hex) of a value's tolerant-canonical form. */
export function argumentHash(key: string, value: unknown): string {
  return createHmac('sha256', key).update(tolerantCanonical(value)).digest('hex');
}

/** Every argument's hash, keyed by argument name. */
export function hashArguments(key: string, args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) if (value !== undefined) out[name] = argumentHash(key, value);
  return out;
}

let lastFingerprint: { key: string; fingerprint: string } | undefined;

/**
 * A fingerprint of the key itself (HMAC of a fixed text, 16 hex), recorded beside the hashes so a re-score
 * with another key says so instead of reporting every argument as different.
 */
export function keyFingerprint(key: string): string {
  // One key per process in practice, and every hashed call is checked against it: keep the last one.
  if (lastFingerprint?.key !== key) {
    lastFingerprint = { key, fingerprint: createHmac('sha256', key).update('runspec-eval argument hash key check').digest('hex').slice(0, 16) };
  }
  return lastFingerprint.fingerprint;
}

/**
 * A short fingerprint of a case's argument expectations (SHA-256 of their canonical JSON, 16 hex), recorded on
 * our traces so a re-score can prove the expectations are unchanged and reuse the recorded argument verdict.
 */
export function expectationsHash(args: Record<string, ArgExpectation>): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, 16);
}
