// renderRunTrace / emitVerdictSpan against the SDK's in-memory exporter: error status rules, samples that
// errored before a Run existed, verdict carrier spans, and the API-only contract (a no-op tracer works).
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { emitVerdictSpan, renderRunTrace } from '../../src/telemetry/index.js';
import type { CaseResult } from '../../src/types/index.js';
import { DECISION_CASE, decisionRun, decisionVerdict, takePromised, T0 } from './_fixtures.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
afterEach(() => exporter.reset());

const rootOf = () => exporter.getFinishedSpans().find((s) => s.parentSpanContext === undefined)!;

describe('renderRunTrace status', () => {
  it('leaves status unset when the verdict fails but the run did not error', () => {
    const verdict = { ...decisionVerdict('dedup'), pass: false, category: 'wrong_tool' as const, reason: 'expected service_status, got service_restart' };
    renderRunTrace(tracer, { case: DECISION_CASE, run: decisionRun('dedup'), verdict, runId: 'r', captureContent: false });
    const root = rootOf();
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.attributes['error.type']).toBeUndefined();
    expect(root.attributes['runspec.eval.category']).toBe('wrong_tool');
    expect(exporter.getFinishedSpans().every((s) => s.status.code === SpanStatusCode.UNSET)).toBe(true);
  });

  it('sets ERROR and error.type on the root when the run errored', () => {
    const run = { ...decisionRun('dedup'), status: 'error' as const, error: { code: 'PROVIDER_TIMEOUT', message: 'model did not answer' } };
    const verdict = { ...decisionVerdict('dedup'), pass: false, category: 'error' as const, reason: 'run failed', status: 'error' as const };
    renderRunTrace(tracer, { case: DECISION_CASE, run, verdict, runId: 'r', captureContent: false });
    const root = rootOf();
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'model did not answer' });
    expect(root.attributes['error.type']).toBe('PROVIDER_TIMEOUT');
    expect(root.attributes['runspec.eval.status']).toBe('error');
  });

  it('marks the llm span ERROR when that model call failed', () => {
    const run = decisionRun('dedup');
    run.modelCalls[0] = { ...run.modelCalls[0]!, error: { code: 'PROVIDER_RESPONSE', message: 'HTTP 500' } };
    renderRunTrace(tracer, {
      case: DECISION_CASE,
      run: { ...run, status: 'error', error: { code: 'PROVIDER_RESPONSE', message: 'HTTP 500' } },
      runId: 'r',
      captureContent: false,
    });
    const llm = exporter.getFinishedSpans().find((s) => s.name.startsWith('chat'))!;
    expect(llm.status.code).toBe(SpanStatusCode.ERROR);
    expect(llm.attributes['error.type']).toBe('PROVIDER_RESPONSE');
  });

  it('renders a sample that errored before any Run as a lone root span carrying the error', () => {
    const ids = renderRunTrace(tracer, {
      case: DECISION_CASE,
      runId: 'r',
      captureContent: false,
      sample: 2,
      error: { code: 'PROVIDER_AUTH', message: 'HTTP 401' },
      startTimeMs: T0,
      endTimeMs: T0 + 5,
    });
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(ids.llmSpanIds).toEqual([]);
    const root = spans[0]!;
    expect(root.name).toBe('invoke_agent runspec-eval');
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 401' });
    const rest = takePromised(root.attributes, {
      'error.type': 'PROVIDER_AUTH',
      'runspec.eval.case_id': 'check-api',
      'runspec.eval.suite': 'ops',
      'runspec.eval.sample': 2,
      'runspec.eval.run_id': 'r',
      'runspec.eval.category': 'error',
      'runspec.eval.reason': 'PROVIDER_AUTH: HTTP 401',
      'runspec.eval.status': 'error',
      'evaluations.0.evaluation.label': 'error',
    });
    expect(Object.keys(rest).filter((k) => k.startsWith('runspec.eval.'))).toEqual([]);
    // An outage is not an evaluation: no pass attribute, no score anywhere, error.type on the event.
    expect(rest['evaluations.0.evaluation.score']).toBeUndefined();
    expect(root.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'gen_ai.evaluation.result',
        {
          'gen_ai.evaluation.name': 'runspec.tool_selection',
          'gen_ai.evaluation.score.label': 'error',
          'gen_ai.evaluation.explanation': 'PROVIDER_AUTH: HTTP 401',
          'error.type': 'PROVIDER_AUTH',
        },
      ],
    ]);
  });

  it('gives a case whose samples all errored no pass rate and no meets_threshold (an outage is not a regression)', () => {
    const error = { code: 'PROVIDER', message: 'ECONNREFUSED' };
    const result: CaseResult = {
      caseId: 'check-api',
      dialect: 'runspec',
      tags: [],
      samples: [{ status: 'errored', sample: 0, error, elapsedMs: 1 }],
      passRate: 0,
      passRateLow: 0,
      passRateHigh: 1,
      passAtK: 0,
      passHatK: 0,
      passK: [],
      threshold: 1,
      meetsThreshold: false,
      errored: true,
    };
    renderRunTrace(tracer, { case: DECISION_CASE, runId: 'r', captureContent: false, sample: 0, error, result, startTimeMs: T0, endTimeMs: T0 + 5 });
    const attrs = rootOf().attributes;
    expect(attrs['runspec.eval.samples']).toBe(1);
    for (const key of ['runspec.eval.pass_rate', 'runspec.eval.pass_rate_low', 'runspec.eval.pass_rate_high', 'runspec.eval.meets_threshold'])
      expect(attrs[key], key).toBeUndefined();
  });

  it('renders an errored sample that has a partial Run: its spans plus the error on the root', () => {
    const run = { ...decisionRun('search'), toolCalls: [], modelCalls: decisionRun('search').modelCalls.slice(0, 1) };
    renderRunTrace(tracer, {
      case: DECISION_CASE,
      run,
      error: { code: 'PROVIDER_TIMEOUT', message: 'second call timed out' },
      runId: 'r',
      captureContent: false,
    });
    const root = rootOf();
    expect(exporter.getFinishedSpans()).toHaveLength(2);
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'second call timed out' });
    expect(root.attributes['runspec.eval.category']).toBe('error');
    expect(root.attributes['runspec.eval.reason']).toBe('PROVIDER_TIMEOUT: second call timed out');
  });

  // Attributes are set on the started span, not given to startSpan: the SDK's samplers still decide.
  it.each([
    { name: 'a ratio of 0 drops the whole trace', ratio: 0, spans: 0 },
    { name: 'a ratio of 1 keeps every span with its attributes', ratio: 1, spans: 5 },
  ])('follows the sampler: $name', ({ ratio, spans }) => {
    const sampled = new InMemorySpanExporter();
    const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    const t = new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(sampled)] }).getTracer('test');
    const ids = renderRunTrace(t, { case: DECISION_CASE, run: decisionRun('search'), verdict: decisionVerdict('search'), runId: 'r', captureContent: false });
    expect(ids.llmSpanIds).toHaveLength(2);
    expect(sampled.getFinishedSpans()).toHaveLength(spans);
    for (const s of sampled.getFinishedSpans()) expect(s.attributes['gen_ai.operation.name']).toBe(s.name.split(' ')[0]);
  });

  it('works on the API alone: a no-op tracer renders without throwing', () => {
    const noop = trace.getTracer('noop');
    const ids = renderRunTrace(noop, { case: DECISION_CASE, run: decisionRun('search'), verdict: decisionVerdict('search'), runId: 'r', captureContent: true });
    expect(ids.llmSpanIds).toHaveLength(2);
    expect(ids.toolSpanIds).toHaveLength(2);
  });
});

describe('emitVerdictSpan', () => {
  // Regression: a trace without usage exported runspec.eval.tokens = 0 (replio counts unknown as 0).
  it('leaves tokens out when the scored trace reported no usage', () => {
    const base = decisionVerdict('dedup');
    const verdict = {
      ...base,
      replio: { trace: [], names: [], accuracy: null, pass: null, calls: 1, redundant: 0, errors: 0, tokens: 0, status: 'ok' as const },
    };
    emitVerdictSpan(tracer, { target: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }, verdict, rule: 'r' });
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes).not.toHaveProperty('runspec.eval.tokens');
    expect(span!.attributes['runspec.eval.calls']).toBe(1);
  });

  it('emits an EVALUATOR span with exactly one link to the target root and the verdict three ways', () => {
    const target = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    const verdict = { ...decisionVerdict('dedup'), pass: false, category: 'forbidden_tool' as const, reason: 'called a forbidden tool' };
    const out = emitVerdictSpan(tracer, { target, verdict, rule: 'forbidden_tools', runId: 'score-1', captureContent: true });
    const [span] = exporter.getFinishedSpans();
    expect(span!.spanContext().spanId).toBe(out.spanId);
    expect(out.traceId).not.toBe(target.traceId);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId }))).toEqual([target]);
    expect(
      takePromised(span!.attributes, {
        'openinference.span.kind': 'EVALUATOR',
        'runspec.eval.case_id': 'check-api',
        'runspec.eval.sample': 1,
        'runspec.eval.rule': 'forbidden_tools',
        'runspec.eval.run_id': 'score-1',
        'runspec.eval.dialect': 'runspec',
        'runspec.eval.pass': false,
        'runspec.eval.category': 'forbidden_tool',
        'runspec.eval.reason': 'called a forbidden tool',
        'runspec.eval.status': 'ok',
        'runspec.eval.tool_mode': 'dedup',
        'runspec.eval.expected_tool': 'service_status',
        'runspec.eval.observed_tool': 'service_status',
        'runspec.eval.expected_host': 'web-1',
        'runspec.eval.observed_host': 'web-1',
        'runspec.eval.observed_autonomy': 'autonomous',
        'runspec.eval.json_dump': false,
        'runspec.eval.calls': 1,
        'evaluations.0.evaluation.name': 'runspec.rule.forbidden_tools',
        'evaluations.0.evaluation.score': 0,
        'evaluations.0.evaluation.label': 'forbidden_tool',
        'evaluations.0.evaluation.explanation': 'called a forbidden tool',
        'evaluations.0.evaluation.annotator_kind': 'CODE',
        'evaluations.0.evaluation.identifier': 'forbidden_tools#1',
      }),
    ).toEqual({});
    expect(span!.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'gen_ai.evaluation.result',
        {
          'gen_ai.evaluation.name': 'runspec.rule.forbidden_tools',
          'gen_ai.evaluation.score.value': 0,
          'gen_ai.evaluation.score.label': 'forbidden_tool',
          'gen_ai.evaluation.explanation': 'called a forbidden tool',
        },
      ],
    ]);
  });
});

describe('replayed runs', () => {
  // Regression: a replayed run's root span said gen_ai.provider.name = "replay".
  it('names the recorded provider on the root span, not replay', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const run = { ...decisionRun('dedup'), provider: 'replay' };
    renderRunTrace(provider.getTracer('t'), { case: DECISION_CASE, run, verdict: decisionVerdict('dedup'), runId: 'r', captureContent: false });
    const root = exporter.getFinishedSpans().find((s) => s.parentSpanContext === undefined)!;
    expect(root.attributes['gen_ai.provider.name']).toBe(run.modelCalls[0]!.provider);
    expect(root.attributes['gen_ai.provider.name']).not.toBe('replay');
  });
});
