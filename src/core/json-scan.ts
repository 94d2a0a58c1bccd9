// JSON text scanned without building it: where the first syntax error is (Node's JSON.parse message
// often has no position), and whether it nests deeper than any of our inputs needs (deep nesting
// overflows the stack of recursive code downstream). Iterative, so no input can overflow it. Owner: issue 12.

/** Nesting allowed in a JSON document we load (fixtures, toolsets, configs). */
export const MAX_JSON_NESTING = 64;

/** Offset of the first bracket that nests deeper than `max`, or undefined. */
export function jsonTooDeepAt(text: string, max = MAX_JSON_NESTING): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/**
 * End (exclusive) of the balanced JSON object or array opening at `start`, strings skipped; -1 when it does
 * not close within `maxChars`. The one bracket scan of text that may hold JSON (a model's answer, an
 * attribute holding values written back to back).
 * @example balancedJsonEnd('say {"a": [1]} ok', 4) // 14
 */
export function balancedJsonEnd(text: string, start: number, maxChars = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let inString = false;
  const stop = Math.min(text.length, start + maxChars);
  for (let i = start; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/**
 * The offset of the first syntax error of JSON text (none: `{}`).
 * @example scanJson('{"a": [ }') // { errorAt: 8 }
 */
export function scanJson(text: string): { errorAt?: number } {
  const stack: string[] = [];
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && ' \t\n\r'.includes(text[i]!)) i++;
  };
  // expect: 'value' | 'key' | 'colon' | 'after' (comma or close)
  let expect: 'value' | 'key-or-close' | 'key' | 'colon' | 'after' | 'value-or-close' = 'value';
  for (;;) {
    ws();
    if (i >= n) return stack.length === 0 && expect === 'after' ? {} : { errorAt: n };
    const ch = text[i]!;
    if (expect === 'value' || expect === 'value-or-close') {
      if (expect === 'value-or-close' && ch === ']') {
        stack.pop();
        i++;
        expect = 'after';
      } else if (ch === '{' || ch === '[') {
        stack.push(ch);
        i++;
        expect = ch === '{' ? 'key-or-close' : 'value-or-close';
      } else if (ch === '"') {
        const end = stringEnd(text, i);
        if (end < 0) return { errorAt: i };
        i = end;
        expect = 'after';
      } else {
        const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
        if (!m) return { errorAt: i };
        i += m[0].length;
        expect = 'after';
      }
    } else if (expect === 'key' || expect === 'key-or-close') {
      if (expect === 'key-or-close' && ch === '}') {
        stack.pop();
        i++;
        expect = 'after';
      } else if (ch === '"') {
        const end = stringEnd(text, i);
        if (end < 0) return { errorAt: i };
        i = end;
        expect = 'colon';
      } else return { errorAt: i };
    } else if (expect === 'colon') {
      if (ch !== ':') return { errorAt: i };
      i++;
      expect = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) return { errorAt: i };
      if (ch === ',') {
        i++;
        expect = top === '{' ? 'key' : 'value';
      } else if ((ch === '}' && top === '{') || (ch === ']' && top === '[')) {
        stack.pop();
        i++;
        expect = 'after';
      } else return { errorAt: i };
    }
  }
}

/** Index just past the closing quote of the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) i++;
    else if (c < 0x20) return -1;
  }
  return -1;
}
