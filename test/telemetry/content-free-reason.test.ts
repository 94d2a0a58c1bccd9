// Regression: a wrong_args reason quotes the model's argument values; with content capture off it used to
// be exported as-is in runspec.eval.reason, the evaluation attributes/event and the Phoenix annotation.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSpanAnnotations, emitVerdictSpan, renderRunTrace } from '../../src/telemetry/index.js';
import { contentFreeReason } from '../../src/telemetry/index.js';
import type { Verdict } from '../../src/types/index.js';
import { DECISION_CASE, decisionRun, decisionVerdict } from './_fixtures.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
afterEach(() => exporter.reset());

const leaky = (): Verdict => ({
  ...decisionVerdict('dedup'),
  pass: false,
  category: 'wrong_args',
  reason: 'arg service: expected "nginx", got "SECRET-ARG-VALUE"; arg env: missing (expected "prod")',
  // The argument names come from the structured checks, never from the prose reason.
  checks: [
    { check: 'tool', judged: true, pass: true },
    { check: 'args.service', judged: true, pass: false, expected: '"nginx"', observed: 'SECRET-ARG-VALUE' },
    { check: 'args.env', judged: true, pass: false, expected: '"prod"', observed: 'absent' },
  ],
});

const exported = () => JSON.stringify(exporter.getFinishedSpans().map((s) => ({ a: s.attributes, e: s.events })));

describe('verdict reasons without content capture', () => {
  it('names the arguments but not their values', () => {
    const r = contentFreeReason(leaky());
    expect(r).toContain('argument');
    expect(r).toContain('service, env');
    expect(r).not.toContain('SECRET-ARG-VALUE');
  });

  it('keeps argument values out of the trace unless content capture is on', () => {
    renderRunTrace(tracer, { case: DECISION_CASE, run: decisionRun('dedup'), verdict: leaky(), runId: 'r', captureContent: false });
    expect(exported()).not.toContain('SECRET-ARG-VALUE');
    expect(exported()).toContain('wrong_args');
    exporter.reset();
    renderRunTrace(tracer, { case: DECISION_CASE, run: decisionRun('dedup'), verdict: leaky(), runId: 'r', captureContent: true });
    expect(exported()).toContain('SECRET-ARG-VALUE');
  });

  it('keeps argument values out of verdict spans and annotations by default', () => {
    emitVerdictSpan(tracer, { target: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }, verdict: leaky() });
    expect(exported()).not.toContain('SECRET-ARG-VALUE');
    const [ann] = buildSpanAnnotations([{ spanId: 'B'.repeat(16), caseId: 'c', sample: 0, verdict: leaky() }]);
    expect(JSON.stringify(ann)).not.toContain('SECRET-ARG-VALUE');
    const [full] = buildSpanAnnotations([{ spanId: 'B'.repeat(16), caseId: 'c', sample: 0, verdict: leaky(), captureContent: true }]);
    expect(full!.result.explanation).toContain('SECRET-ARG-VALUE');
  });
});
