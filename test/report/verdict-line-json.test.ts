// verdictLineJson writes a scored line field by field; it must equal JSON.stringify(traceRunEntry(line)) byte
// for byte, for every shape a line can take.
import { describe, expect, it } from 'vitest';
import { traceRunEntry, verdictLineJson } from '../../src/report/verdict-line.js';
import type { TraceVerdictLine } from '../../src/types/trace-verdict.js';
import type { Verdict } from '../../src/types/verdict.js';

const calls: TraceVerdictLine['calls'] = [
  { id: 'call_1', name: 'service-status', arguments: { service: 'nginx', host: 'web-01' }, executed: true },
  { name: 'restart "service"\n', arguments: { nested: { a: [1, 2, { b: null }] }, 'é\u2028': 'x' }, executed: false, isError: true },
  { id: '', name: 'read', arguments: {}, executed: true, reconstructed: true },
];

function verdict(over: Partial<Verdict> = {}): Verdict {
  return {
    caseId: 'c1',
    sample: 0,
    dialect: 'runspec',
    pass: true,
    category: 'pass',
    reason: 'ok',
    expected: {},
    observed: {},
    jsonDump: false,
    status: 'ok',
    calls: [],
    ...over,
  };
}

function line(over: Partial<TraceVerdictLine> = {}): TraceVerdictLine {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    rootSpanId: 'b7ad6b7169203331',
    sample: 0,
    verdict: verdict(),
    category: 'pass',
    pass: true,
    reason: 'ok',
    revision: 0,
    final: true,
    mode: 'trajectory',
    producers: ['gen_ai', 'openinference'],
    calls,
    ...over,
  };
}

const verdicts: Verdict[] = [
  verdict(),
  verdict({
    dialect: 'rule',
    pass: false,
    category: 'forbidden_tool',
    reason: 'called forbidden tool "x"',
    observed: { tool: 'restart', args: { service: 'nginx', host: 'web-01' } },
  }),
  verdict({
    observed: { tool: 'x', command: 'status', host: 'h', autonomy: 'confirm', args: { other: 1 } },
    expected: { tool: ['a', 'b'], command: 'c', host: 'h', autonomy: 'manual', noRun: true },
  }),
  verdict({ observed: { tool: undefined, args: {} }, toolMode: 'dedup', trace: { traceId: 't', rootSpanId: 'r' } }),
  verdict({ trace: { traceId: 't', rootSpanId: 'r', url: 'https://example.test/t/r' } }),
  verdict({
    checks: [
      { check: 'forbid_tools', judged: true, pass: false, expected: ['a'], observed: ['a'] },
      { check: 'args', judged: false, missing: 'arguments', via: 'hash' },
    ],
  }),
  verdict({
    dialect: 'turnstone',
    match: { matchMode: 'subset', pass: false, score: 0.5, matched: [0], unmatched: [1], extraTools: ['read'], detail: 'half', notCheckable: 'x' },
  }),
  verdict({
    dialect: 'replio',
    replio: {
      trace: calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      names: calls.map((c) => c.name),
      accuracy: 1,
      pass: null,
      calls: 3,
      redundant: 0,
      errors: 1,
      tokens: 1234,
      status: 'ok',
    },
  }),
  verdict({
    replio: {
      trace: [{ name: 'other', arguments: { a: 1 } }],
      names: ['other'],
      accuracy: null,
      pass: true,
      calls: 1,
      redundant: 1,
      errors: 0,
      tokens: 7,
      status: 'error',
    },
    status: 'error',
    jsonDump: true,
    pass: false,
    category: 'json_dump',
  }),
  verdict({ category: 'unscorable', pass: false, reason: 'not checkable: arguments (content capture off)' }),
];

const lineShapes: Array<Partial<TraceVerdictLine>> = [
  {},
  { case: 'restart-nginx', suite: 'ops' },
  { rule: 'no-restart' },
  { case: 'c', pass: null, category: 'incomplete', incomplete: true, evicted: true },
  { traceUrl: 'https://example.test/trace', supersedes: true, revision: 2, final: false, family: 'openinference', mode: 'decision' },
  { calls: [] },
  { calls: [{ name: 'x', arguments: undefined as unknown as Record<string, unknown>, executed: true }], sample: 3 },
  { producers: [] },
];

describe('verdictLineJson', () => {
  it('equals JSON.stringify(traceRunEntry(line)) for every verdict and line shape', () => {
    let compared = 0;
    for (const v of verdicts) {
      for (const shape of lineShapes) {
        const l = line({ verdict: v, category: v.category, reason: v.reason, ...shape });
        expect(verdictLineJson(l)).toBe(JSON.stringify(traceRunEntry(l)));
        compared++;
      }
    }
    expect(compared).toBe(verdicts.length * lineShapes.length);
  });

  it('writes unmatched lines (no verdict) as their run entry', () => {
    const l = line({ verdict: null, category: null, pass: null, reason: 'no case or rule matched this trace' });
    expect(verdictLineJson(l)).toBe(JSON.stringify(traceRunEntry(l)));
    expect(JSON.parse(verdictLineJson(l))).toMatchObject({ status: 'unmatched', verdict: null });
  });
});
