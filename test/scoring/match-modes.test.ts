import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchAction, scoreMatch } from '../../src/scoring/index.js';
import type { ExpectedAction, MatchMode, ToolCall } from '../../src/types/index.js';

const call = (name: string, args: Record<string, unknown> = {}, i = 0): ToolCall => ({ id: `c${i}`, name, arguments: args });
const calls = (...specs: Array<[string, Record<string, unknown>?]>): ToolCall[] => specs.map(([n, a], i) => call(n, a ?? {}, i));
const eq = (value: unknown) => ({ kind: 'equals' as const, value });

describe('matchAction (turnstone _match_action)', () => {
  it.each([
    { name: 'names must be equal', action: { tool: 'read_file' }, c: call('write_file'), ok: false },
    { name: 'no args: the name alone matches', action: { tool: 'read_file' }, c: call('read_file', { path: 'x' }), ok: true },
    {
      name: 'args: same string value, extra actual args ignored',
      action: { tool: 'read_file', args: { path: eq('f.py') } },
      c: call('read_file', { path: 'f.py', limit: 10 }),
      ok: true,
    },
    { name: 'args: string equality (3 equals "3")', action: { tool: 'x', args: { n: eq(3) } }, c: call('x', { n: '3' }), ok: true },
    { name: 'args: string equality is exact (no case folding)', action: { tool: 'x', args: { p: eq('F.py') } }, c: call('x', { p: 'f.py' }), ok: false },
    { name: 'args: a missing key fails', action: { tool: 'x', args: { p: eq('a') } }, c: call('x', {}), ok: false },
    {
      name: 'args_pattern: regex search in the value',
      action: { tool: 'bash', argsPattern: { command: 'python.*test' } },
      c: call('bash', { command: 'cd x && python -m pytest' }),
      ok: true,
    },
    {
      name: 'args_pattern: no match fails',
      action: { tool: 'bash', argsPattern: { command: '^pytest' } },
      c: call('bash', { command: 'python -m pytest' }),
      ok: false,
    },
    { name: '_raw: unparseable args match an action without args', action: { tool: 'bash' }, c: call('bash', { _raw: '{oops' }), ok: true },
    {
      name: '_raw: unparseable args never match an action with args',
      action: { tool: 'bash', args: { _raw: eq('{oops') } },
      c: call('bash', { _raw: '{oops' }),
      ok: false,
    },
    {
      name: '_raw: unparseable args never match an action with args_pattern',
      action: { tool: 'bash', argsPattern: { command: '.*' } },
      c: call('bash', { _raw: '{oops' }),
      ok: false,
    },
    {
      name: '$one_of works inside turnstone args',
      action: { tool: 'x', args: { m: { kind: 'one_of' as const, values: ['a', 'b'] } } },
      c: call('x', { m: 'B' }),
      ok: true,
    },
  ])('$name', ({ action, c, ok }) => {
    expect(matchAction(action as ExpectedAction, c).ok).toBe(ok);
  });
});

describe('scoreMatch (turnstone score_run)', () => {
  const read = { tool: 'read_file' };
  const edit = { tool: 'edit_file' };
  it('ordered_subset allows extra calls between the expected ones', () => {
    const s = scoreMatch([read, edit], calls(['list_directory'], ['read_file'], ['bash'], ['edit_file']), 'ordered_subset');
    expect(s).toEqual({
      matchMode: 'ordered_subset',
      pass: true,
      score: 1,
      matched: [0, 1],
      unmatched: [],
      extraTools: ['list_directory', 'bash'],
      detail: 'Ordered subset: 2/2',
    });
  });

  it('ordered_subset fails when the order is reversed', () => {
    const s = scoreMatch([read, edit], calls(['edit_file'], ['read_file']), 'ordered_subset');
    expect(s.pass).toBe(false);
    expect(s.score).toBe(0.5);
    expect(s.detail).toBe('Ordered subset: 1/2; missing edit_file');
  });

  it('ordered_subset scores the largest in-order matching, not the first greedy one', () => {
    // Greedy takes A at the end and then finds nothing after it: 1/3. B, C in order give 2/3.
    const s = scoreMatch([{ tool: 'a' }, { tool: 'b' }, { tool: 'c' }], calls(['b'], ['c'], ['a']), 'ordered_subset');
    expect(s.score).toBeCloseTo(2 / 3);
    expect(s.matched).toEqual([1, 2]);
  });

  it('exact needs the same count in the same order', () => {
    expect(scoreMatch([read, edit], calls(['read_file'], ['edit_file']), 'exact').pass).toBe(true);
    const extra = scoreMatch([read, edit], calls(['read_file'], ['edit_file'], ['bash']), 'exact');
    expect(extra.pass).toBe(false);
    expect(extra.score).toBeCloseTo(2 / 3);
    expect(extra.detail).toBe('Exact: 2/3; 3 calls for 2 expected');
    expect(scoreMatch([read, edit], calls(['edit_file'], ['read_file']), 'exact').score).toBe(0);
  });

  it('subset matches in any order', () => {
    const s = scoreMatch([read, edit], calls(['edit_file'], ['read_file']), 'subset');
    expect(s.pass).toBe(true);
    expect(s.detail).toBe('Subset: 2/2');
  });

  it('subset uses one call per expected action', () => {
    const s = scoreMatch([read, read], calls(['read_file']), 'subset');
    expect(s.score).toBe(0.5);
    expect(s.unmatched).toEqual([1]);
  });

  it('subset finds the maximum matching where a greedy match fails', () => {
    // Greedy gives the first call (path=a) to the "any read" action, then the path=a action has none left.
    const anyRead = { tool: 'read_file' };
    const readA = { tool: 'read_file', args: { path: eq('a') } };
    const log = calls(['read_file', { path: 'a' }], ['read_file', { path: 'b' }]);
    const greedy = greedySubsetMatched([anyRead, readA], log);
    expect(greedy).toBe(1);
    const s = scoreMatch([anyRead, readA], log, 'subset');
    expect(s.pass).toBe(true);
    expect(s.matched).toEqual([0, 1]);
  });

  it('contains_any passes when any expected action appears', () => {
    const s = scoreMatch([read, edit], calls(['bash'], ['edit_file']), 'contains_any');
    expect(s).toMatchObject({ pass: true, score: 1, matched: [1], unmatched: [0], extraTools: ['bash'], detail: 'Contains any: 1/2; missing read_file' });
    expect(scoreMatch([read], calls(['bash']), 'contains_any')).toMatchObject({ pass: false, score: 0 });
  });

  it('an empty expectation passes every mode but exact with calls', () => {
    for (const mode of ['ordered_subset', 'subset', 'contains_any'] as const) expect(scoreMatch([], calls(['x']), mode).pass).toBe(true);
    expect(scoreMatch([], calls(['x']), 'exact').pass).toBe(false);
    expect(scoreMatch([], [], 'exact').pass).toBe(true);
  });
});

function greedySubsetMatched(actions: ExpectedAction[], log: ToolCall[]): number {
  const used = new Set<number>();
  let matched = 0;
  for (const a of actions) {
    const j = log.findIndex((c, i) => !used.has(i) && matchAction(a, c).ok);
    if (j >= 0) {
      used.add(j);
      matched++;
    }
  }
  return matched;
}

/** Exhaustive maximum matching for small inputs. */
function bruteForceMax(edges: boolean[][], callCount: number): number {
  const go = (i: number, used: number): number => {
    if (i === edges.length) return 0;
    let best = go(i + 1, used);
    for (let j = 0; j < callCount; j++) if (edges[i]![j] && !(used & (1 << j))) best = Math.max(best, 1 + go(i + 1, used | (1 << j)));
    return best;
  };
  return go(0, 0);
}

describe('match mode properties', () => {
  const tool = fc.constantFrom('read_file', 'edit_file', 'bash');
  const pathArg = fc.constantFrom('a', 'b');
  const actionArb = fc
    .record({ tool, path: fc.option(pathArg, { nil: undefined }) })
    .map(({ tool: t, path }): ExpectedAction => (path ? { tool: t, args: { path: eq(path) } } : { tool: t }));
  const callArb = fc.record({ tool, path: pathArg }).map(({ tool: t, path }) => ({ name: t, arguments: { path } }));
  const input = fc.record({ actions: fc.array(actionArb, { maxLength: 5 }), log: fc.array(callArb, { maxLength: 6 }) });
  const modes: MatchMode[] = ['exact', 'ordered_subset', 'subset', 'contains_any'];
  const toCalls = (log: Array<{ name: string; arguments: Record<string, unknown> }>): ToolCall[] => log.map((c, i) => ({ id: `c${i}`, ...c }));

  it('subset matches exactly as many actions as a maximum matching, never more', () => {
    fc.assert(
      fc.property(input, ({ actions, log }) => {
        const cs = toCalls(log);
        const edges = actions.map((a) => cs.map((c) => matchAction(a, c).ok));
        const s = scoreMatch(actions, cs, 'subset');
        expect(s.matched.length).toBe(bruteForceMax(edges, cs.length));
        expect(s.matched.length).toBeGreaterThanOrEqual(greedySubsetMatched(actions, cs));
      }),
    );
  });

  it('exact pass implies ordered_subset pass implies subset pass implies contains_any pass (non-empty)', () => {
    fc.assert(
      fc.property(input, ({ actions, log }) => {
        const cs = toCalls(log);
        const [exact, ordered, subset, any] = modes.map((m) => scoreMatch(actions, cs, m).pass);
        if (exact) expect(ordered).toBe(true);
        if (ordered) expect(subset).toBe(true);
        if (subset && actions.length > 0) expect(any).toBe(true);
      }),
    );
  });

  it('pass is score 1, matched and unmatched partition the actions, and no call is used twice', () => {
    fc.assert(
      fc.property(input, fc.constantFrom(...modes), ({ actions, log }, mode) => {
        const cs = toCalls(log);
        const s = scoreMatch(actions, cs, mode);
        expect(s.pass).toBe(s.score === 1);
        expect([...s.matched, ...s.unmatched].sort((a, b) => a - b)).toEqual(actions.map((_, i) => i));
        expect(s.score).toBeGreaterThanOrEqual(0);
        expect(s.score).toBeLessThanOrEqual(1);
        if (mode !== 'contains_any') expect(s.extraTools.length).toBe(cs.length - s.matched.length);
      }),
    );
  });
});
