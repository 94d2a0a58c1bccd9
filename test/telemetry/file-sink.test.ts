// The embedded default: with no endpoint, traces go to OTLP JSON lines under .runspec/traces/ in the
// Collector file exporter's format, flushed to disk on flush(), and the trace reader reads them back.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { resolveTelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry, type RenderedTrace } from '../../src/telemetry/index.js';
import { createTraceAssembler } from '../../src/traces/assembler.js';
import { normaliseTrace } from '../../src/traces/normalise.js';
import { readTracePaths } from '../../src/traces/readers.js';
import type { SpanRecord } from '../../src/traces/spans.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { flattenTraceRequest } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, T0, TRAJECTORY_CASE, trajectoryRun, trajectoryVerdict } from './_fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function project(): string {
  const d = mkdtempSync(join(tmpdir(), 'rs-traces-'));
  dirs.push(d);
  return d;
}

function fileTelemetry(projectDir: string, captureContent: boolean) {
  const config = resolveTelemetryConfig({ flags: { captureContent }, env: readEnv({}), projectDir });
  expect(config.exporter).toEqual({ kind: 'file', dir: join(projectDir, '.runspec', 'traces') });
  const warnings: string[] = [];
  return { telemetry: createTelemetry(config, { onWarning: (m) => warnings.push(m), fileName: 'run.jsonl' }), warnings };
}

function readLines(path: string): OtlpTraceRequest[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as OtlpTraceRequest);
}

describe('embedded JSON-lines sink', () => {
  it('writes one ExportTraceServiceRequest per line under .runspec/traces, durable after flush()', async () => {
    const dir = project();
    const { telemetry, warnings } = fileTelemetry(dir, false);
    expect(telemetry.destination).toBe(join(dir, '.runspec', 'traces', 'run.jsonl'));
    const ids = telemetry.emitCase({
      case: DECISION_CASE,
      run: decisionRun('dedup'),
      verdict: decisionVerdict('dedup'),
      result: DECISION_RESULT,
      runId: 'r1',
    })!;
    await telemetry.flush();
    // Readable before shutdown: flush() wrote and fsynced the batch.
    const lines = readLines(telemetry.destination!);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(Object.keys(line)).toEqual(['resourceSpans']);
    const spans = lines.flatMap(flattenTraceRequest);
    expect(spans.map((s) => s.spanId).sort()).toEqual([ids.rootSpanId, ...ids.llmSpanIds, ...ids.toolSpanIds].sort());
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    const root = spans.find((s) => s.spanId === ids.rootSpanId)!;
    expect(root.startTimeUnixNano).toBe((BigInt(T0) * 1_000_000n).toString());
    expect(root.attributes['runspec.eval.category']).toBe('pass');
    expect(root.resource['service.name']).toBe('runspec-eval');

    telemetry.emitCase({ case: TRAJECTORY_CASE, run: trajectoryRun(), verdict: trajectoryVerdict(), runId: 'r1' });
    await telemetry.shutdown();
    const all = readLines(telemetry.destination!).flatMap(flattenTraceRequest);
    expect(all).toHaveLength(3 + 6);
    expect(new Set(all.map((s) => s.traceId)).size).toBe(2);
    expect(warnings).toEqual([]);
    // Shut down: later cases are dropped, never thrown.
    expect(telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), runId: 'r1' })).toBeUndefined();
  });

  it('appends to an existing file instead of truncating it', async () => {
    const dir = project();
    for (let i = 0; i < 2; i++) {
      const { telemetry } = fileTelemetry(dir, false);
      telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), runId: `r${i}` });
      await telemetry.shutdown();
    }
    const files = readdirSync(join(dir, '.runspec', 'traces'));
    expect(files).toEqual(['run.jsonl']);
    const spans = readLines(join(dir, '.runspec', 'traces', 'run.jsonl')).flatMap(flattenTraceRequest);
    expect(new Set(spans.map((s) => s.attributes['runspec.eval.run_id']).filter(Boolean))).toEqual(new Set(['r0', 'r1']));
  });

  it('round-trips through the trace reader and normaliser back to the same Run', async () => {
    const dir = project();
    const { telemetry } = fileTelemetry(dir, true);
    const emitted: Array<[RenderedTrace, ReturnType<typeof decisionRun>]> = [];
    for (const run of [decisionRun('search'), trajectoryRun()]) {
      const c = run.mode === 'decision' ? DECISION_CASE : TRAJECTORY_CASE;
      const verdict = run.mode === 'decision' ? decisionVerdict('search') : trajectoryVerdict();
      emitted.push([telemetry.emitCase({ case: c, run, verdict, runId: 'rt' })!, run]);
    }
    await telemetry.shutdown();

    const spans: SpanRecord[] = [];
    for await (const item of readTracePaths([join(dir, '.runspec', 'traces')], { cwd: dir })) {
      expect(item.kind).not.toBe('problem');
      if (item.kind === 'spans') spans.push(...item.spans);
    }
    const assembler = createTraceAssembler({ quiet: 1 });
    assembler.addSpans(spans, 0);
    const traces = assembler.flush();
    expect(traces).toHaveLength(2);
    for (const [ids, original] of emitted) {
      const assembled = traces.find((t) => t.traceId === ids.traceId)!;
      const result = normaliseTrace(assembled);
      if (!result.ok) throw new Error(result.reason);
      expect(result.info.caseId).toBe(original.caseId);
      expect(result.info.rootSpanId).toBe(ids.rootSpanId);
      const run = result.run;
      expect([run.caseId, run.sample, run.mode, run.startTimeMs, run.endTimeMs, run.status]).toEqual([
        original.caseId,
        original.sample,
        original.mode,
        original.startTimeMs,
        original.endTimeMs,
        original.status,
      ]);
      expect(run.modelCalls.map((m) => [m.startTimeMs, m.endTimeMs, m.requestModel, m.response?.toolCalls])).toEqual(
        original.modelCalls.map((m) => [m.startTimeMs, m.endTimeMs, m.requestModel, m.response?.toolCalls]),
      );
      expect(run.toolCalls.map((t) => [t.call, t.executed, t.result ?? null, t.modelCallIndex])).toEqual(
        original.toolCalls.map((t) => [t.call, t.executed, t.result ?? null, t.modelCallIndex]),
      );
      expect(run.terminal?.call).toEqual(original.terminal?.call);
    }
  });
});
