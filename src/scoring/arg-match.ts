// Argument matchers shared by the three dialects (runspec expect_args, replio verifier.args,
// turnstone expected_actions[].args). The expected keys are always a subset of the observed ones.
import type { ArgExpectation } from '../types/case.js';
import { canonicalJson, showValue } from '../core/canonical-json.js';
import { tolerantEquals } from '../core/equality.js';
import { regexSearch } from '../core/regex.js';

export { tolerantEquals } from '../core/equality.js';

/** The result of one matcher: `reason` says what was expected and what was seen when it fails. */
export interface ArgMatch {
  ok: boolean;
  reason?: string;
}

/** The text a regex is searched in: strings as they are, everything else as canonical JSON. */
export function argText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return canonicalJson(value);
}

/** A one-line description of an expectation, as reasons and reports show it. */
export function describeExpectation(expected: ArgExpectation): string {
  switch (expected.kind) {
    case 'equals':
      return showValue(expected.value);
    case 'one_of':
      return `one of ${showValue(expected.values)}`;
    case 'regex':
      return `a match for /${expected.pattern}/`;
    case 'absent':
      return 'no value (absent)';
  }
}

/**
 * Match one observed argument against one expectation.
 * `opts.present` says whether the key was passed at all (defaults to `actual !== undefined`), so a
 * JSON `null` can be told apart from a missing key.
 *
 * @example matchArg({ kind: 'one_of', values: ['MX', 'AAAA'] }, 'mx') // { ok: true }
 */
export function matchArg(expected: ArgExpectation, actual: unknown, opts: { present?: boolean } = {}): ArgMatch {
  const present = opts.present ?? actual !== undefined;
  if (expected.kind === 'absent') {
    return present ? { ok: false, reason: `expected no value (absent), got ${showValue(actual)}` } : { ok: true };
  }
  const want = describeExpectation(expected);
  if (!present) return { ok: false, reason: `missing (expected ${want})` };
  switch (expected.kind) {
    case 'equals':
      return tolerantEquals(expected.value, actual) ? { ok: true } : { ok: false, reason: `expected ${want}, got ${showValue(actual)}` };
    case 'one_of':
      return expected.values.some((v) => tolerantEquals(v, actual))
        ? { ok: true }
        : { ok: false, reason: `expected ${want}, got ${showValue(actual)}` };
    case 'regex': {
      const found = regexSearch(expected.pattern, argText(actual));
      if (found.error) return { ok: false, reason: found.error };
      return found.ok ? { ok: true } : { ok: false, reason: `expected ${want}, got ${showValue(actual)}` };
    }
  }
}

/** One failing argument of a subset check. */
export interface ArgFailure {
  arg: string;
  reason: string;
}

/**
 * Subset check: every expected key must match the observed arguments; extra observed keys are allowed
 * (the direction is always expected ⊆ observed).
 */
export function matchArgs(
  expected: Record<string, ArgExpectation>,
  actual: Record<string, unknown>,
  opts: { skip?: readonly string[] } = {},
): { ok: boolean; failures: ArgFailure[] } {
  const failures: ArgFailure[] = [];
  for (const [arg, expectation] of Object.entries(expected)) {
    if (opts.skip?.includes(arg)) continue;
    const present = Object.hasOwn(actual, arg) && actual[arg] !== undefined;
    const result = matchArg(expectation, present ? actual[arg] : undefined, { present });
    if (!result.ok) failures.push({ arg, reason: result.reason ?? 'did not match' });
  }
  return { ok: failures.length === 0, failures };
}

/** `arg replicas: expected 3, got "4"; arg env: missing (expected "prod")`. */
export function describeArgFailures(failures: readonly ArgFailure[]): string {
  return failures.map((f) => `arg ${f.arg}: ${f.reason}`).join('; ');
}
