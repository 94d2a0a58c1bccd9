// The one loader for our structured files (fixtures, toolset files, runspec.toml, schedules, rules):
// TOML or JSON text → data plus a line index (built once, linear in the text) → zod → errors of the
// form `file:line: field: message` (syntax errors as `file:line:col: TOML syntax error: ...`).
import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { jsonTooDeepAt, MAX_JSON_NESTING, scanJson } from './json-scan.js';
import { dotPath, jsonLineFinder, lineColOf, tomlLineFinder, type LineFinder, type PathSegment } from './lines.js';

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
}

const DEFAULT_SYNTAX_HINT: Record<StructuredFormat, string> = {
  toml: 'fix the TOML at that position (strings need quotes; arrays of tables are written [[name]])',
  json: 'fix the JSON at that position (no trailing commas or comments in JSON)',
};

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
      throw opts.error(`${opts.file}:${err.line}:${err.column}: TOML syntax error: ${what}`, { hint: opts.syntaxHint ?? DEFAULT_SYNTAX_HINT.toml, cause: err });
    }
    return { data, format, lines: tomlLineFinder(text) };
  }
  const tooDeep = jsonTooDeepAt(text);
  if (tooDeep !== undefined) {
    const { line, col } = lineColOf(text, tooDeep);
    throw opts.error(`${opts.file}:${line}:${col}: nested deeper than ${MAX_JSON_NESTING} levels`, { hint: 'flatten the value; no input of ours needs that depth' });
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
  return { data, format, lines: jsonLineFinder(text) };
}

/** `file:line: field: message` for one zod issue. */
export function issueMessage(file: string, lines: LineFinder | undefined, issue: z.core.$ZodIssue): string {
  const path = issue.path as PathSegment[];
  const place = lines ? `${file}:${lines(path)}` : file;
  return `${place}: ${dotPath(path)}: ${issue.message}`;
}

/**
 * Validate parsed data with a zod schema. The issue that comes first in the file is reported (so
 * fixing top to bottom works) as `file:line: field: message`.
 */
export function validateStructured<T>(schema: z.ZodType<T>, parsed: Pick<StructuredText, 'data' | 'lines'>, opts: { file: string; error: ErrorFactory; hint?: string }): T {
  const result = schema.safeParse(parsed.data);
  if (result.success) return result.data;
  const lineOf = (i: z.core.$ZodIssue): number => parsed.lines(i.path as PathSegment[]);
  const issue = [...result.error.issues].sort((a, b) => lineOf(a) - lineOf(b))[0]!;
  throw opts.error(issueMessage(opts.file, parsed.lines, issue), opts.hint !== undefined ? { hint: opts.hint } : {});
}

/** Read, parse and validate a structured file: the three steps above in one call. */
export function loadStructuredFile<T>(path: string, schema: z.ZodType<T>, opts: Omit<StructuredOptions, 'file'> & { hint?: string; file?: string }): T {
  const file = opts.file ?? path;
  const parsed = parseStructuredText(readFileSync(path, 'utf8'), { ...opts, file });
  return validateStructured(schema, parsed, { file, error: opts.error, ...(opts.hint !== undefined ? { hint: opts.hint } : {}) });
}
