// Equality of argument values: expected values from fixtures against what a model or a trace sent.
import { canonicalJson } from './canonical-json.js';

/**
 * How two values compare:
 * - `tolerant` (the default, what every dialect's `expect_args` and a toolset's `choices` use): `"3"`
 *   equals `3`, strings compare trimmed and case-insensitively, `"true"` equals `true`, arrays
 *   element-wise, objects key-wise whatever the key order; `null` equals a missing value. An empty or
 *   blank string is not a number (`'' ≠ 0`); two numbers as text compare by exact decimal value
 *   (`"007"` equals `"7"`, and long numeric ids do not collide through float rounding).
 * - `text` (turnstone's "same string value"): strings as they are, anything else as canonical JSON text,
 *   so `"3"` equals `3` but `"Prod"` does not equal `"prod"`; key order does not matter.
 * - `strict`: the same JSON value, key order aside; `"3" ≠ 3`.
 * - `bfcl` (the Berkeley Function Calling Leaderboard's checker, bfcl_eval ast_checker): strings compare
 *   after {@link bfclStandardize} (`"April 1, 2024"` equals `"april 1 2024"`); lists element by element,
 *   string items standardised the same way; anything else as the same JSON value (numbers by value, so an
 *   int equals the float of the same value). The type rules that need a parameter's declared type live
 *   with the BFCL argument check (scoring/arg-match.ts `bfclArgMatch`).
 */
export const EQUALITY_MODES = ['tolerant', 'text', 'strict', 'bfcl'] as const;
export type EqualityMode = (typeof EQUALITY_MODES)[number];

/** A decimal number as a whole string: `-1`, `+2.5`, `.5`, `1e3` (not `''`, `0x10`, `Infinity`). */
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The exact decimal value of numeric text as a key, or undefined when the text is not a decimal number:
 * `'007'` and `'7'` → `'7e0'`, `'1.50e2'` → `'15e1'`, `'-0'` → `'0e0'`. Exact, so long numeric ids never
 * collide through float rounding.
 */
export function decimalKey(text: string): string | undefined {
  const t = text.trim();
  if (!NUMERIC.test(t)) return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t)!;
  const frac = m[3] ?? '';
  let digits = `${m[2] ?? ''}${frac}`.replace(/^0+/, '');
  let exp = Number(m[4] ?? 0) - frac.length;
  if (digits === '') return '0e0';
  const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exp += trailing;
  return `${m[1] === '-' ? '-' : ''}${digits}e${exp}`;
}

/**
 * The tolerant normal form of a value (what hashed argument capture hashes, scoring/arg-hash.ts): two values
 * that {@link tolerantEquals} calls equal have the same form. Strings trimmed and case-folded; numeric text
 * is its number when the number holds it exactly (`"007"` and `7` alike), else it stays text; `"true"` and
 * `"false"` are booleans; null and undefined are null; arrays element-wise; objects without undefined keys.
 * @example canonicalJson(tolerantNormalForm({ n: ' 007 ' })) === canonicalJson(tolerantNormalForm({ n: 7 })) // true
 */
export function tolerantNormalForm(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    const key = decimalKey(s);
    if (key !== undefined) {
      const n = Number(s);
      return Number.isFinite(n) && decimalKey(String(n)) === key ? n : s;
    }
    if (s === 'true') return true;
    if (s === 'false') return false;
    return s;
  }
  if (Array.isArray(value)) return value.map(tolerantNormalForm);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) out[k] = tolerantNormalForm(v);
    return out;
  }
  return String(value);
}

function numberFromString(text: string): number | undefined {
  const trimmed = text.trim();
  return NUMERIC.test(trimmed) ? Number(trimmed) : undefined;
}

function sameNumber(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * Whether `a` and `b` are equal under `mode` (see {@link EQUALITY_MODES}). Symmetric by construction.
 *
 * @example valuesEqual('3', 3) // true
 * @example valuesEqual(' Prod ', 'prod') // true
 * @example valuesEqual('', 0) // false
 * @example valuesEqual({ a: 1, b: 2 }, { b: 2, a: 1 }, 'strict') // true
 */
export function valuesEqual(a: unknown, b: unknown, mode: EqualityMode = 'tolerant'): boolean {
  if (mode === 'strict') return strictEquals(a, b);
  if (mode === 'bfcl') return bfclEquals(a, b);
  if (mode === 'text') return valueText(a) === valueText(b);
  return tolerantEquals(a, b);
}

/**
 * BFCL's string normalisation: spaces and `,./-_*^` removed, lowercase, single quotes as double quotes.
 *
 * @example bfclStandardize('New York, NY') // 'newyorkny'
 */
export function bfclStandardize(text: string): string {
  return text
    .replace(/[ ,./\-_*^]/g, '')
    .toLowerCase()
    .replace(/'/g, '"');
}

function bfclEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return bfclStandardize(a) === bfclStandardize(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    return (
      a.length === b.length &&
      a.every((x, i) =>
        typeof x === 'string' && typeof b[i] === 'string' ? bfclStandardize(x) === bfclStandardize(b[i] as string) : canonicalJson(x) === canonicalJson(b[i]),
      )
    );
  }
  return canonicalJson(a) === canonicalJson(b);
}

/** A value as `text` mode compares it: strings as they are, anything else as canonical JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : canonicalJson(value);
}

function strictEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => strictEquals(x, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ka = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const kb = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => k in bo && strictEquals(ao[k], bo[k]));
}

/** `valuesEqual(a, b, 'tolerant')`. */
export function tolerantEquals(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null) return b === undefined || b === null;
  if (b === undefined || b === null) return false;
  if (typeof a === 'bigint') return tolerantEquals(Number(a), b);
  if (typeof b === 'bigint') return tolerantEquals(a, Number(b));
  if (typeof a === 'number' && typeof b === 'number') return sameNumber(a, b);
  if (typeof a === 'string' && typeof b === 'string') {
    // Two numbers as text compare by their exact decimal value ("007" = "7"), as a number and its text do.
    const da = decimalKey(a);
    const db = da === undefined ? undefined : decimalKey(b);
    return db !== undefined ? da === db : a.trim().toLowerCase() === b.trim().toLowerCase();
  }
  if (typeof a === 'number' && typeof b === 'string') return numberFromString(b) !== undefined && sameNumber(a, numberFromString(b)!);
  if (typeof a === 'string' && typeof b === 'number') return tolerantEquals(b, a);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b;
  if (typeof a === 'boolean' && typeof b === 'string') return b.trim().toLowerCase() === String(a);
  if (typeof a === 'string' && typeof b === 'boolean') return tolerantEquals(b, a);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => tolerantEquals(x, b[i]));
  if (Array.isArray(a) || Array.isArray(b)) return false;
  if (typeof a === 'object' && typeof b === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const ka = Object.keys(ao).filter((k) => ao[k] !== undefined);
    const kb = Object.keys(bo).filter((k) => bo[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => k in bo && tolerantEquals(ao[k], bo[k]));
  }
  return false;
}
