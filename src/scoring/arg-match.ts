// Argument matchers shared by the three dialects (runspec expect_args, replio verifier.args,
// turnstone expected_actions[].args). The expected keys are always a subset of the observed ones.
import type { ArgExpectation, CallsEquality } from '../types/case.js';
import type { ToolCall } from '../types/run.js';
import type { CheckResult } from '../types/verdict.js';
import { canonicalJson, showValue } from '../core/canonical-json.js';
import { tolerantEquals, valuesEqual } from '../core/equality.js';
import { isRecord } from '../core/is-record.js';
import { regexSearch } from '../core/regex.js';
import { argumentHash, keyFingerprint } from './arg-hash.js';

export { tolerantEquals } from '../core/equality.js';

/** The result of one matcher: `reason` says what was expected and what was seen when it fails. */
export interface ArgMatch {
  ok: boolean;
  reason?: string;
}

/** Arguments the provider adapter could not parse: `{ _raw: text }` (the turnstone `_raw` rule). */
export function isUnparsedArgs(args: Record<string, unknown> | undefined): args is Record<string, unknown> & { _raw: unknown } {
  const keys = args ? Object.keys(args) : [];
  return keys.length === 1 && keys[0] === '_raw';
}

/** The text a regex is searched in: strings as they are, everything else as canonical JSON. */
export function argText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return canonicalJson(value);
}

// An expectation is worded once: a case's expectations are judged once per sample, and equal ones are shared
// among the cases of a file.
const described = new WeakMap<ArgExpectation, string>();

/** A one-line description of an expectation, as reasons and reports show it. */
export function describeExpectation(expected: ArgExpectation): string {
  let text = described.get(expected);
  if (text === undefined) {
    text = wordExpectation(expected);
    described.set(expected, text);
  }
  return text;
}

function wordExpectation(expected: ArgExpectation): string {
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
      return expected.values.some((v) => tolerantEquals(v, actual)) ? { ok: true } : { ok: false, reason: `expected ${want}, got ${showValue(actual)}` };
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
  // Array.from, not `.map`: see validateCallArgs (`.join` on the holey array of an inlined `.map` deoptimised
  // checkTerminal once per run).
  return Array.from(failures, (f) => `arg ${f.arg}: ${f.reason}`).join('; ');
}

// ---- expected values as lists of acceptable ones (expect_calls): tolerant or BFCL's checker ----

/** The declared JSON Schema of one parameter, as far as the BFCL rules consult it. */
export interface ParamSchema {
  type?: unknown;
  items?: unknown;
}

/** JSON value equality, key order aside (Python's `==` on parsed JSON: 5 equals 5.0). */
function sameJson(a: unknown, b: unknown): boolean {
  return valuesEqual(a, b, 'strict');
}

/** BFCL compares a non-string value with each answer as is and a string after standardising both. */
function bfclScalarEquals(answer: unknown, value: unknown): boolean {
  return typeof value === 'string' ? typeof answer === 'string' && valuesEqual(answer, value, 'bfcl') : sameJson(answer, value);
}

function jsonTypeOf(schema: ParamSchema | undefined, acceptable: readonly unknown[]): string | undefined {
  const t = schema?.type;
  if (typeof t === 'string') return t;
  // No declared type: take the type of the first acceptable value, as BFCL's variable rule does.
  const sample = acceptable.find((v) => v !== '');
  if (sample === undefined) return undefined;
  if (typeof sample === 'string') return 'string';
  if (typeof sample === 'boolean') return 'boolean';
  if (typeof sample === 'number') return Number.isInteger(sample) ? 'integer' : 'number';
  if (Array.isArray(sample)) return 'array';
  if (isRecord(sample)) return 'object';
  return undefined;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      // BFCL accepts an int where a float is expected.
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true;
  }
}

/** BFCL's dict rule: every given key is expected and its value acceptable; a left-out key must be optional. */
function bfclDictMatches(actual: Record<string, unknown>, answer: unknown): boolean {
  if (!isRecord(answer)) return false;
  for (const [key, value] of Object.entries(actual)) {
    const allowed = answer[key];
    if (!Array.isArray(allowed)) return false;
    if (!allowed.some((a) => bfclScalarEquals(a, value))) return false;
  }
  for (const [key, allowed] of Object.entries(answer)) {
    if (!Object.hasOwn(actual, key) && !(Array.isArray(allowed) && allowed.includes(''))) return false;
  }
  return true;
}

/**
 * One argument under BFCL's checker rules (bfcl_eval ast_checker, read 2026): the value must have the
 * declared type (an int is accepted for a float; a value of the acceptable answers' own type is taken
 * as a variable and compared as is); strings and lists compare under the `bfcl` equality mode
 * (core/equality.ts: strings standardised, lists in order with string items standardised); dicts key by key against each acceptable dict (a key's
 * acceptable values are a list, `""` marks it optional); a list of dicts item by item.
 *
 * @example bfclArgMatch(['New York, NY'], 'new york ny', { type: 'string' }) // { ok: true }
 * @example bfclArgMatch([5.0], 5, { type: 'number' }) // { ok: true }
 */
export function bfclArgMatch(acceptable: readonly unknown[], actual: unknown, schema?: ParamSchema): ArgMatch {
  const want = `one of ${showValue(acceptable.filter((v) => v !== ''))}`;
  const type = jsonTypeOf(schema, acceptable);
  const bad = (why: string): ArgMatch => ({ ok: false, reason: `${why} (BFCL rules)` });
  if (type !== undefined && !hasType(actual, type)) {
    const sample = acceptable.find((v) => v !== '');
    const variable = sample !== undefined && typeof sample === typeof actual && Array.isArray(sample) === Array.isArray(actual);
    if (!variable) return bad(`expected type ${type}, got ${showValue(actual)}`);
    return acceptable.some((a) => sameJson(a, actual)) ? { ok: true } : bad(`expected ${want}, got ${showValue(actual)}`);
  }
  const items = isRecord(schema?.items) ? schema.items : undefined;
  if (type === 'array' && Array.isArray(actual) && typeof items?.type === 'string' && items.type !== 'object') {
    const itemType = items.type;
    // BFCL checks items one level deep, and its variable rule applies per item: an item may also have the
    // type of the first acceptable list's first item (so a list of names passes where numbers are declared
    // when the answer lists names).
    const itemsFit = (answer: unknown): boolean => {
      const sample = Array.isArray(answer) ? answer.find((v) => v !== '') : undefined;
      return actual.every((x) => hasType(x, itemType) || (sample !== undefined && typeof x === typeof sample && Array.isArray(x) === Array.isArray(sample)));
    };
    // As in BFCL, an acceptable value that is not a list (the optional marker "") does not constrain the items.
    if (!acceptable.some((a) => !Array.isArray(a) || itemsFit(a))) {
      return bad(`expected a list of ${itemType}, got ${showValue(actual)}`);
    }
  }
  let ok: boolean;
  if (type === 'object' && isRecord(actual)) {
    ok = acceptable.some((a) => a !== '' && bfclDictMatches(actual, a));
  } else if (type === 'array' && Array.isArray(actual) && items?.type === 'object') {
    ok = acceptable.some((a) => Array.isArray(a) && a.length === actual.length && actual.every((x, i) => isRecord(x) && bfclDictMatches(x, a[i])));
  } else if (typeof actual === 'string') {
    // BFCL compares against every string answer, "" included: passing "" for an optional string is accepted.
    ok = acceptable.some((a) => typeof a === 'string' && valuesEqual(a, actual, 'bfcl'));
  } else if (Array.isArray(actual)) {
    ok = acceptable.some((a) => Array.isArray(a) && valuesEqual(a, actual, 'bfcl'));
  } else {
    ok = acceptable.some((a) => a !== '' && sameJson(a, actual));
  }
  return ok ? { ok: true } : bad(`expected ${want}, got ${showValue(actual)}`);
}

/**
 * One argument against a list of acceptable values under an equality mode: `tolerant` (any value
 * {@link tolerantEquals} one of them) or `bfcl` ({@link bfclArgMatch}).
 */
export function acceptableArgMatch(mode: CallsEquality, acceptable: readonly unknown[], actual: unknown, schema?: ParamSchema): ArgMatch {
  if (mode === 'bfcl') return bfclArgMatch(acceptable, actual, schema);
  const values = acceptable.filter((v) => v !== '');
  return values.some((v) => tolerantEquals(v, actual)) ? { ok: true } : { ok: false, reason: `expected one of ${showValue(values)}, got ${showValue(actual)}` };
}

/** Why an argument of a call cannot be judged, or undefined when it can. */
export function argsMissingReason(call: Pick<ToolCall, 'argumentsAbsent' | 'argumentHashes' | 'argumentHashKey'>, hashKey?: string): string | undefined {
  if (!call.argumentsAbsent) return undefined;
  if (call.argumentHashes) {
    if (!hashKey) return 'arguments were captured hashed; set RUNSPEC_HASH_KEY to the key they were hashed with';
    if (call.argumentHashKey !== undefined && call.argumentHashKey !== keyFingerprint(hashKey))
      return 'arguments were hashed with another key than RUNSPEC_HASH_KEY';
    return undefined;
  }
  return 'arguments not captured (content capture off)';
}

/**
 * Judge each expected argument of one call: on its value when captured, on its keyed hash under hashed
 * capture (equality and `$one_of` only), else as not checkable with the missing data named. Never judges
 * a check it cannot see.
 *
 * @example checkArgs({ env: { kind: 'equals', value: 'prod' } }, call).map((c) => c.judged)
 */
export function checkArgs(
  expected: Record<string, ArgExpectation>,
  call: Pick<ToolCall, 'arguments' | 'argumentsAbsent' | 'argumentHashes' | 'argumentHashKey'>,
  opts: { hashKey?: string; skip?: readonly string[] } = {},
): CheckResult[] {
  const out: CheckResult[] = [];
  const missing = argsMissingReason(call, opts.hashKey);
  for (const [arg, expectation] of Object.entries(expected)) {
    if (opts.skip?.includes(arg)) continue;
    const check = `args.${arg}`;
    const want = describeExpectation(expectation);
    if (missing) {
      out.push({ check, judged: false, expected: want, missing });
      continue;
    }
    if (call.argumentsAbsent && call.argumentHashes) {
      const hashes = call.argumentHashes;
      const present = Object.hasOwn(hashes, arg);
      const key = opts.hashKey!;
      let pass: boolean;
      if (expectation.kind === 'regex') {
        out.push({ check, judged: false, expected: want, missing: 'a regex expectation needs the value; hashed capture records only its hash' });
        continue;
      } else if (expectation.kind === 'absent') pass = !present;
      else if (!present) pass = false;
      else if (expectation.kind === 'equals') pass = argumentHash(key, expectation.value) === hashes[arg];
      else pass = expectation.values.some((v) => argumentHash(key, v) === hashes[arg]);
      out.push({ check, judged: true, pass, expected: want, observed: present ? 'hashed value' : 'absent', via: 'hash' });
      continue;
    }
    const present = Object.hasOwn(call.arguments, arg) && call.arguments[arg] !== undefined;
    const result = matchArg(expectation, present ? call.arguments[arg] : undefined, { present });
    const c: CheckResult = { check, judged: true, pass: result.ok, expected: want, observed: present ? call.arguments[arg] : 'absent' };
    out.push(c);
  }
  return out;
}

/** Failing judged argument checks as `ArgFailure`s, with the matcher's reason. */
export function argFailuresOf(expected: Record<string, ArgExpectation>, call: Pick<ToolCall, 'arguments'>, checks: readonly CheckResult[]): ArgFailure[] {
  const failed = new Set(checks.filter((c) => c.judged && c.pass === false).map((c) => c.check.slice('args.'.length)));
  const out: ArgFailure[] = [];
  for (const [arg, expectation] of Object.entries(expected)) {
    if (!failed.has(arg)) continue;
    const check = checks.find((c) => c.check === `args.${arg}`);
    if (check?.via === 'hash') {
      out.push({
        arg,
        reason:
          check.observed === 'absent'
            ? `missing (expected ${describeExpectation(expectation)})`
            : `hashed value does not match ${describeExpectation(expectation)}`,
      });
      continue;
    }
    const present = Object.hasOwn(call.arguments, arg) && call.arguments[arg] !== undefined;
    out.push({ arg, reason: matchArg(expectation, present ? call.arguments[arg] : undefined, { present }).reason ?? 'did not match' });
  }
  return out;
}
