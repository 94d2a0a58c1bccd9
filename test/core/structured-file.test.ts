import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseStructuredText, validateStructured } from '../../src/core/structured-file.js';

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
    expect(() => validateStructured(schema, parseStructuredText(toml, { file: 'f.toml', error }), { file: 'f.toml', error })).toThrow(/^f\.toml:7: item\[1\]\.count: /);
    const json = '{\n  "item": [\n    { "name": "a", "count": 1 },\n    { "name": 3, "count": 2 }\n  ]\n}';
    expect(() => validateStructured(schema, parseStructuredText(json, { file: 'f.json', error }), { file: 'f.json', error })).toThrow(/^f\.json:4: item\[1\]\.name: /);
  });
  it('returns the parsed data when it is valid (a byte-order mark is fine)', () => {
    const parsed = parseStructuredText('\ufeff[[item]]\nname = "a"\ncount = 1\n', { file: 'f.toml', error });
    expect(validateStructured(schema, parsed, { file: 'f.toml', error })).toEqual({ item: [{ name: 'a', count: 1 }] });
  });
});
