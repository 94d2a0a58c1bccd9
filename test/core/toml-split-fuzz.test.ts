import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parseTomlSlice, tomlHeaders } from '../../src/core/structured-file.js';
import { loadFixtureText } from '../../src/fixtures/index.js';
import { loadRunspecTomlByCase } from '../../src/fixtures/load.js';
import { FixtureError } from '../../src/errors.js';

// The `[[eval]]` header splitter (tomlHeaders) differential-fuzzed against smol-toml: for generated TOML
// files full of what trips a lexer (multi-line and literal strings holding `[[eval]]`, comments, arrays
// and inline tables over several lines, arrays of tables, escapes, CRLF), splitting at the headers and
// parsing each part gives what smol-toml gives for the whole text; a file smol-toml rejects is rejected;
// and where the splitter cannot tell (it says undefined) the loader parses the text whole.

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Text that is hard for a lexer inside a string: header look-alikes, quotes, brackets, hashes. */
const TRICKY = ['[[eval]]', '[eval]', '[[suite]]', '# not a comment', ']', '[', '{', '}', '"', "'", '""', "''", '\\\\', 'plain', 'a = 1', '=', 'ü ✓'];

function basicString(r: () => number): string {
  const parts = Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, TRICKY).replace(/\\\\/g, '\\\\').replace(/"/g, '\\"'));
  return `"${parts.join(' ')}"`;
}

function literalString(r: () => number): string {
  return `'${Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, TRICKY).replace(/'/g, '')).join(' ')}'`;
}

function multiLineString(r: () => number, nl: string): string {
  const lines = Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, TRICKY));
  if (r() < 0.5) return `"""${nl}${lines.map((l) => l.replace(/\\/g, '\\\\').replace(/"""/g, '""\\"')).join(nl)}${r() < 0.3 ? '""' : ''}"""`;
  return `'''${nl}${lines.map((l) => l.replace(/'''/g, "''")).join(nl)}${r() < 0.3 ? "''" : ''}'''`;
}

function value(r: () => number, nl: string, depth = 0): string {
  const k = r();
  if (k < 0.25) return basicString(r);
  if (k < 0.4) return literalString(r);
  if (k < 0.55) return multiLineString(r, nl);
  if (k < 0.65) return String(Math.floor(r() * 100));
  if (k < 0.7) return pick(r, ['true', 'false', '1.5', '1979-05-27']);
  if (depth > 1) return basicString(r);
  if (k < 0.85) {
    const items = Array.from({ length: Math.floor(r() * 3) }, () => value(r, nl, depth + 1));
    return r() < 0.5 ? `[${items.join(', ')}]` : `[${nl}  ${items.map((i) => `${i},${r() < 0.3 ? ' # [[eval]]' : ''}`).join(`${nl}  `)}${nl}]`;
  }
  const keys = ['a', 'b', '"$regex"', "'q.k'", 'c'].slice(0, 1 + Math.floor(r() * 3));
  return `{ ${keys
    .map(
      (key) =>
        `${key} = ${value(r, nl, depth + 1)
          .replace(/\r?\n/g, ' ')
          .replace(/"""|'''/g, '"')}`,
    )
    .join(', ')} }`;
}

function comment(r: () => number): string {
  return `# ${pick(r, TRICKY)}`;
}

/** A TOML text: a prelude, then cases with sub-tables; sometimes broken on purpose. */
function tomlFile(r: () => number): string {
  const nl = r() < 0.2 ? '\r\n' : '\n';
  const out: string[] = [];
  if (r() < 0.5) out.push(`description = ${value(r, nl)}`);
  if (r() < 0.3) out.push(comment(r));
  const cases = 1 + Math.floor(r() * 5);
  for (let c = 0; c < cases; c++) {
    out.push(`${r() < 0.2 ? '  ' : ''}[[eval]]${r() < 0.2 ? ` ${comment(r)}` : ''}`);
    out.push(`id = "c${c}"`);
    for (let f = Math.floor(r() * 4); f > 0; f--)
      out.push(
        `${pick(r, ['prompt', 'x_note', 'tags', 'k', '"quoted key"', 'dotted.key'])}${r() < 0.5 ? '' : String(f)} = ${value(r, nl)}${r() < 0.2 ? ` ${comment(r)}` : ''}`,
      );
    if (r() < 0.2) out.push(comment(r));
    if (r() < 0.25) out.push(`[eval.expect_args]${nl}service = ${value(r, nl)}`);
    if (r() < 0.15) out.push(`[[eval.turns]]${nl}say = ${value(r, nl)}`);
    if (r() < 0.05) out.push(`[other]${nl}z = 1`);
    if (r() < 0.03) out.push(`x = ${pick(r, ['"unterminated', "'''open", '[1, 2', '{ a = 1', 'nope'])}`);
  }
  return out.join(nl) + (r() < 0.5 ? nl : '');
}

/** What splitting at the top-level `[[eval]]` headers and parsing each part gives, as loadFixtureText does it. */
function parseSplit(text: string): { data: unknown } | { error: true } | undefined {
  const headers = tomlHeaders(text);
  if (headers === undefined) return undefined;
  const error = (message: string): Error => new Error(message);
  const at = headers.map((h, i) => ({ h, i })).filter(({ h }) => h.array && h.keys?.length === 1 && h.keys[0] === 'eval');
  const starts = [...at.map(({ h }) => h.start), text.length];
  try {
    const data = parseTomlSlice(text, { start: 0, end: starts[0]!, line: 1 }, { file: 'f.toml', error }).data as Record<string, unknown>;
    if (at.length > 0) data.eval = [];
    for (let i = 0; i < at.length; i++) {
      const part = parseTomlSlice(text, { start: starts[i]!, end: starts[i + 1]!, line: at[i]!.h.line }, { file: 'f.toml', error }).data as Record<
        string,
        unknown
      >;
      for (const [k, v] of Object.entries(part)) {
        if (k === 'eval') (data.eval as unknown[]).push(...(v as unknown[]));
        else if (k in data) return { error: true };
        else data[k] = v;
      }
    }
    return { data };
  } catch {
    return { error: true };
  }
}

const isSyntaxError = (x: unknown): boolean => typeof x === 'object' && x !== null && (x as { code?: string }).code === 'FIXTURE_SYNTAX';

describe('the [[eval]] splitter against smol-toml', () => {
  it('splits generated files into parts that parse to what the whole text parses to', () => {
    const r = rng(20261202);
    let split = 0;
    let rejected = 0;
    for (let n = 0; n < 3000; n++) {
      const text = tomlFile(r);
      let whole: { data: unknown } | { error: true };
      try {
        whole = { data: parseToml(text) };
      } catch {
        whole = { error: true };
      }
      const parts = parseSplit(text);
      if (parts === undefined) continue; // the loader parses these whole
      if ('error' in whole) {
        rejected++;
        // A text smol-toml rejects is rejected split too (or its parts merge into a conflict).
        expect(parts, text).toEqual({ error: true });
        continue;
      }
      split++;
      expect(parts, text).toEqual(whole);
    }
    // The generator reaches both kinds of file.
    expect(split).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(20);
  });

  it('loads generated fixture files case by case to the cases the whole-file parse holds, and rejects what smol-toml rejects', () => {
    const r = rng(31);
    let loaded = 0;
    for (let n = 0; n < 1500; n++) {
      const nl = r() < 0.2 ? '\r\n' : '\n';
      const out: string[] = [];
      if (r() < 0.3) out.push(comment(r));
      const count = 1 + Math.floor(r() * 4);
      for (let c = 0; c < count; c++) {
        out.push(`[[eval]]${r() < 0.2 ? ` ${comment(r)}` : ''}`, `id = "c${c}"`);
        out.push(`prompt = ${pick(r, [basicString, literalString, (x: () => number) => multiLineString(x, nl)])(r)}`);
        if (r() < 0.4) out.push(`x_note = ${value(r, nl)}`);
        if (r() < 0.2) out.push(comment(r));
        if (r() < 0.3) out.push(`[eval.expect_args]${nl}service = ${basicString(r)}`);
        if (r() < 0.03) out.push(`x_bad = ${pick(r, ['"unterminated', "'''open", '[1, 2', '{ a = 1', 'nope'])}`);
      }
      const text = out.join(nl) + nl;
      let whole: { eval: Array<{ id: string; prompt: string }> } | undefined;
      try {
        whole = parseToml(text) as typeof whole;
      } catch {
        whole = undefined;
      }
      let cases;
      try {
        cases = loadFixtureText(text, { file: 'f.toml' })[0]!.cases;
      } catch (err) {
        if (!(err instanceof FixtureError)) throw err;
        expect(whole, `${err.message}\n${text}`).toBeUndefined();
        expect(err.code).toBe('FIXTURE_SYNTAX');
        continue;
      }
      expect(whole, text).toBeDefined();
      expect(
        cases.map((c) => [c.id, c.prompt]),
        text,
      ).toEqual(whole!.eval.map((e) => [e.id, e.prompt]));
      // Each case's line is its header's: the line above its `id` (no generated string holds an `id = "cN"` line).
      const lines = text.split('\n');
      expect(
        cases.map((c) => c.source.line),
        text,
      ).toEqual(cases.map((c) => lines.findIndex((l) => l.startsWith(`id = "${c.id}"`))));
      loaded++;
    }
    expect(loaded).toBeGreaterThan(1000);
  });

  it('loads generated [[suite]] files table by table to the suites the whole-file load gives', () => {
    const r = rng(4242);
    let byCase = 0;
    let rejected = 0;
    const anyString = (nl: string): string => pick(r, [basicString, literalString, (x: () => number) => multiLineString(x, nl)])(r);
    const escaped = (): string => pick(r, TRICKY).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    /** A string for an array element: any kind, or a multi-line basic one holding an escaped `\"""` and a bracket. */
    const arrayString = (nl: string): string => (r() < 0.5 ? anyString(nl) : `"""${escaped()} \\""" [${nl}${escaped()}${nl}${escaped()}"""`);
    for (let n = 0; n < 1500; n++) {
      const nl = r() < 0.2 ? '\r\n' : '\n';
      const out: string[] = [];
      if (r() < 0.3) out.push(comment(r));
      if (r() < 0.2) out.push(`description = ${basicString(r)}`);
      const evalCase = (c: number): void => {
        out.push(`[[eval]]`, `id = "e${c}"`, `prompt = ${basicString(r)}`);
        if (r() < 0.3) out.push(`[eval.expect_args]${nl}service = ${basicString(r)}`);
      };
      if (r() < 0.15) evalCase(0);
      const suites = 1 + Math.floor(r() * 3);
      for (let s = 0; s < suites; s++) {
        out.push(`${r() < 0.1 ? '  ' : ''}[[suite]]${r() < 0.2 ? ` ${comment(r)}` : ''}`, `name = "${r() < 0.03 ? 's0' : `s${s}`}"`);
        if (r() < 0.4) out.push(`system = ${anyString(nl)}`);
        if (r() < 0.3) out.push(`[suite.vars]${nl}k = ${basicString(r)}`);
        if (r() < 0.05) out.push(`eval = []`);
        const count = Math.floor(r() * 4);
        for (let c = 0; c < count; c++) {
          out.push(`[[suite.eval]]${r() < 0.2 ? ` ${comment(r)}` : ''}`, `id = "${r() < 0.03 ? 's0c0' : `s${s}c${c}`}"`);
          out.push(`prompt = ${anyString(nl)}`);
          if (r() < 0.3) out.push(`vars = { k2 = ${basicString(r)} }`);
          // Multi-line strings inside a multi-line array too, opening right after the bracket or after an
          // element, holding `\"""` escapes and brackets: the whole-file line index must skip them all.
          if (r() < 0.3)
            out.push(
              `x_note = ${pick(r, [
                `[${nl}  ${basicString(r)}, # ]${nl}  ${literalString(r)},${nl}]`,
                `[ ${arrayString(nl)}, ${anyString(nl)}, # ]${nl}  ${arrayString(nl)},${nl}]`,
                `{ a = ${basicString(r)} }`,
                literalString(r),
              ])}`,
            );
          if (r() < 0.2) out.push(comment(r));
          if (r() < 0.3) out.push(`[suite.eval.expect_args]${nl}service = ${basicString(r)}`);
          if (r() < 0.03) out.push(`x_bad = ${pick(r, ['"unterminated', "'''open", '[1, 2', '{ a = 1', 'nope'])}`);
          if (r() < 0.02) out.push(`samples = "two"`);
        }
        if (r() < 0.05) out.push(`[suite.headers]${nl}h = "v"`);
      }
      if (r() < 0.1) evalCase(1);
      const text = out.join(nl) + nl;
      const attempt = (f: () => unknown): unknown => {
        try {
          return f();
        } catch (err) {
          if (!(err instanceof FixtureError)) throw err;
          return { code: err.code, message: err.message };
        }
      };
      // The text with a trailing extension table, which the table-by-table load declines and the whole-file
      // load drops: what the whole-file load makes of the text.
      // (A syntax error at the very end may then be placed a column apart: those compare by code.)
      // Each load's warnings too, which must come in the same order.
      const warned = { whole: [] as string[], loaded: [] as string[], split: [] as string[] };
      const opts = (k: keyof typeof warned) => ({ file: 'f.toml', onWarning: (w: string) => void warned[k].push(w) });
      const whole = attempt(() => loadFixtureText(`${text}[x_whole]${nl}`, opts('whole')));
      const loaded = attempt(() => loadFixtureText(text, opts('loaded')));
      if (isSyntaxError(whole)) expect(loaded, text).toMatchObject({ code: 'FIXTURE_SYNTAX' });
      else {
        expect(loaded, text).toEqual(whole);
        expect(warned.loaded, text).toEqual(warned.whole);
      }
      const split = attempt(() => loadRunspecTomlByCase(text, opts('split')));
      if (split === undefined) {
        if (!Array.isArray(whole)) rejected++;
        // A declined file warns nothing: the whole-file load it falls back to gives the warnings.
        expect(warned.split, text).toEqual([]);
        continue;
      }
      byCase++;
      expect(split, text).toEqual(whole);
      expect(warned.split, text).toEqual(warned.whole);
    }
    // Most files load table by table; the bad ones fall back and fail as the whole file does.
    expect(byCase).toBeGreaterThan(900);
    expect(rejected).toBeGreaterThan(50);
  });
});
