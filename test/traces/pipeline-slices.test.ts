// `serve` judges complete traces in slices between requests (scoreSliceMs): the same outcomes in the same
// order as judging inside `tick`, nothing lost at flush, and ingest judging the backlog itself past the cap.
import { describe, expect, it } from 'vitest';
import { createTracePipeline } from '../../src/traces/pipeline.js';
import type { TracePipelineOptions } from '../../src/traces/pipeline.js';
import type { TraceOutcome } from '../../src/traces/score-traces.js';
import { parseRulesText } from '../../src/traces/rules.js';
import { spansFromRequest } from '../../src/traces/spans.js';
import { request, span, traceId } from './_otlp.js';

const RULES = parseRulesText('[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n', 'rules.toml');

/** One whole agent trace: a root and a tool span calling `tool`. */
function traceSpans(n: number, tool: string) {
  return spansFromRequest(
    request([
      span({ trace: n, id: 1, name: 'invoke_agent ops', start: 0, end: 10 }),
      span({
        trace: n,
        id: 2,
        parent: 1,
        name: `execute_tool ${tool}`,
        start: 1,
        end: 2,
        attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool },
      }),
    ]),
    'test',
  ).spans;
}

const TRACES = [1, 2, 3, 4, 5].map((n) => traceSpans(n, n % 2 ? 'service_restart' : 'service_status'));

function pipeline(extra: Partial<TracePipelineOptions>): { p: ReturnType<typeof createTracePipeline>; outcomes: TraceOutcome[] } {
  const outcomes: TraceOutcome[] = [];
  const p = createTracePipeline({ rules: RULES, assembler: { quiet: 10 }, onOutcome: (o) => outcomes.push(o), ...extra });
  return { p, outcomes };
}

const summaryOf = (outcomes: TraceOutcome[]) =>
  outcomes.map((o) => (o.kind === 'scored' ? `${o.traceId} ${o.lines.map((l) => l.category).join(',')}` : o.traceId));

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setImmediate(r));
  if (!cond()) throw new Error('condition not reached in 500 turns of the event loop');
}

describe('judging in slices (serve)', () => {
  it('gives the same outcomes in the same order as judging inside tick, after tick has returned', async () => {
    const sync = pipeline({});
    for (const s of TRACES) sync.p.addSpans(s, 0);
    sync.p.tick(100);
    expect(sync.outcomes).toHaveLength(5);

    const sliced = pipeline({ scoreSliceMs: 1 });
    for (const s of TRACES) sliced.p.addSpans(s, 0);
    sliced.p.tick(100);
    expect(sliced.outcomes).toEqual([]);
    expect(sliced.p.openTraces()).toBe(5);
    await until(() => sliced.outcomes.length === 5);
    expect(summaryOf(sliced.outcomes)).toEqual(summaryOf(sync.outcomes));
    expect(summaryOf(sliced.outcomes)[0]).toBe(`${traceId(1)} forbidden_tool`);
    expect(sliced.p.openTraces()).toBe(0);
    // Provisional so far (their re-open windows are open): counted once final.
    expect(sliced.p.summary()).toMatchObject({ traces: 0 });
    sliced.p.flush();
    expect(sliced.p.summary()).toMatchObject({ traces: 5, failed: 3, passed: 2 });
  });

  it('judges queued traces at flush, before the ones still open', () => {
    const { p, outcomes } = pipeline({ scoreSliceMs: 1 });
    for (const s of TRACES.slice(0, 3)) p.addSpans(s, 0);
    p.tick(100);
    p.addSpans(TRACES[3]!, 100);
    p.flush();
    // The queued (provisional) judgements, then every trace's final one: the retained first, then the open.
    expect(outcomes.map((o) => [o.traceId, o.final])).toEqual([...[1, 2, 3].map((n) => [traceId(n), false]), ...[1, 2, 3, 4].map((n) => [traceId(n), true])]);
  });

  it('makes ingest judge the oldest queued traces itself while more than maxQueuedTraces wait', () => {
    const { p, outcomes } = pipeline({ scoreSliceMs: 1, maxQueuedTraces: 1 });
    for (const s of TRACES.slice(0, 3)) p.addSpans(s, 0);
    p.tick(100);
    expect(outcomes).toEqual([]);
    p.addSpans(TRACES[3]!, 100);
    expect(outcomes.map((o) => o.traceId)).toEqual([1, 2].map(traceId));
    expect(p.openTraces()).toBe(2);
    p.flush();
    expect(outcomes.filter((o) => o.final).map((o) => o.traceId)).toEqual([1, 2, 3, 4].map(traceId));
  });

  /** Three traces judged provisionally and queued, two still open: what a shutdown finds. */
  const heldAtShutdown = (extra: Partial<TracePipelineOptions>) => {
    const held = pipeline(extra);
    for (const s of TRACES.slice(0, 3)) held.p.addSpans(s, 0);
    held.p.tick(100);
    for (const s of TRACES.slice(3)) held.p.addSpans(s, 100);
    return held;
  };
  const judgements = (outcomes: TraceOutcome[]) => outcomes.map((o) => [o.traceId, o.revision, o.final, ...summaryOf([o])]);

  it('flushes in slices with turns of the event loop between: the same outcomes, in the same order, as flush', async () => {
    const whole = heldAtShutdown({ scoreSliceMs: 0 });
    whole.p.flush();
    expect(whole.outcomes.filter((o) => o.final)).toHaveLength(5);

    // A 0 ms slice judges one trace a turn of the event loop (the shutdown's lines are written meanwhile).
    const sliced = heldAtShutdown({ scoreSliceMs: 0 });
    let finished = false;
    const done = sliced.p.flushInSlices!().then(() => (finished = true));
    expect(sliced.outcomes).toEqual([]);
    let turns = 0;
    while (!finished) {
      await new Promise((r) => setImmediate(r));
      turns++;
    }
    await done;
    expect(turns).toBeGreaterThanOrEqual(whole.outcomes.length);
    expect(judgements(sliced.outcomes)).toEqual(judgements(whole.outcomes));
    expect(sliced.p.openTraces()).toBe(0);
    expect(sliced.p.summary()).toEqual(whole.p.summary());
  });

  it('flushes at once without scoreSliceMs', () => {
    const whole = heldAtShutdown({});
    whole.p.flush();
    const same = heldAtShutdown({});
    void same.p.flushInSlices!();
    expect(judgements(same.outcomes)).toEqual(judgements(whole.outcomes));
  });
});

describe('flushing in slices (score, end of input)', () => {
  it('gives the same outcomes in the same order as flush, pausing between slices', async () => {
    const whole: TraceOutcome[] = [];
    const sync = createTracePipeline({ rules: RULES, assembler: { rule: 'structural', quiet: 0, provisional: false }, onOutcome: (o) => whole.push(o) });
    const sliced: TraceOutcome[] = [];
    const p = createTracePipeline({ rules: RULES, assembler: { rule: 'structural', quiet: 0, provisional: false }, onOutcome: (o) => sliced.push(o) });
    for (const [i, s] of TRACES.entries()) {
      sync.addSpans(s, i + 1);
      p.addSpans(s, i + 1);
    }
    sync.flush();
    expect(sliced).toEqual([]);
    let pauses = 0;
    // A slice of 0 ms ends after every trace: a pause between each two, none after the last.
    await p.flushInSlices({
      ms: 0,
      pause: async () => {
        pauses++;
        expect(sliced).toHaveLength(pauses);
      },
    });
    expect(pauses).toBe(TRACES.length - 1);
    expect(sliced).toEqual(whole);
    expect(summaryOf(sliced)[0]).toBe(`${traceId(1)} forbidden_tool`);
    expect(p.summary()).toEqual(sync.summary());
    expect(p.openTraces()).toBe(0);
  });
});
