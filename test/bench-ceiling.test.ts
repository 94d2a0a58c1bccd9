// The bench's ceilings (bench/_ceiling-*.mjs) write the verdict lines `score` and `serve` write, by hand; the
// bench checks on every run that a ceiling's line has the shape of ours for the same trace and rule, so a
// ceiling cannot drift from the real output. Timings are never asserted.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type KeysDiffer = (ceiling: unknown, ours: unknown) => string | undefined;
const { keysDiffer } = (await import(pathToFileURL(join(import.meta.dirname, '..', 'bench', '_ceiling-keys.mjs')).href)) as { keysDiffer: KeysDiffer };

const ours = {
  trace_id: 't1',
  root_span_id: 'r1',
  rule: 'no-restart',
  pass: false,
  tool_args: [{ 'restart-service': { service: 'nginx' } }],
  verdict: { category: 'forbidden_tool', observed: { tool: 'restart-service', args_call: 0 }, checks: [{ check: 'forbid_tools', pass: false }] },
  calls: [{ id: 'call_0', name: 'restart-service', executed: true }],
  family: 'openinference',
};
const copy = (): typeof ours => structuredClone(ours);

describe("the bench's ceiling line check", () => {
  it('accepts a line of the same keys, order and value types with other values', () => {
    expect(keysDiffer({ ...copy(), root_span_id: 'other', pass: true }, ours)).toBeUndefined();
  });

  it.each<{ name: string; edit: (line: any) => void }>([
    { name: 'a missing top-level key', edit: (l) => delete l.family },
    { name: 'an extra top-level key', edit: (l) => (l.supersedes = true) },
    {
      name: 'a key moved',
      edit: (l) => {
        const calls = l.calls;
        delete l.calls;
        l.calls = calls;
      },
    },
    { name: 'a nested key missing', edit: (l) => delete l.verdict.observed.args_call },
    { name: 'a key missing inside an array element', edit: (l) => delete l.calls[0].id },
    { name: 'a value of another type', edit: (l) => (l.pass = 'false') },
  ])('rejects $name', ({ edit }) => {
    const line = copy();
    edit(line);
    expect(keysDiffer(line, ours)).toMatch(/^the ceiling's line has keys …/);
  });

  it('refuses to compare lines of different traces or rules', () => {
    expect(keysDiffer({ ...copy(), rule: 'budget' }, ours)).toMatch(/not comparable/);
  });
});
