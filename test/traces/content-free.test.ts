// Production traces recorded without content (the default of most instrumentations) carry tool names but
// no arguments. Scored against cases that expect arguments they used to get false failures
// ("wrong_args: arg city: missing") or, against a changed case, false passes. Each producer family below
// follows its instrumentation's content-off output; every verdict must be a judged failure where the
// names alone prove one, and `unscorable` (naming what is missing) where only arguments could decide.
import { describe, expect, it } from 'vitest';
import { createTraceScorer } from '../../src/traces/score-traces.js';
import type { TraceVerdictLine } from '../../src/traces/score-traces.js';
import type { ArgExpectation, Case } from '../../src/types/index.js';
import { makeCase } from '../scoring/_build.js';
import { one, request, span } from './_otlp.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';

const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });
const match = { attributes: { 'service.name': 'agent' } };

const CASES: Case[] = [
  makeCase({ id: 'weather-paris', runspec: { tool: ['get_weather'], args: { city: eq('Paris') } }, match }),
  makeCase({ id: 'search-instead', runspec: { tool: ['search'], args: { q: eq('weather') } }, match }),
  makeCase({ id: 'weather-one-of', runspec: { tool: ['get_weather'], args: { city: { kind: 'one_of', values: ['Paris', 'Rome'] } } }, match }),
  makeCase({
    id: 'weather-action',
    dialect: 'turnstone',
    mode: 'trajectory',
    turnstone: { actions: [{ tool: 'get_weather', args: { city: eq('Paris') } }], matchMode: 'ordered_subset' },
    match,
  }),
  makeCase({
    id: 'weather-verifier',
    dialect: 'replio',
    mode: 'trajectory',
    replio: { verifier: { mustInclude: ['get_weather'], args: { get_weather: { city: eq('Paris') } } } },
    match,
  }),
];
const EXPECTED: Record<string, string> = {
  'weather-paris': 'unscorable',
  'search-instead': 'wrong_tool',
  'weather-one-of': 'unscorable',
  'weather-action': 'unscorable',
  'weather-verifier': 'unscorable',
};

// What each instrumentation emits with content capture off.
const CORPUS: Array<{ name: string; req: OtlpTraceRequest }> = [
  {
    name: 'OpenTelemetry GenAI (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT unset)',
    req: request([
      span({ trace: 1, id: 1, name: 'invoke_agent weather', start: 0, end: 50, attrs: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({
        trace: 1,
        id: 2,
        parent: 1,
        name: 'chat gpt-4o',
        start: 1,
        end: 5,
        attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['tool_calls'], 'gen_ai.usage.input_tokens': 10 },
      }),
      span({
        trace: 1,
        id: 3,
        parent: 1,
        name: 'execute_tool get_weather',
        start: 6,
        end: 7,
        attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1' },
      }),
    ]),
  },
  {
    name: 'OpenInference (OPENINFERENCE_HIDE_INPUTS / HIDE_OUTPUTS: values replaced by __REDACTED__)',
    req: request([
      span({
        trace: 2,
        id: 1,
        name: 'agent',
        start: 0,
        end: 50,
        attrs: { 'openinference.span.kind': 'AGENT', 'input.value': '__REDACTED__', 'output.value': '__REDACTED__' },
      }),
      span({
        trace: 2,
        id: 2,
        parent: 1,
        name: 'ChatCompletion',
        start: 1,
        end: 5,
        attrs: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o', 'input.value': '__REDACTED__', 'output.value': '__REDACTED__' },
      }),
      span({
        trace: 2,
        id: 3,
        parent: 1,
        name: 'get_weather',
        start: 6,
        end: 7,
        attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'get_weather', 'input.value': '__REDACTED__', 'output.value': '__REDACTED__' },
      }),
    ]),
  },
  {
    name: 'OpenLLMetry (TRACELOOP_TRACE_CONTENT=false)',
    req: request([
      span({ trace: 3, id: 1, name: 'agent.workflow', start: 0, end: 50, attrs: { 'traceloop.span.kind': 'workflow' } }),
      span({
        trace: 3,
        id: 2,
        parent: 1,
        name: 'openai.chat',
        kind: 3,
        start: 1,
        end: 5,
        attrs: { 'llm.request.type': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o' },
      }),
      span({
        trace: 3,
        id: 3,
        parent: 1,
        name: 'get_weather.tool',
        start: 6,
        end: 7,
        attrs: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'get_weather' },
      }),
    ]),
  },
  {
    name: 'Vercel AI SDK (recordInputs: false, recordOutputs: false)',
    req: request([
      span({ trace: 4, id: 1, name: 'ai.generateText', start: 0, end: 50, attrs: { 'ai.model.id': 'gpt-4o' } }),
      span({
        trace: 4,
        id: 2,
        parent: 1,
        name: 'ai.generateText.doGenerate',
        start: 1,
        end: 5,
        attrs: { 'ai.model.id': 'gpt-4o', 'ai.model.provider': 'openai.chat', 'ai.response.finishReason': 'tool-calls' },
      }),
      span({ trace: 4, id: 3, parent: 1, name: 'ai.toolCall', start: 6, end: 7, attrs: { 'ai.toolCall.name': 'get_weather', 'ai.toolCall.id': 'tc1' } }),
    ]),
  },
];

describe('content-free production traces', () => {
  const scorer = createTraceScorer({ cases: CASES });

  it.each(CORPUS)('$name: no false failure, no false pass', ({ req }) => {
    const out = scorer.score(one(req));
    expect(out.kind).toBe('scored');
    if (out.kind !== 'scored') return;
    const got = Object.fromEntries(out.lines.map((l: TraceVerdictLine) => [l.case, l.category]));
    expect(got).toEqual(EXPECTED);
    for (const l of out.lines.filter((x) => x.category === 'unscorable')) {
      expect(l.pass).toBeNull();
      expect(l.reason).toMatch(/^not checkable: .*not captured/);
      expect(l.checks?.some((k) => !k.judged)).toBe(true);
    }
    const wrong = out.lines.find((l) => l.case === 'search-instead')!;
    expect(wrong.checks?.find((k) => k.check === 'tool')).toMatchObject({ judged: true, pass: false, observed: 'get_weather' });
  });

  it('still judges arguments when the same trace carries content', () => {
    const withArgs = request([
      span({ trace: 9, id: 1, name: 'invoke_agent weather', start: 0, end: 50, attrs: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({
        trace: 9,
        id: 3,
        parent: 1,
        name: 'execute_tool get_weather',
        start: 6,
        end: 7,
        attrs: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.id': 'c',
          'gen_ai.tool.call.arguments': '{"city":"Oslo"}',
        },
      }),
    ]);
    const out = scorer.score(one(withArgs));
    if (out.kind !== 'scored') throw new Error('not scored');
    expect(Object.fromEntries(out.lines.map((l) => [l.case, l.category]))).toEqual({
      'weather-paris': 'wrong_args',
      'search-instead': 'wrong_tool',
      'weather-one-of': 'wrong_args',
      'weather-action': 'wrong_sequence',
      'weather-verifier': 'wrong_args',
    });
  });
});

describe('infrastructure errors on production traces', () => {
  it('are not evaluations: category error, pass null, counted as errored and never as failed', async () => {
    const { createSummaryCollector } = await import('../../src/traces/score-traces.js');
    const scorer = createTraceScorer({ cases: CASES });
    const out = scorer.score(
      one(
        request([
          span({
            trace: 80,
            id: 1,
            name: 'invoke_agent weather',
            start: 0,
            end: 50,
            error: true,
            attrs: { 'gen_ai.operation.name': 'invoke_agent', 'error.type': 'PROVIDER_HTTP' },
          }),
          span({
            trace: 80,
            id: 2,
            parent: 1,
            name: 'execute_tool get_weather',
            start: 6,
            end: 7,
            attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' },
          }),
        ]),
      ),
    );
    if (out.kind !== 'scored') throw new Error('not scored');
    const line = out.lines.find((l) => l.case === 'weather-paris')!;
    expect([line.category, line.pass]).toEqual(['error', null]);
    expect(line.checks?.find((k) => k.check === 'run_status')).toMatchObject({ judged: true, pass: false, observed: 'PROVIDER_HTTP' });
    const summary = createSummaryCollector();
    summary.addOutcome(out);
    expect(summary.summary()).toMatchObject({ failed: 0, errored: out.lines.length, passed: 0 });
  });
});
