// Small JSON helpers for trace content: tolerant parsing of (double-)encoded values.
import { isRecord } from '../../core/is-record.js';

/** Whether `text` can start a JSON value: its first non-whitespace character opens one (JSON.parse throws otherwise). */
function mayBeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // JSON whitespace: space, tab, line feed, carriage return.
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    // { [ " - 0-9 t(rue) f(alse) n(ull)
    return c === 123 || c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110;
  }
  return false;
}

/** Parse a JSON string; undefined when it does not parse. */
export function tryParseJson(text: string): unknown {
  // Prose (a prompt, a tool result) is the common non-JSON value: answered without a thrown SyntaxError,
  // which costs far more than the parse.
  if (!mayBeJson(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A value that may be structured, a JSON string, or a JSON string inside a JSON string: parse once, and
 * again when the result is itself a string that parses to an object or array.
 */
export function decodeJsonish(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const once = tryParseJson(v);
  if (typeof once === 'string') {
    const twice = tryParseJson(once);
    if (typeof twice === 'object' && twice !== null) return twice;
    return once;
  }
  return once === undefined ? v : once;
}

/** Tool-call arguments as an object; anything unparseable becomes `{ _raw: text }` (turnstone `_raw`). */
export function parseArguments(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null || v === '') return {};
  const d = decodeJsonish(v);
  if (isRecord(d)) return d;
  return { _raw: typeof v === 'string' ? v : JSON.stringify(v) };
}

/** Integer from a number or a numeric string. */
export function toInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^-?\d+(\.0+)?$/.test(v.trim())) return Math.trunc(Number(v.trim()));
  return undefined;
}

export function toStr(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}
