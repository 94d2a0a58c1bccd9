// The one loader for our structured files (fixtures, toolset files, runspec.toml, schedules, rules):
// TOML or JSON text → data plus a line index (built when first asked, linear in the text) → zod → errors of the
// form `file:line: field: message` (syntax errors as `file:line:col: TOML syntax error: ...`).
import { readFileSync } from 'node:fs';
import { runSteps } from './event-loop-turns.js';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { jsonTooDeepAt, MAX_JSON_NESTING, scanJson } from './json-scan.js';
import { knownKeysAt, UNKNOWN_FIELD_HINT, unknownFieldMessage, unknownFields, withoutFields } from './strict-fields.js';
import { dotPath, jsonLineIndex, lineColOf, tomlKeySegments, tomlLineFinder, type LineFinder, type PathSegment } from './lines.js';

export type StructuredFormat = 'toml' | 'json';

/** Builds the error a loader throws (a FixtureError, ConfigError, ToolsetError, TraceError...). */
export type ErrorFactory = (message: string, opts: { hint?: string; cause?: unknown }) => Error;

export interface StructuredOptions {
  /** The file name in messages. */
  file: string;
  /** @default from the extension: `.json` is JSON, anything else TOML */
  format?: StructuredFormat;
  error: ErrorFactory;
  /** Hint of a syntax error. */
  syntaxHint?: string;
}

export interface StructuredText {
  data: unknown;
  format: StructuredFormat;
  /** Line (1-based) of any path in the text. */
  lines: LineFinder;
  /** Lets go of the text and index behind `lines` (JSON keeps the text for deep lookups); call when done. */
  release?: () => void;
}

const DEFAULT_SYNTAX_HINT: Record<StructuredFormat, string> = {
  toml: 'fix the TOML at that position (strings need quotes; arrays of tables are written [[name]])',
  json: 'fix the JSON at that position (no trailing commas or comments in JSON)',
};

/** A TOML syntax error at a bare `$` key: the arg matchers (`$regex`, `$one_of`...) are keys TOML wants quoted. */
const DOLLAR_KEY_HINT =
  'quote keys that start with $ in TOML: write { "$regex" = "^web" }, not { $regex = "^web" } (the same for "$one_of", "$absent", "$equals")';

function tomlSyntaxHint(text: string, err: TomlError, fallback: string): string {
  const line = text.split('\n', err.line)[err.line - 1] ?? '';
  return line[err.column - 1] === '$' ? DOLLAR_KEY_HINT : fallback;
}

/** The format a file name implies: `.json` is JSON, anything else TOML. */
export function formatOf(file: string): StructuredFormat {
  return /\.json$/i.test(file) ? 'json' : 'toml';
}

/** Parse TOML or JSON text (a byte-order mark is dropped) and index its lines once. */
export function parseStructuredText(raw: string, opts: StructuredOptions): StructuredText {
  // Editors on Windows may save a byte-order mark; neither parser accepts one.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const format = opts.format ?? formatOf(opts.file);
  if (format === 'toml') {
    let data: unknown;
    try {
      data = parseToml(text);
    } catch (err) {
      if (!(err instanceof TomlError)) throw err;
      const what = err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
      throw opts.error(`${opts.file}:${err.line}:${err.column}: TOML syntax error: ${what}`, {
        hint: tomlSyntaxHint(text, err, opts.syntaxHint ?? DEFAULT_SYNTAX_HINT.toml),
        cause: err,
      });
    }
    return { data, format, lines: tomlLineFinder(text) };
  }
  const tooDeep = jsonTooDeepAt(text);
  if (tooDeep !== undefined) {
    const { line, col } = lineColOf(text, tooDeep);
    throw opts.error(`${opts.file}:${line}:${col}: nested deeper than ${MAX_JSON_NESTING} levels`, {
      hint: 'flatten the value; no input of ours needs that depth',
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    let line: number;
    let col: number;
    const lc = /\(line (\d+) column (\d+)\)/.exec(msg);
    const pos = /at position (\d+)/.exec(msg);
    if (lc) {
      line = Number(lc[1]);
      col = Number(lc[2]);
    } else {
      ({ line, col } = lineColOf(text, pos ? Number(pos[1]) : (scanJson(text).errorAt ?? text.length)));
    }
    const what = msg
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/\s*in JSON at position \d+.*$/, '')
      .replace(/^Unexpected token '?(.)'?, [\s\S]*$/, "unexpected character '$1'")
      .replace(/^Unexpected end of JSON input$/, 'unexpected end of input');
    throw opts.error(`${opts.file}:${line}:${col}: JSON syntax error: ${what.charAt(0).toLowerCase() + what.slice(1)}`, {
      hint: opts.syntaxHint ?? DEFAULT_SYNTAX_HINT.json,
      cause: err,
    });
  }
  const index = jsonLineIndex(text);
  return { data, format, lines: index.lines, release: index.release };
}

/** A top-level table header of a TOML text: `[name]` or `[[name]]`. */
export interface TomlHeader {
  /** Offset of the start of the header's line. */
  start: number;
  /** Its line (1-based). */
  line: number;
  /** Key segments (`[a."b.c"]` → a, b.c); undefined when they do not scan as a key. */
  keys: readonly string[] | undefined;
  /** `[[name]]`: an element of an array of tables. */
  array: boolean;
}

/**
 * Every top-level table header of a TOML text, in one linear lexical pass that steps over strings
 * (multi-line ones included), comments, and arrays and inline tables spanning lines. Undefined when the
 * pass meets something a TOML parser would reject (an unterminated string, unbalanced brackets): the
 * caller then parses the text whole, for the parser's own error. Lets a large file be parsed one table
 * at a time, so its whole parse tree never exists at once.
 * @example tomlHeaders('a = 1\n[[eval]]\nid = "x"\n') // [{ start: 6, line: 2, keys: ['eval'], array: true }]
 */
export function tomlHeaders(text: string): TomlHeader[] | undefined {
  return runSteps(tomlHeaderSteps(text));
}

/**
 * {@link tomlHeaders} as a generator that yields after every {@link HEADERS_PER_YIELD} headers, and at the
 * first line start once {@link CHARS_PER_YIELD} characters were scanned since the last yield (see
 * core/event-loop-turns.ts).
 */
export function* tomlHeaderSteps(text: string): Generator<void, TomlHeader[] | undefined> {
  const headers: TomlHeader[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  let first = true; // no value character yet on this line
  let yieldedAt = 0; // offset of the last yield
  // Key segments by header text: 100,000 `[[suite.eval]]` headers are scanned as a key once.
  const segments = new Map<string, readonly string[] | undefined>();
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      lineStart = i;
      first = true;
      if (i - yieldedAt >= CHARS_PER_YIELD) {
        yieldedAt = i;
        yield;
      }
      continue;
    }
    if (c === 32 || c === 9 || c === 13) {
      i++;
      continue;
    }
    const atStart = first;
    first = false;
    if (c === 35) {
      // # comment, to the end of the line
      const j = text.indexOf('\n', i);
      i = j < 0 ? n : j;
    } else if (c === 34 || c === 39) {
      const end = skipTomlString(text, i);
      if (end < 0) return undefined;
      // A multi-line string may end on a later line; the rest of that line is no line start. (A
      // one-line string holds no newline: skipTomlString refuses one.)
      if (text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c) for (let k = i; k < end; k++) if (text.charCodeAt(k) === 10) line++;
      i = end;
    } else if (c === 91 && depth === 0 && atStart) {
      const array = text.charCodeAt(i + 1) === 91;
      const from = i + (array ? 2 : 1);
      let j = from;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 93 || d === 10) break;
        if (d === 34 || d === 39) {
          const end = skipTomlString(text, j);
          if (end < 0) return undefined;
          j = end;
        } else j++;
      }
      if (text.charCodeAt(j) !== 93 || (array && text.charCodeAt(j + 1) !== 93)) return undefined;
      const name = text.slice(from, j);
      let keys = segments.get(name);
      if (keys === undefined && !segments.has(name)) {
        keys = tomlKeySegments(name);
        segments.set(name, keys && Object.freeze(keys));
      }
      // Headers of one text share their segments (frozen): a copy each was 5 MB of a 100,000-case file's load.
      headers.push({ start: lineStart, line, keys, array });
      i = j + (array ? 2 : 1);
      if (headers.length % HEADERS_PER_YIELD === 0) {
        yieldedAt = i;
        yield;
      }
    } else {
      if (c === 91 || c === 123) depth++;
      else if ((c === 93 || c === 125) && --depth < 0) return undefined;
      i++;
    }
  }
  return depth === 0 ? headers : undefined;
}

/**
 * Headers scanned between two yields: a few hundred take well under a millisecond. A yield per header passed
 * 100,000 yields through the loader's generators, whose `yield*` loops then ran hot enough for V8 to compile
 * them (the largest, the case-by-case load, twice: once for the scan, again for the cases).
 */
const HEADERS_PER_YIELD = 256;

/**
 * Characters scanned between two yields at most, give or take a line: cases embedding large text would
 * otherwise pass many MB between turns (256 cases of 100 KB each, 25 MB) before their 256th header.
 */
const CHARS_PER_YIELD = 1 << 20;

/** End (exclusive) of the TOML string opening at `i`, or -1 when it does not close. */
function skipTomlString(text: string, i: number): number {
  const q = text.charCodeAt(i);
  const n = text.length;
  const basic = q === 34;
  if (text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q) {
    // Multi-line: ends at the first unescaped triple quote, which may carry one or two more quotes.
    for (let j = i + 3; j < n; j++) {
      const c = text.charCodeAt(j);
      if (basic && c === 92) j++;
      else if (c === q && text.charCodeAt(j + 1) === q && text.charCodeAt(j + 2) === q) {
        let end = j + 3;
        for (let extra = 0; extra < 2 && text.charCodeAt(end) === q; extra++) end++;
        return end;
      }
    }
    return -1;
  }
  for (let j = i + 1; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c === 10) return -1;
    if (basic && c === 92) {
      // An escaped newline is no escape in a one-line string: not a string this scan knows.
      if (text.charCodeAt(j + 1) === 10 || text.charCodeAt(j + 1) === 13) return -1;
      j++;
    } else if (c === q) return j + 1;
  }
  return -1;
}

/**
 * Parse the part of a TOML text between two line starts (`line` is the line of `start`), as
 * parseStructuredText does the whole: syntax errors and `lines` count lines of the whole text (the
 * line index is built on first use, see tomlLineFinder).
 */
export function parseTomlSlice(text: string, range: { start: number; end: number; line: number }, opts: StructuredOptions): StructuredText {
  const offset = range.line - 1;
  let data: unknown;
  try {
    data = parseToml(text.slice(range.start, range.end));
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const what = err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
    throw opts.error(`${opts.file}:${err.line + offset}:${err.column}: TOML syntax error: ${what}`, {
      hint: tomlSyntaxHint(text.slice(range.start, range.end), err, opts.syntaxHint ?? DEFAULT_SYNTAX_HINT.toml),
      cause: err,
    });
  }
  const finder = tomlLineFinder(text.slice(range.start, range.end));
  return { data, format: 'toml', lines: (path) => finder(path) + offset };
}

/** `file:line: field: message` for one zod issue. */
export function issueMessage(file: string, lines: LineFinder | undefined, issue: z.core.$ZodIssue): string {
  const path = issue.path as PathSegment[];
  const place = lines ? `${file}:${lines(path)}` : file;
  return `${place}: ${dotPath(path)}: ${issue.message}`;
}

/**
 * Validate parsed data with a zod schema. The issue that comes first in the file is reported (so fixing top
 * to bottom works) as `file:line: field: message`; an unknown field is one of them, with the closest known
 * field, and an extension field (`x_…`) is dropped (core/strict-fields.ts).
 */
export function validateStructured<T>(
  schema: z.ZodType<T>,
  parsed: Pick<StructuredText, 'data' | 'lines'>,
  opts: { file: string; error: ErrorFactory; hint?: string },
): T {
  let data = parsed.data;
  for (let attempt = 0; ; attempt++) {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    const { unknown, extensions } = unknownFields(result.error.issues);
    const others = result.error.issues.filter((i) => i.code !== 'unrecognized_keys');
    if (unknown.length === 0 && others.length === 0 && attempt === 0) {
      data = withoutFields(data, extensions);
      continue;
    }
    const problems = [
      ...unknown.map((u) => ({
        path: [...u.path, u.key] as PathSegment[],
        message: unknownFieldMessage(u.key, knownKeysAt(schema, u.path)),
        unknownField: true,
      })),
      ...others.map((i) => ({ path: i.path as PathSegment[], message: i.message, unknownField: false })),
    ];
    // An unknown field goes first: a misspelled required field also makes that field "missing".
    const first = [...problems].sort((a, b) => Number(b.unknownField) - Number(a.unknownField) || parsed.lines(a.path) - parsed.lines(b.path))[0]!;
    const hint = first.unknownField ? [UNKNOWN_FIELD_HINT, opts.hint].filter(Boolean).join('; ') : opts.hint;
    throw opts.error(`${opts.file}:${parsed.lines(first.path)}: ${dotPath(first.path)}: ${first.message}`, hint !== undefined ? { hint } : {});
  }
}

/** Read, parse and validate a structured file: the three steps above in one call. */
export function loadStructuredFile<T>(path: string, schema: z.ZodType<T>, opts: Omit<StructuredOptions, 'file'> & { hint?: string; file?: string }): T {
  const file = opts.file ?? path;
  const parsed = parseStructuredText(readFileSync(path, 'utf8'), { ...opts, file });
  return validateStructured(schema, parsed, { file, error: opts.error, ...(opts.hint !== undefined ? { hint: opts.hint } : {}) });
}
