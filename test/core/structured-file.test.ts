import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseStructuredText, parseTomlSlice, tomlHeaders, tomlHeaderSteps, validateStructured } from '../../src/core/structured-file.js';

const error = (message: string, opts: { hint?: string }): Error => Object.assign(new Error(message), { hint: opts.hint });
const schema = z.strictObject({ item: z.array(z.strictObject({ name: z.string(), count: z.number().int() })) });

describe('the structured-file loader', () => {
  it('reports a TOML syntax error as file:line:col', () => {
    expect(() => parseStructuredText('[[item]]\nname = \n', { file: 'f.toml', error })).toThrow(/^f\.toml:2:\d+: TOML syntax error: /);
  });
  it('reports a JSON syntax error as file:line:col', () => {
    expect(() => parseStructuredText('{\n  "item": [,]\n}', { file: 'f.json', error })).toThrow(/^f\.json:\d+:\d+: JSON syntax error: /);
  });
  it('names the line and the field of the first schema error in file order', () => {
    const toml = '[[item]]\nname = "a"\ncount = 1\n\n[[item]]\nname = "b"\ncount = "two"\n';
    expect(() => validateStructured(schema, parseStructuredText(toml, { file: 'f.toml', error }), { file: 'f.toml', error })).toThrow(
      /^f\.toml:7: item\[1\]\.count: /,
    );
    const json = '{\n  "item": [\n    { "name": "a", "count": 1 },\n    { "name": 3, "count": 2 }\n  ]\n}';
    expect(() => validateStructured(schema, parseStructuredText(json, { file: 'f.json', error }), { file: 'f.json', error })).toThrow(
      /^f\.json:4: item\[1\]\.name: /,
    );
  });
  it('returns the parsed data when it is valid (a byte-order mark is fine)', () => {
    const parsed = parseStructuredText('\ufeff[[item]]\nname = "a"\ncount = 1\n', { file: 'f.toml', error });
    expect(validateStructured(schema, parsed, { file: 'f.toml', error })).toEqual({ item: [{ name: 'a', count: 1 }] });
  });
});

describe('top-level TOML headers and slices', () => {
  it('finds every top-level header with its line, stepping over strings, comments and multi-line values', () => {
    const text = [
      'a = "[x]" # [y]',
      '[[eval]]',
      'b = """',
      '[[eval]]',
      '"""',
      "c = '''[z]'''",
      'd = [',
      '  "]",',
      '  { e = "[w]" },',
      ']',
      '  [eval."sub.table"]  # comment',
      '[["eval"]]',
    ].join('\n');
    expect(tomlHeaders(text)?.map((h) => [h.line, h.keys, h.array])).toEqual([
      [2, ['eval'], true],
      [11, ['eval', 'sub.table'], false],
      [12, ['eval'], true],
    ]);
  });

  it.each([
    { name: 'an unterminated string', text: 'a = "x\n[b]\n' },
    { name: 'an unterminated multi-line string', text: 'a = """x\n[b]\n' },
    { name: 'an unclosed array', text: 'a = [1,\n[b]\n' },
    { name: 'an unclosed header', text: '[b\nc = 1\n' },
  ])('gives up on $name (the whole-text parse reports it)', ({ text }) => {
    expect(tomlHeaders(text)).toBeUndefined();
  });

  it('yields between batches of headers, not after each one, and finds the same headers', () => {
    const text = Array.from({ length: 600 }, (_, i) => `[[eval]]\nid = "c${i}"\n`).join('');
    const steps = tomlHeaderSteps(text);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    expect(yields).toBe(2);
    expect(r.value).toEqual(tomlHeaders(text));
    expect(r.value).toHaveLength(600);
  });

  it('yields once about 1 MiB of text is scanned, however few headers it holds', () => {
    // Five cases of 512 KiB each: 2.5 MiB, two yields at the line ends past 1 and 2 MiB.
    const text = Array.from({ length: 5 }, (_, i) => `[[eval]]\nid = "c${i}"\nprompt = "${'x'.repeat(512 << 10)}"\n`).join('');
    const steps = tomlHeaderSteps(text);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    expect(yields).toBe(2);
    expect(r.value?.map((h) => h.line)).toEqual([1, 4, 7, 10, 13]);
  });

  it('parses a slice with the lines of the whole text', () => {
    const text = 'x = 1\n[[item]]\nname = "a"\ncount = 1\n[[item]]\nname = "b"\ncount = "two"\n';
    const [, second] = tomlHeaders(text)!;
    const slice = parseTomlSlice(text, { start: second!.start, end: text.length, line: second!.line }, { file: 'f.toml', error });
    expect(slice.data).toEqual({ item: [{ name: 'b', count: 'two' }] });
    expect(slice.lines(['item', 0, 'count'])).toBe(7);
    expect(() => parseTomlSlice('a = 1\nb = \n', { start: 6, end: 11, line: 2 }, { file: 'f.toml', error })).toThrow(/^f\.toml:2:\d+: TOML syntax error: /);
  });
});
