import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { simpleToml } from '../../src/core/_simple-toml.js';
import { parseTomlSlice } from '../../src/core/structured-file.js';

// The fast path of the per-case TOML parse must give exactly what smol-toml gives (values, key order,
// tables without a prototype) or step aside (undefined), never parse what smol-toml rejects.

/** Deep equality that also compares prototypes and key order. */
function sameData(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join('\0') !== kb.join('\0')) return false;
  return ka.every((k) => sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function smol(text: string): unknown {
  try {
    return parseToml(text);
  } catch {
    return 'error';
  }
}

const TAKEN = [
  '[[eval]]\nid = "case-0"\nprompt = "restart nginx on web-01 (ticket 0)"\nexpect_tool = "restart-service"\nexpect_host = "web-01"\nexpect_args = { service = "nginx" }\ntags = ["bench"]\n\n',
  '[[eval]]\nid = "a"\n',
  '[[eval]]\nid = "a"',
  '[[eval]] # the first\n  id = "a"   # trailing\n\n# a comment line\n\tprompt = "p # not a comment"\n',
  'description = "top level"\n',
  '',
  '\n\n# only comments\n',
  '[[eval]]\nn = 0\nm = 42\nf = 0.5\ng = 1.0\nh = 123456789012345\nt = true\nu = false\n',
  '[[eval]]\ntags = []\nl = [ ]\nm = ["a", "b",]\nn = [ "x" , "y" ]\ne = ""\n',
  '[[eval]]\nargs = {}\nb = { x = 1, y = "two", z = true, w = 0.25 }\nc = { }\n',
  '[[eval]]\nprompt = "ünïcödé ✓ and 🙂 and [brackets] and {braces}"\n',
  '[[eval]]\nkey-with_dashes = "v"\n123 = "numeric key"\n',
];

const REFUSED = [
  '[[eval]]\nid = "a"\nid = "b"\n', // duplicate key
  '[[eval]]\nprompt = "tab\there"\n', // a tab (TOML allows it; left to smol-toml)
  '[[eval]]\nprompt = "esc \\n"\n', // an escape
  "[[eval]]\nprompt = 'literal'\n",
  '[[eval]]\nprompt = """multi"""\n',
  '[[eval]]\r\nid = "a"\r\n', // CRLF
  '[[eval]]\nn = 01\n',
  '[[eval]]\nn = -1\n',
  '[[eval]]\nn = 1_000\n',
  '[[eval]]\nn = 1e5\n',
  '[[eval]]\nn = 1234567890123456\n',
  '[[eval]]\nn = inf\n',
  '[[eval]]\nd = 1979-05-27\n',
  '[[eval]]\na.b = "dotted"\n',
  '[[eval]]\n"quoted" = "key"\n',
  '[[eval]]\n__proto__ = "x"\n',
  '[[eval]]\nt = { __proto__ = "x" }\n',
  '[[eval]]\nt = { a = "1", a = "2" }\n',
  '[[eval]]\nt = { a = "1", }\n',
  '[[eval]]\nt = { a = { b = "1" } }\n',
  '[[eval]]\nl = [1, 2]\n',
  '[[eval]]\nl = ["a"\n, "b"]\n',
  '[[eval]]\nl = ["a" "b"]\n',
  '[[eval]]\nl = [,]\n',
  '[[eval]]\nl = ["a",,]\n',
  '[[eval]]\nl = ["has ] inside"]\n',
  '[[eval]]\nprompt = "a" "b"\n',
  '[[eval]]\nprompt = "unterminated\n',
  '[[eval]]\nprompt = "ctrl \u0001"\n',
  '[[eval]]\nprompt = "del \u007f"\n',
  '[[eval]]\nid = "a" # ctrl \u0001 in a comment\n',
  '[[eval]]\nid =\n',
  '[[eval]]\nid\n',
  '[eval]\nid = "a"\n',
  '[[ eval ]]\nid = "a"\n',
  '[[eval.sub]]\nid = "a"\n',
  '[[__proto__]]\nid = "a"\n',
  '[[eval]]\n[eval.expect_args]\nx = "1"\n',
  '[[eval]]\nb = true2\n',
];

describe('simpleToml, the fast path of a TOML part', () => {
  it('parses the plain shapes exactly as smol-toml does', () => {
    for (const text of TAKEN) {
      const fast = simpleToml(text, 0, text.length);
      expect(fast, JSON.stringify(text)).toBeDefined();
      expect(sameData(fast, smol(text)), JSON.stringify(text)).toBe(true);
    }
  });

  it('steps aside for everything else, including what smol-toml rejects', () => {
    for (const text of REFUSED) expect(simpleToml(text, 0, text.length), JSON.stringify(text)).toBeUndefined();
  });

  it('parses a part of a larger text between line starts, and only that part', () => {
    const text = 'description = "d"\n[[eval]]\nid = "a"\n[[eval]]\nid = "b"\nprompt = "p"\n';
    const second = text.lastIndexOf('[[eval]]');
    const first = text.indexOf('[[eval]]');
    expect(sameData(simpleToml(text, first, second), smol(text.slice(first, second)))).toBe(true);
    expect(sameData(simpleToml(text, second, text.length), smol(text.slice(second)))).toBe(true);
    expect(sameData(simpleToml(text, 0, first), smol(text.slice(0, first)))).toBe(true);
    // An end that is not a line start is not for this path.
    expect(simpleToml(text, first, second - 3)).toBeUndefined();
  });

  it('gives parseTomlSlice the same data and the same lines either way', () => {
    const text = 'a = 1\n[[eval]]\nid = "x"\nexpect_args = { k = "v" }\n';
    const start = text.indexOf('[[eval]]');
    const slice = parseTomlSlice(text, { start, end: text.length, line: 2 }, { file: 'f.toml', error: (m) => new Error(m) });
    expect(sameData(slice.data, smol(text.slice(start)))).toBe(true);
    expect(slice.lines?.(['eval', 0, 'expect_args', 'k'])).toBe(4);
  });

  it('agrees with smol-toml on generated lines of every kind (taken or refused, never different)', () => {
    const values = ['"s"', '""', '"a b # c"', '0', '7', '0.5', '1.25', 'true', 'false', '["x"]', '[]', '["x", "y",]', '{ k = "v" }', '{}', '{ k = 1, j = false }', '01', '"\\t"', "'x'", '[1]', '{ k = "v", }', 'nan'];
    const keys = ['id', 'prompt', 'k-1', 'x_y', '9'];
    let taken = 0;
    for (const v of values) {
      for (const k of keys) {
        for (const text of [`[[eval]]\n${k} = ${v}\n`, `${k} = ${v}\n# c\n`, `[[eval]]\nid = "a"\n${k} = ${v} # c\n`]) {
          const fast = simpleToml(text, 0, text.length);
          if (fast === undefined) continue;
          taken++;
          expect(sameData(fast, smol(text)), JSON.stringify(text)).toBe(true);
        }
      }
    }
    expect(taken).toBeGreaterThan(100);
  });
});
