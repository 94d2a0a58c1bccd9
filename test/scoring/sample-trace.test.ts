import { describe, expect, it } from 'vitest';
import { buildResultsDocument, caseResultsFromDocument, parseResultsDocument } from '../../src/report/results.js';
import { renderReportView } from '../../src/report/view.js';
import { makeCase } from './_build.js';
import { sampleTraceOf } from '../../src/scoring/index.js';
import { TRACE_TEXT_CHARS } from '../../src/types/index.js';
import { viewCases } from '../report/_view-doc.js';
import { aggregateCase, scoreRun } from '../../src/scoring/index.js';
import type { Run } from '../../src/types/index.js';

describe('sample trace: the timeline a results file keeps per sample', () => {
  it('orders turns, model calls before the tools they asked for, with offsets, durations and results', () => {
    const { outcomes } = viewCases();
    const trace = outcomes[0]![0]!.trace!;
    expect(trace.steps.map((s) => `${s.turn}:${s.kind}:${s.offsetMs}+${s.durationMs}`)).toEqual(['0:llm:0+400', '0:tool:400+150', '1:llm:550+400']);
    const tool = trace.steps[1]!;
    expect(tool).toMatchObject({ kind: 'tool', name: 'run_command', executed: true, isError: true, arguments: { command: 'nosuchbuild --all' } });
    expect(tool.kind === 'tool' && tool.result).toContain('exited with code 127');
    expect(trace.steps[0]).toMatchObject({ kind: 'llm', text: 'Running the build.', inputTokens: 100, outputTokens: 20, toolCalls: ['run_command'] });
  });

  it('cuts long model text and tool results', () => {
    const run: Run = {
      caseId: 'c',
      sample: 0,
      mode: 'trajectory',
      provider: 'mock',
      startTimeMs: 10,
      endTimeMs: 20,
      status: 'ok',
      usage: {},
      modelCalls: [
        {
          index: 0,
          turn: 0,
          startTimeMs: 10,
          endTimeMs: 12,
          provider: 'openai',
          request: { messages: [], tools: [], params: {} },
          response: { text: 'x'.repeat(TRACE_TEXT_CHARS + 5), toolCalls: [] },
          usage: {},
        },
      ],
      toolCalls: [],
    };
    const step = sampleTraceOf(run).steps[0]!;
    expect(step.kind === 'llm' && step.text).toBe(`${'x'.repeat(TRACE_TEXT_CHARS)}… [5 more characters]`);
  });

  it('round-trips through the results document (written, validated, read back)', () => {
    const { cases, outcomes } = viewCases();
    const results = cases.map((c, i) => aggregateCase(c, outcomes[i]!, { threshold: 1 }));
    const doc = buildResultsDocument({
      meta: { started: '2026-01-01T00:00:00Z' },
      iterations: [{ iteration: 0, timestamp: '2026-01-01T00:00:00Z', caseResults: results }],
    });
    const back = caseResultsFromDocument(parseResultsDocument(JSON.stringify(doc), 'r.json'));
    expect(back.map((r) => r.samples.map((s) => s.trace))).toEqual(results.map((r) => r.samples.map((s) => s.trace)));
    expect(Object.values(doc.iterations[0]!.cases)[0]!.runs[0]!.trace!.steps[1]).toMatchObject({
      kind: 'tool',
      call_id: 'c0_0',
      is_error: true,
      offset_ms: 400,
    });
  });

  it('keeps dropped (past the parallel cap) and mocked tool calls marked, through the document and in the waterfall', () => {
    const rec = (i: number, extra: { dropped?: boolean; mocked?: boolean }) => ({
      turn: 0,
      modelCallIndex: 0,
      call: { id: `c${i}`, name: 'get_weather', arguments: { city: 'Paris' } },
      startTimeMs: 12,
      endTimeMs: 13,
      ...extra,
      executed: !extra.dropped,
      result: extra.dropped ? 'Error: too many parallel tool calls (at most 10 per turn); this call was not run' : '{"forecast":"rain"}',
    });
    const run: Run = {
      caseId: 'mocked',
      sample: 0,
      mode: 'trajectory',
      provider: 'mock',
      startTimeMs: 10,
      endTimeMs: 20,
      status: 'ok',
      usage: {},
      modelCalls: [
        {
          index: 0,
          turn: 0,
          startTimeMs: 10,
          endTimeMs: 12,
          provider: 'openai',
          request: { messages: [], tools: [], params: {} },
          response: { toolCalls: [] },
          usage: {},
        },
      ],
      toolCalls: [rec(0, { mocked: true }), rec(1, { dropped: true })],
    };
    const trace = sampleTraceOf(run);
    expect(trace.steps.slice(1)).toMatchObject([
      { kind: 'tool', mocked: true },
      { kind: 'tool', dropped: true, executed: false },
    ]);
    const c = makeCase({ id: 'mocked' });
    const result = aggregateCase(c, [{ status: 'scored', sample: 0, verdict: scoreRun(c, run, {}), elapsedMs: 10, tokens: 0, trace }], { threshold: 1 });
    const doc = buildResultsDocument({
      meta: { started: '2026-01-01T00:00:00Z' },
      iterations: [{ iteration: 0, timestamp: '2026-01-01T00:00:00Z', caseResults: [result] }],
    });
    const parsed = parseResultsDocument(JSON.stringify(doc), 'r.json');
    expect(caseResultsFromDocument(parsed)[0]!.samples[0]!.trace).toEqual(trace);
    const html = renderReportView(parsed);
    expect(html).toContain('get_weather (mock)');
    expect(html).toContain('get_weather (dropped)');
    expect(html).toContain('dropped: beyond the per-turn parallel cap, not run');
  });

  it('reads a results file written before traces were kept', () => {
    const { cases, outcomes } = viewCases();
    const doc = buildResultsDocument({
      meta: { started: 'x' },
      iterations: [{ iteration: 0, timestamp: 'x', caseResults: [aggregateCase(cases[1]!, outcomes[1]!, { threshold: 1 })] }],
    });
    for (const run of Object.values(doc.iterations[0]!.cases)[0]!.runs) delete run.trace;
    expect(caseResultsFromDocument(parseResultsDocument(JSON.stringify(doc), 'old.json'))[0]!.samples.every((s) => s.trace === undefined)).toBe(true);
  });
});
