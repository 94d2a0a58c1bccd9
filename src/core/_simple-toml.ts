// A fast path past smol-toml for the plainest TOML, as large generated fixture files are written: an
// optional `[[name]]` header, then one `key = value` per line, where a key is bare and a value is a basic
// string without escapes, a list of them, an inline table of them, a decimal integer or float, or a
// boolean. A 10,000-case file spent ~60 ms in smol-toml's per-case parse. Anything else (and anything
// smol-toml might reject: a duplicate key, a control character) is undefined, and the caller parses with
// smol-toml, which stays the source of truth for every value and error. The result is what smol-toml
// returns: tables without a prototype, plain arrays, the strings as they are in the text. (Keys are checked
// before each store, and `__proto__` is refused, so building a table as `{}` stores every key as its own.)

// A basic string with no escape and no control character (TOML allows a tab; this path leaves it to smol-toml).
const STR = String.raw`"([^"\\\x00-\x1f\x7f]*)"`;
const NUM = String.raw`((?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?)`;
const KEY = String.raw`([A-Za-z0-9_-]+)`;
/** Spaces, an optional comment (no control character but tab), then the end of the line or the text. */
const END = String.raw`[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?(?:\n|$)`;

const HEADER = new RegExp(String.raw`[ \t]*\[\[${KEY}\]\]${END}`, 'y');
const BLANK = new RegExp(END, 'y');
const LINE = new RegExp(String.raw`[ \t]*${KEY}[ \t]*=[ \t]*(?:${STR}|(true|false)|${NUM}|\[([^\]\n]*)\]|\{([^}\n]*)\})${END}`, 'y');
const ELEMENT = new RegExp(String.raw`[ \t]*${STR}[ \t]*(,|$)`, 'y');
const PAIR = new RegExp(String.raw`[ \t]*${KEY}[ \t]*=[ \t]*(?:${STR}|(true|false)|${NUM})[ \t]*(,|$)`, 'y');
const SPACES = /^[ \t]*$/;

type Table = Record<string, unknown>;

/** Keys seen before, as property-key strings: a key fresh from the text is looked up in V8's string table on every store. */
const KEYS = new Map<string, string>();
const MAX_KEYS = 1024;

function keyOf(text: string): string {
  let k = KEYS.get(text);
  if (k === undefined) {
    k = Object.keys({ [text]: 0 })[0]!;
    if (KEYS.size < MAX_KEYS) KEYS.set(text, k);
  }
  return k;
}

function scalar(str: string | undefined, bool: string | undefined, num: string | undefined): unknown {
  if (str !== undefined) return str;
  if (bool !== undefined) return bool === 'true';
  return Number(num);
}

/** `"a", "b"` (a trailing comma allowed, as TOML allows it), or undefined. */
function array(inner: string): unknown[] | undefined {
  const out: unknown[] = [];
  if (SPACES.test(inner)) return out;
  ELEMENT.lastIndex = 0;
  while (ELEMENT.lastIndex < inner.length) {
    const m = ELEMENT.exec(inner);
    if (m === null) return undefined;
    out.push(m[1]);
    if (m[2] === '') return out;
    if (SPACES.test(inner.slice(ELEMENT.lastIndex))) return out;
  }
  return undefined;
}

/** `k = "v", k2 = 1` (no trailing comma, keys distinct), or undefined. */
function inlineTable(inner: string): Table | undefined {
  const out: Table = {};
  if (SPACES.test(inner)) return withoutPrototype(out);
  PAIR.lastIndex = 0;
  for (;;) {
    const m = PAIR.exec(inner);
    if (m === null) return undefined;
    const k = keyOf(m[1]!);
    if (k === '__proto__' || Object.hasOwn(out, k)) return undefined;
    out[k] = scalar(m[2], m[3], m[4]);
    if (m[5] === '') return withoutPrototype(out);
  }
}

/**
 * `text[start, end)` parsed as smol-toml would parse it, when it is of the plain shape above; undefined
 * otherwise. `end` is the end of the text or the start of a line.
 * @example simpleToml('[[eval]]\nid = "a"\n', 0, 17) // { eval: [{ id: 'a' }] } (tables without prototype)
 */
export function simpleToml(text: string, start: number, end: number): Table | undefined {
  if (end !== text.length && text.charCodeAt(end - 1) !== 10) return undefined;
  const root: Table = {};
  let table = root;
  let i = start;
  HEADER.lastIndex = i;
  const header = HEADER.exec(text);
  if (header !== null) {
    const name = keyOf(header[1]!);
    if (name === '__proto__' || HEADER.lastIndex > end) return undefined;
    table = {};
    root[name] = [table];
    i = HEADER.lastIndex;
  }
  while (i < end) {
    BLANK.lastIndex = i;
    if (BLANK.test(text)) {
      i = BLANK.lastIndex;
      continue;
    }
    LINE.lastIndex = i;
    const m = LINE.exec(text);
    if (m === null || LINE.lastIndex > end || LINE.lastIndex === i) return undefined;
    i = LINE.lastIndex;
    const k = keyOf(m[1]!);
    if (k === '__proto__' || Object.hasOwn(table, k)) return undefined;
    let v: unknown;
    if (m[5] !== undefined) v = array(m[5]);
    else if (m[6] !== undefined) v = inlineTable(m[6]);
    else v = scalar(m[2], m[3], m[4]);
    if (v === undefined) return undefined;
    table[k] = v;
  }
  if (i !== end) return undefined;
  if (table !== root) withoutPrototype(table);
  return withoutPrototype(root);
}

/**
 * The table without a prototype, as smol-toml makes its tables. Built as `{}` and then cut loose: V8 keeps
 * such an object's fast properties, where one made by Object.create(null) starts as a dictionary (about
 * three times the memory, and slower to fill and read).
 */
function withoutPrototype(t: Table): Table {
  return Object.setPrototypeOf(t, null) as Table;
}
