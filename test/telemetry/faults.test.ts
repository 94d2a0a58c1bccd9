// Failure isolation: a collector that is down, answers 500, hangs or is slow never breaks the run. The
// case still renders, verdict objects are untouched, there is one warning at most, and shutdown returns
// within the export timeout (checked as liveness against a generous sentinel, not as a timing claim).
import { afterEach, describe, expect, it } from 'vitest';
import type { OtlpProtocol, TelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, otlpConfig } from './_fixtures.js';

let sink: OtlpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

function config(url: string, timeoutMs: number, protocol: OtlpProtocol = 'http/protobuf'): TelemetryConfig {
  return otlpConfig(url, { protocol, timeoutMs });
}

/** Emits three samples and shuts down; 'hung' means shutdown outlived the sentinel. */
async function runAgainst(cfg: TelemetryConfig) {
  const warnings: string[] = [];
  const telemetry = createTelemetry(cfg, { onWarning: (m) => warnings.push(m) });
  const verdict = decisionVerdict('dedup');
  const before = structuredClone(verdict);
  const rendered = [0, 1, 2].map((sample) =>
    telemetry.emitCase({ case: DECISION_CASE, run: { ...decisionRun('dedup'), sample }, verdict: { ...verdict, sample }, result: DECISION_RESULT, runId: 'r' }),
  );
  const sentinel = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), cfg.timeoutMs + 10_000).unref());
  const outcome = await Promise.race([telemetry.shutdown().then(() => 'done' as const), sentinel]);
  expect(verdict).toEqual(before);
  return { warnings, outcome, rendered };
}

describe('collector faults', () => {
  it('collector down: the cases render, shutdown returns, one warning', async () => {
    sink = await startOtlpSink();
    const url = sink.url;
    await sink.close();
    sink = undefined;
    const { warnings, outcome, rendered } = await runAgainst(config(url, 1000));
    expect(outcome).toBe('done');
    expect(rendered.every((r) => r !== undefined && /^[0-9a-f]{32}$/.test(r.traceId))).toBe(true);
    expect(warnings).toHaveLength(1);
    // Refused at once, or (on a loaded machine) still connecting when the export timeout ends.
    expect(warnings[0]).toMatch(/^export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces (failed|did not finish within \d+ ms) .*the eval run is unaffected$/);
  });

  it.each<OtlpProtocol>(['http/protobuf', 'http/json'])('collector answering 500 over %s: one warning, nothing thrown', async (protocol) => {
    sink = await startOtlpSink({ status: 500 });
    const { warnings, outcome } = await runAgainst(config(sink.url, 2000, protocol));
    expect(outcome).toBe('done');
    expect(sink.requests.length).toBeGreaterThan(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed/);
  });

  it('hanging collector: shutdown gives up at the export timeout instead of waiting forever', async () => {
    sink = await startOtlpSink({ hang: true });
    const { warnings, outcome } = await runAgainst(config(sink.url, 500));
    expect(outcome).toBe('done');
    expect(sink.requests.length).toBeGreaterThan(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces (did not finish within 500 ms|failed)/);
  });

  it('slow collector within the timeout: every span arrives and nothing is reported', async () => {
    sink = await startOtlpSink({ delayMs: 300 });
    const { warnings, outcome } = await runAgainst(config(sink.url, 10_000));
    expect(outcome).toBe('done');
    expect(warnings).toEqual([]);
    expect(sink.spans()).toHaveLength(9);
  });

  it('a disabled config renders nothing and never touches the network', async () => {
    sink = await startOtlpSink();
    const telemetry = createTelemetry({ ...config(sink.url, 1000), enabled: false });
    expect(telemetry.enabled).toBe(false);
    expect(telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), runId: 'r' })).toBeUndefined();
    await telemetry.shutdown();
    expect(sink.requests).toEqual([]);
  });
});
