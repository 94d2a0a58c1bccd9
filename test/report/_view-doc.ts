// A results document with per-sample traces (turns, model and tool calls, a failing bash call with exit
// 127), several samples per case and hostile text, for the report-view tests.
import { aggregateCase, sampleTraceOf, scoreRun } from '../../src/scoring/index.js';
import { buildResultsDocument, type ResultsDocument } from '../../src/report/results.js';
import type { Case, Run, SampleOutcome } from '../../src/types/index.js';
import { makeCase } from '../scoring/_build.js';
import { HOSTILE_CASE_ID, INJECTION_CORPUS } from './_injection.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

interface StepSpec {
  text?: string;
  calls?: Array<{ name: string; arguments: Record<string, unknown>; result?: string; isError?: boolean }>;
}

function run(
  c: Case,
  sample: number,
  steps: StepSpec[],
  opts: { decision?: boolean; status?: Run['status']; error?: { code: string; message: string } } = {},
): Run {
  let t = T0 + sample * 10_000;
  const r: Run = {
    caseId: c.id,
    sample,
    mode: opts.decision ? 'decision' : 'trajectory',
    provider: 'mock',
    model: 'gpt-test',
    startTimeMs: t,
    endTimeMs: t,
    modelCalls: [],
    toolCalls: [],
    status: opts.status ?? 'ok',
    usage: { totalTokens: 0 },
  };
  steps.forEach((s, turn) => {
    const calls = (s.calls ?? []).map((x, i) => ({ id: `c${turn}_${i}`, name: x.name, arguments: x.arguments }));
    r.modelCalls.push({
      index: turn,
      turn,
      startTimeMs: t,
      endTimeMs: t + 400,
      provider: 'openai',
      requestModel: 'gpt-test',
      request: { messages: [], tools: [], params: {} },
      response: { ...(s.text ? { text: s.text } : {}), toolCalls: calls, finishReason: calls.length ? 'tool_calls' : 'stop' },
      usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
    });
    r.usage.totalTokens = (r.usage.totalTokens ?? 0) + 120;
    t += 400;
    (s.calls ?? []).forEach((x, i) => {
      const rec = {
        turn,
        modelCallIndex: turn,
        call: calls[i]!,
        startTimeMs: t,
        endTimeMs: t + 150,
        executed: !opts.decision,
        ...(x.result !== undefined ? { result: x.result } : {}),
        ...(x.isError ? { isError: true } : {}),
      };
      r.toolCalls.push(rec);
      if (opts.decision && !r.terminal) r.terminal = rec;
      t += 150;
    });
  });
  if (opts.error) r.error = opts.error;
  r.endTimeMs = t + 50;
  return r;
}

function outcome(c: Case, r: Run): SampleOutcome {
  const verdict = scoreRun(c, r, {});
  const elapsedMs = r.endTimeMs - r.startTimeMs;
  const trace = sampleTraceOf(r);
  if (r.status === 'error') return { status: 'errored', sample: r.sample, error: r.error!, elapsedMs, trace };
  return { status: 'scored', sample: r.sample, verdict, elapsedMs, tokens: r.usage.totalTokens ?? 0, trace };
}

export function viewCases(): { cases: Case[]; outcomes: SampleOutcome[][] } {
  const build = makeCase({
    id: 'run-the-build',
    suite: 'workspace',
    dialect: 'replio',
    mode: 'trajectory',
    tags: ['build'],
    replio: { expected: ['run_command'], verifier: { mustInclude: ['run_command'] } },
  });
  const restart = makeCase({ id: 'restart-nginx', suite: 'fleet', tags: ['ops'], runspec: { tool: ['restart-service'], host: 'web-01' } });
  const hostile = makeCase({ id: HOSTILE_CASE_ID, suite: 'fleet', tags: ['safety'], runspec: { noRun: true } });
  const outcomes = [
    [
      outcome(
        build,
        run(build, 0, [
          {
            text: 'Running the build.',
            calls: [
              {
                name: 'run_command',
                arguments: { command: 'nosuchbuild --all' },
                result: 'Error: command exited with code 127\nbash: nosuchbuild: command not found',
                isError: true,
              },
            ],
          },
          { text: 'The build tool is missing.' },
        ]),
      ),
      outcome(build, run(build, 1, [{ calls: [{ name: 'run_command', arguments: { command: 'make' }, result: 'ok: built 3 targets' }] }, { text: 'Built.' }])),
    ],
    [
      outcome(restart, run(restart, 0, [{ calls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] }], { decision: true })),
      outcome(restart, run(restart, 1, [{ calls: [{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }] }], { decision: true })),
      outcome(restart, run(restart, 2, [], { status: 'error', error: { code: 'PROVIDER_TIMEOUT', message: 'no answer in 60000 ms' } })),
    ],
    [outcome(hostile, run(hostile, 0, [{ text: INJECTION_CORPUS.join('\n') }], { decision: true }))],
  ];
  return { cases: [build, restart, hostile], outcomes };
}

/**
 * The document; `side` builds one of two reports to compare: restart-nginx fails 8 of 8 samples on side
 * `a` and passes 8 of 8 on side `b` (intervals apart), the other cases stay as they are.
 */
export function viewDocument(opts: { model?: string; threshold?: number; side?: 'a' | 'b' } = {}): ResultsDocument {
  const { cases, outcomes } = viewCases();
  const results = cases.map((c, i) => {
    let o = outcomes[i]!;
    if (opts.side && i === 1) {
      const pick = opts.side === 'a' ? o[1]! : o[0]!;
      o = Array.from({ length: 8 }, (_, sample) => ({ ...pick, sample }) as SampleOutcome);
    }
    return aggregateCase(c, o, { threshold: opts.threshold ?? 0.9 });
  });
  const when = new Date(T0).toISOString();
  return buildResultsDocument({
    meta: {
      started: when,
      tool: 'runspec-eval',
      model: opts.model ?? 'gpt-test',
      provider: 'openai',
      test_suite: 'view',
      threshold: opts.threshold ?? 0.9,
      run_id: 'r1',
    },
    iterations: [{ iteration: 0, timestamp: when, caseResults: results }],
  });
}
