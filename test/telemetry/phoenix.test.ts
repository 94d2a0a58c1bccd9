// Phoenix: spans over http/protobuf and verdicts as span annotations on each sample's root span, asserted
// against a fake Phoenix on 127.0.0.1; annotation failures are one warning and never throw.
import { afterEach, describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { resolveTelemetryConfig } from '../../src/config/telemetry.js';
import { buildSpanAnnotations, createTelemetry, postSpanAnnotations, type SpanAnnotation } from '../../src/telemetry/index.js';
import { startFakePhoenix, type FakePhoenix } from '../helpers/fake-phoenix.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict } from './_fixtures.js';
import { closedPort } from '../helpers/ports.js';

let phoenix: FakePhoenix | undefined;
afterEach(async () => {
  await phoenix?.close();
  phoenix = undefined;
});

function annotation(i: number): SpanAnnotation {
  return buildSpanAnnotations([{ spanId: i.toString(16).padStart(16, '0'), caseId: `c${i}`, sample: 0, verdict: decisionVerdict('dedup') }])[0]!;
}

describe('Phoenix annotations', () => {
  it('posts one annotation per sample root span after the spans, with a stable identifier and the bearer key', async () => {
    phoenix = await startFakePhoenix();
    const env = readEnv({ PHOENIX_API_KEY: 'px-secret-key' });
    const config = resolveTelemetryConfig({
      flags: { captureContent: false },
      env,
      projectDir: '/tmp',
      file: { endpoint: `${phoenix.url}/v1/traces`, eval_annotations: true, project: 'evals' },
    });
    const telemetry = createTelemetry(config);
    const pass = telemetry.emitCase({
      case: DECISION_CASE,
      run: decisionRun('dedup'),
      verdict: decisionVerdict('dedup'),
      result: DECISION_RESULT,
      runId: 'run-7',
    })!;
    const failRun = { ...decisionRun('dedup'), sample: 2 };
    const failVerdict = {
      ...decisionVerdict('dedup'),
      sample: 2,
      pass: false,
      category: 'wrong_host' as const,
      reason: 'expected host web-1, got db-1',
      observed: { tool: 'service_status', host: 'db-1', args: { name: 'SECRET-ARG' } },
    };
    const fail = telemetry.emitCase({ case: DECISION_CASE, run: failRun, verdict: failVerdict, runId: 'run-7' })!;
    await telemetry.shutdown();

    // Spans reached Phoenix as protobuf (the only encoding it accepts) with the project on the resource.
    expect(phoenix.traceRequests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
    const roots = phoenix.spans().filter((s) => s.parentSpanId === undefined);
    expect(roots.map((s) => s.spanId).sort()).toEqual([pass.rootSpanId, fail.rootSpanId].sort());
    expect(roots[0]!.resource['openinference.project.name']).toBe('evals');

    expect(phoenix.annotations).toHaveLength(1);
    const [req] = phoenix.annotations;
    expect(req!.query).toEqual({ sync: 'false' });
    expect(req!.headers.authorization).toBe('Bearer px-secret-key');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.body).toEqual({
      data: [
        {
          span_id: pass.rootSpanId,
          name: 'runspec.tool_selection',
          annotator_kind: 'CODE',
          result: { label: 'pass', score: 1, explanation: 'pass: called service_status on web-1' },
          metadata: {
            case_id: 'check-api',
            sample: 1,
            run_id: 'run-7',
            expected: { tool: ['service_status'], host: 'web-1' },
            observed: { tool: 'service_status', host: 'web-1', autonomy: 'autonomous' },
          },
          identifier: 'check-api#1',
        },
        {
          span_id: fail.rootSpanId,
          name: 'runspec.tool_selection',
          annotator_kind: 'CODE',
          result: { label: 'wrong_host', score: 0, explanation: 'wrong_host: expected web-1, targeted db-1' },
          metadata: {
            case_id: 'check-api',
            sample: 2,
            run_id: 'run-7',
            expected: { tool: ['service_status'], host: 'web-1' },
            observed: { tool: 'service_status', host: 'db-1' },
          },
          identifier: 'check-api#2',
        },
      ],
    });
    // The key authenticates the export to the same Phoenix as a header, never as span content.
    expect(phoenix.traceRequests.every((r) => r.headers.authorization === 'Bearer px-secret-key')).toBe(true);

    expect(phoenix.traceRequests.map((r) => r.body.toString('utf8')).join('')).not.toContain('px-secret-key');
    expect(JSON.stringify(phoenix.annotations.map((a) => a.body))).not.toContain('SECRET-ARG');
  });

  it('annotates a sample that errored before any Run with category error', () => {
    const [a] = buildSpanAnnotations([
      { spanId: 'ABCDEF0123456789', caseId: 'c', sample: 3, runId: 'r', error: { code: 'PROVIDER_AUTH', message: 'HTTP 401' } },
    ]);
    expect(a).toEqual({
      span_id: 'abcdef0123456789',
      name: 'runspec.tool_selection',
      annotator_kind: 'CODE',
      // Not an evaluation: no score, so Phoenix's mean score counts only real verdicts.
      result: { label: 'error', explanation: 'PROVIDER_AUTH: HTTP 401' },
      metadata: { case_id: 'c', sample: 3, run_id: 'r', error_type: 'PROVIDER_AUTH', expected: {}, observed: {} },
      identifier: 'c#3',
    });
  });

  it('chunks large batches into requests of at most 100 items', async () => {
    phoenix = await startFakePhoenix();
    const annotations = Array.from({ length: 250 }, (_, i) => annotation(i + 1));
    const result = await postSpanAnnotations({ baseUrl: phoenix.url, annotations, timeoutMs: 5000 });
    expect(result).toEqual({ posted: 250 });
    expect(phoenix.annotations.map((a) => a.body.data.length)).toEqual([100, 100, 50]);
    expect(phoenix.annotations[0]!.headers.authorization).toBeUndefined();
  });

  it('retries a 503 with backoff and then succeeds', async () => {
    phoenix = await startFakePhoenix({ annotationStatuses: [503, 200] });
    const result = await postSpanAnnotations({ baseUrl: phoenix.url, annotations: [annotation(1)], timeoutMs: 5000 });
    expect(result).toEqual({ posted: 1 });
    expect(phoenix.annotations).toHaveLength(2);
  });

  it('does not retry a 400 and reports it as a warning instead of throwing', async () => {
    phoenix = await startFakePhoenix({ annotationStatuses: [400] });
    const result = await postSpanAnnotations({ baseUrl: phoenix.url, annotations: [annotation(1)], timeoutMs: 5000 });
    expect(result.posted).toBe(0);
    expect(result.warning).toMatch(/ answered 400: /);
    expect(phoenix.annotations).toHaveLength(1);
  });

  it('gives up on a persistent 500 after three attempts with one warning, and the telemetry run is unaffected', async () => {
    phoenix = await startFakePhoenix({ annotationStatuses: [500] });
    const warnings: string[] = [];
    const config = resolveTelemetryConfig({
      flags: { annotations: true },
      env: readEnv({}),
      projectDir: '/tmp',
      file: { endpoint: `${phoenix.url}/v1/traces`, timeout_ms: 5000 },
    });
    const telemetry = createTelemetry(config, { onWarning: (m) => warnings.push(m) });
    telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), runId: 'r' });
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
    expect(phoenix.annotations).toHaveLength(3);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^phoenix annotations: POST .*\/v1\/span_annotations\?sync=false answered 500 after 3 attempts: \{"detail":"error"\}; 1 verdict annotation\(s\) not sent$/,
    );
    expect(phoenix.spans().length).toBe(3);
  });

  it('reports an unreachable Phoenix as a warning', async () => {
    const result = await postSpanAnnotations({ baseUrl: `http://127.0.0.1:${await closedPort()}`, annotations: [annotation(1)], timeoutMs: 2000, attempts: 2 });
    expect(result.posted).toBe(0);
    expect(result.warning).toMatch(/^phoenix annotations: POST/);
  });
});
