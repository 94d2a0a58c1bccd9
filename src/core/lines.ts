// Where a field sits in a structured file's text, for `file:line: field: message` errors. Each finder
// indexes the text ONCE (linear in its size) and answers every path from that index: JSON from a small
// scanner (the text already parsed, so it is valid), TOML from a header-and-key scan, because smol-toml
// reports no key positions.

export type PathSegment = string | number;

/** Line (1-based) of the value at `path`, or of its nearest located ancestor. */
export type LineFinder = (path: readonly PathSegment[]) => number;

/** Render a path as zod's toDotPath does: `eval[3].expect_args["a-b"]`; the root is `(root)`. */
export function dotPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out || '(root)';
}

const key = (path: readonly PathSegment[]): string => JSON.stringify(path);

/** 1-based line and column of a character offset. */
export function lineColOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: end - lineStart + 1 };
}

/** Map every JSON path (object key or array element) to the line where it starts. */
export function jsonLineFinder(text: string): LineFinder {
  return jsonLineIndex(text).lines;
}

/** Paths this short are indexed at once; a longer lookup indexes every path then (on first use). */
const JSON_SHALLOW_DEPTH = 2;

/**
 * jsonLineFinder, plus `release()` for a caller done with it. A load asks for shallow paths only (a
 * case's own line, `cases[3]`) unless something is wrong, so only those are indexed up front: a key per
 * value of a 100,000-case file cost ~100 MB. A longer path indexes the whole text on first use, so the
 * index keeps the text until `release()`; lookups after it answer 1.
 */
export function jsonLineIndex(text: string): { lines: LineFinder; release: () => void } {
  let source: string | undefined = text;
  let shallow: Map<string, number> | undefined = indexJsonLines(text, JSON_SHALLOW_DEPTH);
  let full: Map<string, number> | undefined;
  return {
    lines: (path) => {
      const index = path.length <= JSON_SHALLOW_DEPTH ? shallow : (full ??= source === undefined ? undefined : indexJsonLines(source, Infinity));
      if (index === undefined) return 1;
      for (let n = path.length; n >= 0; n--) {
        const found = index.get(key(path.slice(0, n)));
        if (found !== undefined) return found;
      }
      return 1;
    },
    release: () => {
      source = undefined;
      shallow = undefined;
      full = undefined;
    },
  };
}

/** Lines of the JSON paths at most `maxDepth` segments long. */
function indexJsonLines(text: string, maxDepth: number): Map<string, number> {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const ws = (): void => {
    while (i < text.length) {
      const c = text[i];
      if (c === '\n') line++;
      else if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\ufeff') break;
      i++;
    }
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  // Depth is bounded by the text length; JSON.parse already accepted the document.
  const value = (path: PathSegment[]): void => {
    ws();
    if (path.length <= maxDepth) lines.set(key(path), line);
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (let guard = 0; guard < text.length && i < text.length; guard++) {
        ws();
        const keyLine = line;
        const k = str();
        ws();
        i++; // colon
        const childPath = [...path, k];
        value(childPath);
        if (childPath.length <= maxDepth) lines.set(key(childPath), keyLine);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++; // closing brace
        return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; n < text.length && i < text.length; n++) {
        value([...path, n]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++;
        return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
    }
  };
  try {
    value([]);
  } catch {
    // A scanner bug must never hide the real error: fall back to the lines found so far.
  }
  return lines;
}

/** Key segments of a TOML header or dotted key (`a."b.c".'d'` → a, b.c, d); undefined when it is not one. */
export function tomlKeySegments(text: string): string[] | undefined {
  const segs: string[] = [];
  let i = 0;
  const n = text.length;
  const skipWs = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  for (;;) {
    skipWs();
    if (i >= n) return undefined;
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= n) return undefined;
      try {
        segs.push(JSON.parse(text.slice(i, j + 1)) as string);
      } catch {
        segs.push(text.slice(i + 1, j));
      }
      i = j + 1;
    } else if (c === "'") {
      const j = text.indexOf("'", i + 1);
      if (j < 0) return undefined;
      segs.push(text.slice(i + 1, j));
      i = j + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
      if (!m) return undefined;
      segs.push(m[0]);
      i += m[0].length;
    }
    skipWs();
    if (i >= n) return segs;
    if (text[i] !== '.') return undefined;
    i++;
  }
}

/** Index of the quote closing the one-line string that opens at `i` (a basic string's `\\"` is no close), or -1. */
function quoteEnd(text: string, i: number): number {
  const q = text[i];
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (q === '"' && c === '\\') j++;
    else if (c === q) return j;
  }
  return -1;
}

/** Where a value's scan stands at the end of a line: open brackets, and the multi-line string still open. */
interface ValueScan {
  depth: number;
  open: '"""' | "'''" | undefined;
}

/**
 * Carries `scan` over one line of a value (to skip a multi-line array, table or string): brackets count
 * outside strings and comments; a `"""` or `'''` string may span lines (in a basic one, `\` escapes the
 * next character), a one-line string may not.
 */
function scanValue(text: string, scan: ValueScan): void {
  let i = 0;
  for (;;) {
    if (scan.open !== undefined) {
      const q = scan.open;
      let close = -1;
      for (let j = i; j < text.length; j++) {
        if (q === '"""' && text[j] === '\\') j++;
        else if (text.startsWith(q, j)) {
          close = j;
          break;
        }
      }
      if (close < 0) return;
      // Up to two more quotes right before the closing three belong to the string.
      let end = close + 3;
      while (end < close + 5 && text[end] === q[0]) end++;
      scan.open = undefined;
      i = end;
    }
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '#') return;
      if (c === '"' || c === "'") {
        const triple = c === '"' ? '"""' : "'''";
        if (text.startsWith(triple, i)) {
          scan.open = triple;
          i += 3;
          break;
        }
        const j = quoteEnd(text, i);
        if (j < 0) return;
        i = j;
      } else if (c === '[' || c === '{') scan.depth++;
      else if (c === ']' || c === '}') scan.depth--;
    }
    if (scan.open === undefined) return;
  }
}

/** Index of the `=` of a `key = value` line (outside quoted keys), or -1. */
function findAssign(line: string): number {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"' || c === "'") {
      const j = quoteEnd(line, i);
      if (j < 0) return -1;
      i = j;
    } else if (c === '=') return i;
    else if (c === '#') return -1;
  }
  return -1;
}

/**
 * Lines of any TOML document, indexed when first asked: every `[table]` and `[[array]]` header (array
 * elements counted per parent element, so `suite[1].eval[0]` is the first `[[suite.eval]]` after the
 * second `[[suite]]`) and every `key =` line, dotted keys included. Keys inside inline tables and
 * multi-line arrays resolve to the line of the key that holds them. The headers are indexed first, on
 * their own (a case's line is its header's); the keys only when a path below a header is asked for, which
 * is an error's path: a 100,000-case file that loads cleanly never holds an entry per key.
 */
export function tomlLineFinder(text: string): LineFinder {
  let headers: Map<string, number> | undefined;
  let all: Map<string, number> | undefined;
  return (path) => {
    headers ??= indexTomlLines(text, false);
    const exact = headers.get(key(path));
    if (exact !== undefined) return exact;
    all ??= indexTomlLines(text, true);
    for (let n = path.length; n >= 0; n--) {
      const found = all.get(key(path.slice(0, n)));
      if (found !== undefined) return found;
    }
    return 1;
  };
}

/** Path → line of every header of a TOML text, and of every `key =` line too when `withKeys`. */
function indexTomlLines(text: string, withKeys: boolean): Map<string, number> {
  const lines = new Map<string, number>();
  /** Concrete path (with indices) of each array of tables → elements seen so far. */
  const arrayCounts = new Map<string, number>();
  const set = (path: readonly PathSegment[], line: number): void => {
    const k = key(path);
    if (!lines.has(k)) lines.set(k, line);
  };
  /** Header segments as a concrete path: a segment naming an array of tables means its last element. */
  const concrete = (segs: string[], upTo: number): PathSegment[] => {
    const out: PathSegment[] = [];
    for (let s = 0; s < upTo; s++) {
      out.push(segs[s]!);
      const count = arrayCounts.get(key(out));
      if (count !== undefined) out.push(count - 1);
    }
    return out;
  };
  let table: PathSegment[] = [];
  /** A value that goes on past its key's line: a multi-line array, inline table or string. */
  const scan: ValueScan = { depth: 0, open: undefined };
  let lineNo = 0;
  let from = 0;
  while (from <= text.length) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    const raw = text.slice(from, to);
    from = to + 1;
    lineNo++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (scan.open !== undefined || scan.depth > 0) {
      scanValue(line, scan);
      continue;
    }
    const t = line.trimStart();
    if (t === '' || t.startsWith('#')) continue;
    if (t.startsWith('[[')) {
      const end = t.indexOf(']]');
      const segs = end > 0 ? tomlKeySegments(t.slice(2, end)) : undefined;
      if (!segs) continue;
      const arrayPath = [...concrete(segs, segs.length - 1), segs[segs.length - 1]!];
      const count = (arrayCounts.get(key(arrayPath)) ?? 0) + 1;
      arrayCounts.set(key(arrayPath), count);
      set(arrayPath, lineNo);
      table = [...arrayPath, count - 1];
      set(table, lineNo);
      continue;
    }
    if (t.startsWith('[')) {
      const end = t.indexOf(']');
      const segs = end > 0 ? tomlKeySegments(t.slice(1, end)) : undefined;
      if (!segs) continue;
      table = concrete(segs, segs.length);
      set(table, lineNo);
      continue;
    }
    const eq = findAssign(t);
    if (eq < 0) continue;
    const segs = tomlKeySegments(t.slice(0, eq));
    if (!segs) continue;
    if (withKeys) set([...table, ...segs], lineNo);
    scan.depth = 0;
    scanValue(t.slice(eq + 1), scan);
  }
  return lines;
}
