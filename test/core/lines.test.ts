import { describe, expect, it } from 'vitest';
import { dotPath, jsonLineFinder, jsonLineIndex, tomlLineFinder } from '../../src/core/lines.js';

const TOML = `# a comment with [brackets]
title = "x"

[llm]
tool_mode = "dedup"
"quoted-key" = 1

[[suite]]
name = "ops"

[[suite.eval]]
id = "a"
prompt = """
[[eval]]
not a header = inside a string
"""
expect_args = { name = "api" }

[[suite.eval]]
id = "b"
forbid_tools = [
  "x",
  [ "nested" ],
]
expect_tool = "t"

[suite.eval.expect_args]
name = "web"

[[suite]]
name = "dev"

[[suite.eval]]
id = "c"

[[eval]]
id = "top"
a.b.c = 1
`;

describe('tomlLineFinder', () => {
  const lines = tomlLineFinder(TOML);
  const lineOf = (needle: string): number => TOML.split('\n').findIndex((l) => l.includes(needle)) + 1;
  it.each([
    { path: ['llm', 'tool_mode'], at: 'tool_mode =' },
    { path: ['llm', 'quoted-key'], at: '"quoted-key"' },
    { path: ['suite', 0, 'name'], at: 'name = "ops"' },
    { path: ['suite', 0, 'eval', 0, 'id'], at: 'id = "a"' },
    // A header-looking line inside a multi-line string is not a header.
    { path: ['suite', 0, 'eval', 0, 'expect_args'], at: 'expect_args = {' },
    { path: ['suite', 0, 'eval', 0, 'expect_args', 'name'], at: 'expect_args = {' },
    { path: ['suite', 0, 'eval', 1, 'id'], at: 'id = "b"' },
    // Lines of a multi-line array are not keys or headers.
    { path: ['suite', 0, 'eval', 1, 'expect_tool'], at: 'expect_tool = "t"' },
    { path: ['suite', 0, 'eval', 1, 'forbid_tools', 1], at: 'forbid_tools = [' },
    { path: ['suite', 0, 'eval', 1, 'expect_args', 'name'], at: 'name = "web"' },
    // Array elements are counted per parent element.
    { path: ['suite', 1, 'eval', 0, 'id'], at: 'id = "c"' },
    { path: ['eval', 0, 'id'], at: 'id = "top"' },
    { path: ['eval', 0, 'a', 'b', 'c'], at: 'a.b.c = 1' },
  ])('$path is on the line of $at', ({ path, at }) => {
    expect(lines(path)).toBe(lineOf(at));
  });

  it('falls back to the nearest located ancestor, else line 1', () => {
    expect(lines(['eval', 7])).toBe(lineOf('id = "top"') - 1);
    expect(lines(['nothing', 'here'])).toBe(1);
  });

  it('answers header paths from the headers and keys below them afterwards, in either order', () => {
    // The index is built lazily, headers first: a fresh finder asked for a header, then for keys.
    const fresh = tomlLineFinder(TOML);
    expect(fresh(['suite', 1, 'eval', 0])).toBe(lineOf('id = "c"') - 1);
    expect(fresh(['suite', 0, 'eval', 1, 'expect_args', 'name'])).toBe(lineOf('name = "web"'));
    expect(fresh(['suite', 1, 'eval', 0])).toBe(lineOf('id = "c"') - 1);
    const keysFirst = tomlLineFinder(TOML);
    expect(keysFirst(['eval', 0, 'a', 'b', 'c'])).toBe(lineOf('a.b.c = 1'));
    expect(keysFirst(['eval', 0])).toBe(lineOf('id = "top"') - 1);
  });

  it('locates the first and the last of 2,000 cases from one index', () => {
    const n = 2000;
    const text = Array.from({ length: n }, (_, i) => `[[eval]]\nid = "case-${i}"\nprompt = "p"\n`).join('\n');
    const find = tomlLineFinder(text);
    expect(find(['eval', 0, 'id'])).toBe(2);
    expect(find(['eval', n - 1, 'prompt'])).toBe((n - 1) * 4 + 3);
  });
});

describe('jsonLineFinder', () => {
  it('maps keys and array elements to their lines', () => {
    const text = '{\n  "cases": [\n    { "id": "a" },\n    {\n      "id": "b"\n    }\n  ]\n}\n';
    const find = jsonLineFinder(text);
    expect(find(['cases', 1, 'id'])).toBe(5);
    expect(find(['cases', 0, 'id'])).toBe(3);
    expect(find(['missing'])).toBe(1);
  });

  it('answers deep paths (indexed on first use) as shallow ones, and nothing after release', () => {
    const text =
      '{\n  "cases": [\n    {\n      "id": "a",\n      "args": {\n        "x": [\n          1,\n          { "y": 2 }\n        ]\n      }\n    }\n  ]\n}\n';
    const index = jsonLineIndex(text);
    expect(index.lines(['cases', 0])).toBe(3);
    expect(index.lines(['cases', 0, 'args', 'x', 1, 'y'])).toBe(8);
    expect(index.lines(['cases', 0, 'args', 'nope'])).toBe(5);
    expect(index.lines(['cases', 0, 'id'])).toBe(4);
    index.release();
    expect(index.lines(['cases', 0, 'id'])).toBe(1);
  });
});

describe('dotPath', () => {
  it('renders paths as zod does', () => {
    expect(dotPath(['eval', 3, 'expect_args', 'a-b'])).toBe('eval[3].expect_args["a-b"]');
    expect(dotPath([])).toBe('(root)');
  });
});

describe('tomlLineFinder: multi-line strings inside a multi-line array', () => {
  const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('skips a """ string that opens after the array bracket, brackets inside it included', () => {
    const text = ['[[eval]]', 'id="a"', 'prompt="p"', 'x_notes = [ """first note', 'see [1] below""" ]', 'samples = "two"', ''].join('\n');
    expect(tomlLineFinder(text)(['eval', 0, 'samples'])).toBe(6);
  });

  it('skips a \'\'\' string and a \\""" escape in a """ string across the array\'s lines', () => {
    const text = [
      '[[suite]]',
      'name = "s"',
      '[[suite.eval]]',
      'id = "c"',
      'prompt = "p"',
      'x_note = [',
      '  """a \\""" quote [ and',
      '  more [[suite.eval]]""",',
      "  '''lit [",
      "  done''', ]",
      'samples = "two"',
      '[[suite.eval]]',
      'id = "d"',
      '',
    ].join('\n');
    const find = tomlLineFinder(text);
    expect(find(['suite', 0, 'eval', 0, 'samples'])).toBe(lineOf(text, 'samples ='));
    expect(find(['suite', 0, 'eval', 1, 'id'])).toBe(lineOf(text, 'id = "d"'));
  });

  it('takes up to two quotes before the closing three as part of the string', () => {
    const text = ['a = [ """x', 'y""""" , "[" ]', 'b = 1', ''].join('\n');
    expect(tomlLineFinder(text)(['b'])).toBe(3);
  });
});
