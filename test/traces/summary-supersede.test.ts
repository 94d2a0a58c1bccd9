// The summary collector remembers what the 20,000 most recently judged traces contributed, so a superseding
// outcome takes the earlier one back; an outcome for a trace forgotten since only adds. Checked against a
// reference model (a map in judging order, the least recently judged forgotten first) over a long
// pseudo-random sequence with re-judged traces, old and recent.
import { describe, expect, it } from 'vitest';
import { createSummaryCollector, type TraceOutcome } from '../../src/traces/score-traces.js';
import type { TraceInfo } from '../../src/traces/normalise.js';

const REMEMBERED = 20_000;

function outcome(traceId: string, pass: boolean, supersedes: boolean): TraceOutcome {
  const info = {
    traceId,
    rootSpanId: 's',
    rootName: 'r',
    rootAttributes: {},
    spanAttributes: [],
    producers: [],
    llmSpanIds: [],
    toolSpanIds: [],
    callSpanIds: {},
  } as TraceInfo;
  const line = {
    traceId,
    rootSpanId: 's',
    sample: 0,
    category: pass ? 'pass' : 'forbidden_tool',
    pass,
    reason: '',
    revision: 0,
    final: true,
    mode: 'trajectory',
    producers: [],
    calls: [],
    verdict: null,
  } as const;
  const o: TraceOutcome = { kind: 'scored', traceId, info, lines: [{ ...line, producers: [], calls: [] }], verdicts: [], revision: 0, final: true };
  if (supersedes) o.supersedes = true;
  return o;
}

describe('summary collector: superseding outcomes', () => {
  it('takes back what a remembered trace contributed, and only that (50,000 outcomes, re-judged traces)', () => {
    const collector = createSummaryCollector();
    // Reference: insertion order = judging order; re-judging moves a trace to the end.
    const remembered = new Map<string, boolean>();
    const want = { traces: 0, passed: 0, failed: 0 };
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let next = 0;
    for (let n = 0; n < 50_000; n++) {
      const r = random();
      // Mostly new traces; some re-judged: recent ones (remembered), and old ones (forgotten by now).
      const id = r < 0.8 || next < 10 ? `t${next++}` : r < 0.9 ? `t${next - 1 - Math.floor(random() * 50)}` : `t${Math.floor(random() * next)}`;
      const pass = random() < 0.5;
      const again = id !== `t${next - 1}` || r >= 0.8;
      const before = again ? remembered.get(id) : undefined;
      if (before !== undefined) {
        want.traces--;
        if (before) want.passed--;
        else want.failed--;
      }
      want.traces++;
      if (pass) want.passed++;
      else want.failed++;
      remembered.delete(id);
      remembered.set(id, pass);
      if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
      collector.addOutcome(outcome(id, pass, again));
    }
    const s = collector.summary();
    expect({ traces: s.traces, passed: s.passed, failed: s.failed }).toEqual(want);
  });

  it('counts the same without remembering contributions when nothing supersedes (files: judged once, final)', () => {
    const remembering = createSummaryCollector();
    const once = createSummaryCollector({ supersedes: false });
    for (let n = 0; n < 30_000; n++) {
      const o =
        n % 7 === 0
          ? ({ kind: 'uninterpretable', traceId: `u${n}`, reason: 'no spans', revision: 0, final: true } as const)
          : outcome(`t${n}`, n % 3 !== 0, false);
      remembering.addOutcome(o);
      once.addOutcome(o);
    }
    expect(once.summary()).toEqual(remembering.summary());
    expect(once.summary()).toMatchObject({ traces: 30_000, uninterpretable: 4286 });
  });
});
