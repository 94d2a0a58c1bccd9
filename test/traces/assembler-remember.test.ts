// Judged trace ids are remembered (rememberCompleted, oldest forgotten first) so that spans arriving after
// the re-open window count as late instead of starting a new trace; a forgotten id starts a new trace.
import { describe, expect, it } from 'vitest';
import { createTraceAssembler } from '../../src/traces/assembler.js';
import { spansFromRequest } from '../../src/traces/spans.js';
import { request, span } from './_otlp.js';

const rootOf = (t: number) => spansFromRequest(request([span({ trace: t, id: 1, name: 'invoke_agent ops', start: 0, end: 5 })]), 'x').spans;
const lateChild = (t: number) => spansFromRequest(request([span({ trace: t, id: 9, parent: 1, name: 'late', start: 1, end: 2 })]), 'x').spans;

describe('assembler: remembered trace ids', () => {
  it.each([
    [2, { late: [3, 4], fresh: [1, 2] }],
    [1, { late: [4], fresh: [1, 2, 3] }],
    [0, { late: [], fresh: [1, 2, 3, 4] }],
    [1.5, { late: [4], fresh: [1, 2, 3] }],
    [Number.POSITIVE_INFINITY, { late: [1, 2, 3, 4], fresh: [] }],
  ])('rememberCompleted %s: the newest ids count late spans, older ones start new traces', (rememberCompleted, expected) => {
    const asm = createTraceAssembler({ rule: 'structural', quiet: 0, reopenWindow: 1, rememberCompleted });
    let now = 0;
    for (const t of [1, 2, 3, 4])
      expect(
        asm
          .addSpans(rootOf(t), ++now)
          .filter((x) => x.final === false)
          .map((x) => x.traceId),
      ).toEqual([rootOf(t)[0]!.traceId]);
    // Past the re-open window: every judged trace is released (and remembered, up to the cap).
    asm.addSpans([], (now += 10));
    const late: number[] = [];
    const fresh: number[] = [];
    for (const t of [1, 2, 3, 4]) {
      const before = asm.stats().lateRecords;
      asm.addSpans(lateChild(t), ++now);
      (asm.stats().lateRecords > before ? late : fresh).push(t);
    }
    expect({ late, fresh }).toEqual(expected);
  });

  it('a late span does not refresh an id: the oldest remembered is still forgotten first', () => {
    const asm = createTraceAssembler({ rule: 'structural', quiet: 0, reopenWindow: 1, rememberCompleted: 2 });
    asm.addSpans(rootOf(1), 1);
    asm.addSpans(rootOf(2), 2);
    asm.addSpans([], 10);
    asm.addSpans(lateChild(1), 11);
    expect(asm.stats().lateRecords).toBe(1);
    asm.addSpans(rootOf(3), 12);
    asm.addSpans([], 20);
    // 3 pushed out 1 (remembered first), not 2.
    asm.addSpans(lateChild(2), 21);
    expect(asm.stats().lateRecords).toBe(2);
    expect(asm.addSpans(lateChild(1), 22)).toEqual([]);
    expect(asm.stats()).toMatchObject({ lateRecords: 2, openTraces: 1 });
  });
});
