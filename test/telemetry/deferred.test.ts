// `run`'s deferred telemetry (src/telemetry/deferred.ts): nothing loads before the first case finishes, every
// case's trace is still rendered whole and in the order the cases finished, and a run whose cases never
// emit still loads it at shutdown, so a bad setup is reported.
import { afterEach, describe, expect, it } from 'vitest';
import type { TelemetryConfig } from '../../src/config/telemetry.js';
import { deferTelemetry } from '../../src/telemetry/deferred.js';
import { createTelemetry, type Telemetry } from '../../src/telemetry/index.js';
import { openTelemetry } from '../../src/telemetry/telemetry.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict } from './_fixtures.js';

let sink: OtlpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

function config(url: string): TelemetryConfig {
  return {
    enabled: true,
    captureContent: false,
    captureHashed: false,
    annotations: false,
    phoenixExperiment: false,
    exporter: { kind: 'otlp', url: `${url}/v1/traces`, protocol: 'http/protobuf', headers: {}, compression: 'none' },
    timeoutMs: 10_000,
    serviceName: 'runspec-test',
    resourceAttributes: {},
    apiKeyEnv: 'PHOENIX_API_KEY',
    sources: {
      enabled: 'default',
      captureContent: 'default',
      annotations: 'default',
      endpoint: 'env',
      protocol: 'default',
      timeoutMs: 'default',
      annotationsUrl: 'default',
      project: 'default',
      serviceName: 'default',
    },
  };
}

const sample = (n: number) => ({
  case: DECISION_CASE,
  run: { ...decisionRun('dedup'), sample: n },
  verdict: { ...decisionVerdict('dedup'), sample: n },
  result: DECISION_RESULT,
  runId: 'r',
});

describe('deferTelemetry', () => {
  it('loads on the first case, renders every case in order, and sends the same spans as createTelemetry', async () => {
    sink = await startOtlpSink();
    const warnings: string[] = [];
    let loads = 0;
    const deferred = deferTelemetry(() => {
      loads++;
      return openTelemetry(config(sink!.url), { onWarning: (m) => warnings.push(m) });
    });
    expect(loads).toBe(0);
    const rendered = [];
    for (const n of [0, 1, 2]) rendered.push(await deferred.emitCase(sample(n)));
    await deferred.shutdown();
    expect(loads).toBe(1);
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
        events: s.events.map((e) => e.name),
        status: s.status,
      });
      expect(spans.map(strip)).toEqual(direct.spans().map(strip));
    } finally {
      await direct.close();
    }
  });

  it('a run whose cases never emit still loads at shutdown (a bad setup is reported)', async () => {
    const calls: string[] = [];
    const fake = { shutdown: async () => void calls.push('shutdown') } as unknown as Telemetry;
    const deferred = deferTelemetry(async () => {
      calls.push('load');
      return fake;
    });
    expect(calls).toEqual([]);
    await deferred.shutdown();
    expect(calls).toEqual(['load', 'shutdown']);
  });
});
