// runspec-eval is a library too: its tracer provider is private (a BasicTracerProvider, never registered), so a
// host application's global OpenTelemetry setup is never touched and never sees runspec's spans.
import { context, propagation, trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import type { TelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, otlpConfig } from './_fixtures.js';

function config(url: string): TelemetryConfig {
  return otlpConfig(url, { timeoutMs: 5000 });
}

describe('private tracer provider', () => {
  afterAll(() => {
    trace.disable();
  });

  it("leaves the host's global tracer provider, propagator and context manager alone, and sends it no spans", async () => {
    const hostSpans = new InMemorySpanExporter();
    const host = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(hostSpans)] });
    expect(trace.setGlobalTracerProvider(host)).toBe(true);
    const fieldsBefore = propagation.fields();
    const activeBefore = context.active();
    const sink = await startOtlpSink();
    try {
      const telemetry = createTelemetry(config(sink.url));
      telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), result: DECISION_RESULT, runId: 'r' });
      await telemetry.shutdown();
      expect(sink.spans().length).toBeGreaterThan(0);
    } finally {
      await sink.close();
    }
    expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).toBe(host);
    expect(propagation.fields()).toEqual(fieldsBefore);
    expect(context.active()).toBe(activeBefore);
    expect(hostSpans.getFinishedSpans()).toEqual([]);
  });
});
