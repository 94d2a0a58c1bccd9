// `run`'s deferred telemetry (src/telemetry/deferred.ts): every case's trace is still rendered whole and in
// the order the cases finished, with the spans the eager path sends, and a bad setup is still reported when
// the run starts.
import { afterEach, describe, expect, it } from 'vitest';
import type { TelemetryConfig } from '../../src/config/telemetry.js';
import { deferTelemetry } from '../../src/telemetry/deferred.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, otlpConfig } from './_fixtures.js';

let sink: OtlpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

function config(url: string): TelemetryConfig {
  return otlpConfig(url);
}

const sample = (n: number) => ({
  case: DECISION_CASE,
  run: { ...decisionRun('dedup'), sample: n },
  verdict: { ...decisionVerdict('dedup'), sample: n },
  result: DECISION_RESULT,
  runId: 'r',
});

describe('deferTelemetry', () => {
  it('renders every case in the order they finished, with the spans createTelemetry sends', async () => {
    sink = await startOtlpSink();
    const warnings: string[] = [];
    const deferred = deferTelemetry(config(sink.url), { onWarning: (m) => warnings.push(m) })!;
    const rendered = [];
    for (const n of [0, 1, 2]) rendered.push(await deferred.emitCase(sample(n)));
    await deferred.shutdown();
    expect(warnings).toEqual([]);
    const spans = sink.spans();
    const roots = spans.filter((s) => s.parentSpanId === undefined || s.parentSpanId === '');
    expect(roots.map((s) => s.spanId)).toEqual(rendered.map((r) => r!.rootSpanId));

    // The eager path's spans, field by field apart from ids and times.
    const direct = await startOtlpSink();
    try {
      const telemetry = createTelemetry(config(direct.url));
      for (const n of [0, 1, 2]) telemetry.emitCase(sample(n));
      await telemetry.shutdown();
      const strip = (s: (typeof spans)[number]) => ({
        name: s.name,
        kind: s.kind,
        attributes: s.attributes,
        events: s.events,
        links: s.links,
        status: s.status,
        resource: s.resource,
        scope: s.scope,
      });
      expect(spans.map(strip)).toEqual(direct.spans().map(strip));
    } finally {
      await direct.close();
    }
  });

  it('a run whose cases never finish sends nothing, and shutdown returns', async () => {
    sink = await startOtlpSink();
    const deferred = deferTelemetry(config(sink.url))!;
    await deferred.shutdown();
    expect(sink.requests).toEqual([]);
  });

  it('shutdown waits for a case still being rendered, and a case handed over after it is not rendered', async () => {
    sink = await startOtlpSink();
    const deferred = deferTelemetry(config(sink.url))!;
    // Not awaited: the render waits a turn of the loop and the SDK's load, which shutdown must wait for.
    const inFlight = deferred.emitCase(sample(0));
    await deferred.shutdown();
    const rendered = await inFlight;
    const roots = sink.spans().filter((s) => s.parentSpanId === undefined || s.parentSpanId === '');
    expect(roots.map((s) => s.spanId)).toEqual([rendered!.rootSpanId]);
    expect(await deferred.emitCase(sample(1))).toBeUndefined();
    expect(sink.spans().filter((s) => s.parentSpanId === undefined || s.parentSpanId === '')).toHaveLength(1);
  });

  it('a bad setup is reported when the run starts, in the words createTelemetry uses', () => {
    const bad: TelemetryConfig = {
      ...config('http://127.0.0.1:9'),
      exporter: { ...config('http://127.0.0.1:9').exporter, caFile: '/nonexistent/ca.pem' } as TelemetryConfig['exporter'],
    };
    const deferredWarnings: string[] = [];
    expect(deferTelemetry(bad, { onWarning: (m) => deferredWarnings.push(m) })).toBeUndefined();
    const eagerWarnings: string[] = [];
    expect(createTelemetry(bad, { onWarning: (m) => eagerWarnings.push(m) }).enabled).toBe(false);
    expect(deferredWarnings).toEqual(eagerWarnings);
    expect(deferredWarnings).toHaveLength(1);
  });
});
