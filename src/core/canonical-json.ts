// Canonical JSON: the one way we turn a value into text for comparing, hashing and showing it.

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

/** The sort order of one shape of object: its keys, sorted, each with its JSON; `plain` false when canonicalJson must take it. */
interface Shape {
  keys: string[];
  sorted: { key: string; json: string }[];
  plain: boolean;
}

/** The last object's shape: the objects hashed in one go mostly have one. */
let lastShape: Shape = { keys: [], sorted: [], plain: true };

function shapeOf(value: object): Shape {
  const keys = Object.keys(value);
  const last = lastShape.keys;
  if (keys.length === last.length) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== last[i]) {
        same = false;
        break;
      }
    }
    if (same) return lastShape;
  }
  const sorted = inOrder(keys) ? keys : [...keys].sort();
  // JSON.stringify puts array-index keys first whatever the insertion order, and sortKeys' copy takes a
  // `__proto__` key as its prototype: such objects are left to canonicalJson.
  const plain = !sorted.some((k) => {
    const c = k.charCodeAt(0);
    return (c >= 48 && c <= 57) || k === '__proto__';
  });
  lastShape = { keys, sorted: sorted.map((key) => ({ key, json: JSON.stringify(key) })), plain };
  return lastShape;
}

/**
 * {@link canonicalJson} of a plain object (without its `omit` key), the same text, with its frozen members
 * (parts that cases of one file share) serialised once per `memo`: for hashing many objects that share
 * parts, in one go.
 */
export function canonicalObjectJson(value: Record<string, unknown>, memo: Map<object, string | undefined>, omit?: string): string {
  const shape = shapeOf(value);
  if (!shape.plain) {
    if (omit === undefined) return canonicalJson(value);
    const { [omit]: _omitted, ...rest } = value;
    return canonicalJson(rest);
  }
  let out = '';
  for (const { key, json } of shape.sorted) {
    if (key === omit) continue;
    const v = value[key];
    if (v === undefined) continue;
    let text: string | undefined;
    if (typeof v === 'string') text = JSON.stringify(v);
    else if (v !== null && typeof v === 'object' && Object.isFrozen(v)) {
      text = memo.get(v);
      if (text === undefined && !memo.has(v)) {
        text = JSON.stringify(sortKeys(v, 1));
        memo.set(v, text);
      }
    } else text = JSON.stringify(sortKeys(v, 1));
    if (text === undefined) continue; // a function or symbol: JSON leaves the member out
    out += `${out === '' ? '{' : ','}${json}:${text}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/** A value as a short, one-line string for reasons: strings quoted, long values cut. */
export function showValue(value: unknown, maxChars = 80): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
