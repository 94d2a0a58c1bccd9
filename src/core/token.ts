// Checking a shared secret a client sent (receiver bearer tokens, the console's session token).
import { timingSafeEqual } from 'node:crypto';

/**
 * Whether the secret a client sent equals the expected one, compared in constant time (a wrong guess
 * takes as long however many leading bytes it got right).
 * @example sameSecret('abc', 'abc') // true
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether an Authorization value is `Bearer TOKEN` for `token`: the scheme is case-insensitive
 * (RFC 7235 section 2.1: "bearer", "BEARER"), the token is compared exactly, in constant time.
 * @example isBearerToken('bearer s3cret', 's3cret') // true
 */
export function isBearerToken(authorization: string | undefined, token: string): boolean {
  const m = /^bearer(\s+)(.*)$/is.exec(authorization ?? '');
  return m !== null && m[1] === ' ' && sameSecret(m[2] ?? '', token);
}
