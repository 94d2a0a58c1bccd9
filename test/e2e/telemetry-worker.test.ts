// The built CLI renders and exports its traces on a worker thread (src/telemetry/off-thread.ts); the TS sources
// under vitest cannot start that worker and keep the pipeline in process. These tests load the BUILT modules
// (dist/, `npm test` builds first) and require the worker to put on the wire exactly what the in-process
// pipeline puts there (spans, attributes, resource, times, the JSON-lines file, Phoenix annotations), under the
// ids it handed back at once; and a worker that dies or falls behind to be reported, bounded, never fatal.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { resolveTelemetryConfig, type TelemetryConfig } from '../../src/config/telemetry.js';
import type * as OffThread from '../../src/telemetry/off-thread.js';
import type { RenderedTrace, RenderInput } from '../../src/telemetry/render.js';
import type * as InProcess from '../../src/telemetry/telemetry.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startFakePhoenix, type FakePhoenix } from '../helpers/fake-phoenix.js';
import { flattenTraceRequest, startOtlpSink, type FlatSpan, type OtlpSink } from '../helpers/otlp-sink.js';
import { closedPort } from '../helpers/ports.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import {
  DECISION_CASE,
  DECISION_RESULT,
  decisionRun,
  decisionVerdict,
  TOOLSET,
  TRAJECTORY_CASE,
  trajectoryRun,
  trajectoryVerdict,
} from '../telemetry/_fixtures.js';
import { casesOf, cliEnv, readJson, RUNSPEC_RESTART_AND_STATUS, tempProject } from './_helpers.js';

type CaseInput = Omit<RenderInput, 'captureContent'>;
type Emitter = { emitCase(input: CaseInput): RenderedTrace | undefined | Promise<RenderedTrace | undefined>; shutdown(): Promise<void>; flush(): Promise<void> };

let offThread: typeof OffThread;
let inProcess: typeof InProcess;
const dirs: string[] = [];
beforeAll(async () => {
  offThread = (await import(pathToFileURL(join(REPO_ROOT, 'dist/telemetry/off-thread.js')).href)) as typeof OffThread;
  inProcess = (await import(pathToFileURL(join(REPO_ROOT, 'dist/telemetry/telemetry.js')).href)) as typeof InProcess;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rs-telworker-'));
  dirs.push(d);
  return d;
}

/** Decision (two tool modes), trajectory and an errored sample, with and without the toolset. */
function inputs(): CaseInput[] {
  const errored = { ...decisionRun('dedup'), sample: 3, status: 'error' as const, error: { code: 'PROVIDER_HTTP', message: 'HTTP 503 from the model' } };
  return [
    { case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), result: DECISION_RESULT, runId: 'run-1', toolset: TOOLSET },
    { case: DECISION_CASE, run: { ...decisionRun('search'), sample: 2 }, verdict: { ...decisionVerdict('search'), sample: 2 }, result: DECISION_RESULT, runId: 'run-1', toolset: TOOLSET },
    { case: TRAJECTORY_CASE, run: trajectoryRun(), verdict: trajectoryVerdict(), runId: 'run-1', agentName: 'ops-agent' },
    { case: DECISION_CASE, run: errored, error: errored.error, result: DECISION_RESULT, runId: 'run-1' },
  ];
}

/** Emits as the run loop does (engine/suite-runner.ts): then writes the trace ids into the verdict. */
async function emitAll(telemetry: Emitter, list: CaseInput[]): Promise<RenderedTrace[]> {
  const out: RenderedTrace[] = [];
  for (const input of list) {
    const r = await telemetry.emitCase(input);
    expect(r).toBeDefined();
    if (input.verdict) input.verdict.trace = { traceId: r!.traceId, rootSpanId: r!.rootSpanId, ...(r!.url !== undefined ? { url: r!.url } : {}) };
    out.push(r!);
  }
  await telemetry.shutdown();
  return out;
}

/** Spans with their ids replaced by what they are (trace n: root, llm j, tool j), sorted; fails on an unknown id. */
function labelled(spans: FlatSpan[], rendered: RenderedTrace[]): unknown[] {
  const names = new Map<string, string>();
  rendered.forEach((r, i) => {
    names.set(r.traceId, `trace${i}`);
    names.set(r.rootSpanId, `trace${i}.root`);
    r.llmSpanIds.forEach((id, j) => names.set(id, `trace${i}.llm${j}`));
    r.toolSpanIds.forEach((id, j) => names.set(id, `trace${i}.tool${j}`));
  });
  const label = (id: string | undefined): string | undefined => (id === undefined ? undefined : (names.get(id) ?? `UNKNOWN ${id}`));
  return spans
    .map((s) => ({
      ...s,
      traceId: label(s.traceId),
      spanId: label(s.spanId),
      parentSpanId: label(s.parentSpanId),
      links: s.links.map((l) => ({ ...l, traceId: label(l.traceId), spanId: label(l.spanId) })),
    }))
    .sort((a, b) => String(a.spanId).localeCompare(String(b.spanId)));
}

function otlpConfig(url: string, captureContent: boolean, extra: Record<string, unknown> = {}): TelemetryConfig {
  return resolveTelemetryConfig({
    flags: { captureContent },
    env: readEnv({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci', OTEL_SERVICE_NAME: 'runspec-worker-test' }),
    projectDir: tempDir(),
    file: { endpoint: `${url}/v1/traces`, ...extra },
  });
}

describe('telemetry on a worker thread (built modules)', () => {
  let sink: OtlpSink | undefined;
  let phoenix: FakePhoenix | undefined;
  afterEach(async () => {
    await sink?.close();
    await phoenix?.close();
    sink = undefined;
    phoenix = undefined;
  });

  it('uses the worker from the built module when asked, or by default with a core to spare for it', async () => {
    const config = otlpConfig(`http://127.0.0.1:${await closedPort()}`, false);
    const worker = await offThread.createRunTelemetry(config, { worker: true, cores: 1 });
    const local = await offThread.createRunTelemetry(config, { worker: false, cores: 16 });
    const spare = await offThread.createRunTelemetry(config, { cores: offThread.MIN_CORES_FOR_WORKER });
    const none = await offThread.createRunTelemetry(config, { cores: 1, traces: 10_000 });
    expect('tracer' in worker).toBe(false);
    expect((local as { tracer?: unknown }).tracer).toBeDefined();
    expect('tracer' in spare).toBe(false);
    expect((none as { tracer?: unknown }).tracer).toBeDefined();
    for (const t of [worker, local, spare, none]) await t.shutdown();
  });

  it('on two cores takes the worker only for runs of MIN_TRACES_FOR_WORKER traces or more', async () => {
    const config = otlpConfig(`http://127.0.0.1:${await closedPort()}`, false);
    const small = await offThread.createRunTelemetry(config, { cores: 2, traces: offThread.MIN_TRACES_FOR_WORKER - 1 });
    const large = await offThread.createRunTelemetry(config, { cores: 2, traces: offThread.MIN_TRACES_FOR_WORKER });
    expect({ smallInProcess: 'tracer' in small, largeInProcess: 'tracer' in large }).toEqual({ smallInProcess: true, largeInProcess: false });
    for (const t of [small, large]) await t.shutdown();
  });

  it.each([
    { name: 'content off', captureContent: false },
    { name: 'content captured', captureContent: true },
  ])('exports over OTLP/HTTP the same spans as the in-process pipeline, under the ids it returned ($name)', async ({ captureContent }) => {
    sink = await startOtlpSink();
    const config = otlpConfig(sink.url, captureContent);
    const warnings: string[] = [];
    const viaWorker = await emitAll(await offThread.createRunTelemetry(config, { worker: true, onWarning: (m) => warnings.push(m), version: '9.9.9' }), inputs());
    const workerSpans = sink.spans();
    expect(sink.requests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
    sink.requests.length = 0;
    const local = await emitAll(inProcess.createTelemetry(config, { onWarning: (m) => warnings.push(m), version: '9.9.9' }), inputs());
    const localSpans = sink.spans();
    expect(warnings).toEqual([]);
    expect(workerSpans).toHaveLength(localSpans.length);
    expect(workerSpans.length).toBeGreaterThanOrEqual(9);
    expect(labelled(workerSpans, viaWorker)).toEqual(labelled(localSpans, local));
    // Parent links: every chat and tool span hangs under its trace's root.
    for (const [i, r] of viaWorker.entries()) {
      for (const id of [...r.llmSpanIds, ...r.toolSpanIds]) {
        const span = workerSpans.find((s) => s.spanId === id)!;
        expect({ trace: span.traceId, parent: span.parentSpanId }).toEqual({ trace: r.traceId, parent: r.rootSpanId });
      }
      expect(workerSpans.find((s) => s.spanId === r.rootSpanId)?.attributes['runspec.eval.case_id']).toBe(inputs()[i]!.case.id);
    }
    expect(workerSpans[0]!.resource).toMatchObject({ 'service.name': 'runspec-worker-test', 'deployment.environment': 'ci' });
  });

  it('writes the same OTLP JSON lines file as the in-process pipeline (no endpoint)', async () => {
    const read = (path: string): FlatSpan[] =>
      readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .flatMap((line) => flattenTraceRequest(JSON.parse(line) as OtlpTraceRequest));
    const dir = tempDir();
    const config = resolveTelemetryConfig({ flags: {}, env: readEnv({}), projectDir: dir });
    expect(config.exporter.kind).toBe('file');
    const worker = await offThread.createRunTelemetry(config, { worker: true, fileName: 'worker.jsonl' });
    expect(worker.destination).toBe(join(dir, '.runspec', 'traces', 'worker.jsonl'));
    const viaWorker = await emitAll(worker, inputs());
    const local = await emitAll(inProcess.createTelemetry(config, { fileName: 'local.jsonl' }), inputs());
    const tracesDir = join(dir, '.runspec', 'traces');
    expect(labelled(read(join(tracesDir, 'worker.jsonl')), viaWorker)).toEqual(labelled(read(join(tracesDir, 'local.jsonl')), local));
  });

  it('posts Phoenix annotations for the root spans it exported, keyed by the ids it returned', async () => {
    phoenix = await startFakePhoenix();
    const config = otlpConfig(phoenix.url, false, { eval_annotations: true, project: 'evals' });
    const list = inputs().slice(0, 2);
    const viaWorker = await emitAll(await offThread.createRunTelemetry(config, { worker: true }), list);
    expect(phoenix.annotations).toHaveLength(1);
    const sent = phoenix.annotations[0]!.body.data as Array<{ span_id: string; metadata: { trace_id?: string } }>;
    expect(sent.map((a) => [a.span_id, a.metadata.trace_id])).toEqual(viaWorker.map((r) => [r.rootSpanId, r.traceId]));
    const blank = (a: Record<string, unknown>): unknown => ({ ...a, span_id: undefined, metadata: { ...(a.metadata as object), trace_id: undefined } });
    const workerBody = phoenix.annotations[0]!.body.data.map(blank);
    phoenix.annotations.length = 0;
    await emitAll(inProcess.createTelemetry(config), list);
    expect(workerBody).toEqual(phoenix.annotations[0]!.body.data.map(blank));
    expect(phoenix.spans().filter((s) => s.parentSpanId === undefined).map((s) => s.resource['openinference.project.name'])).toEqual(['evals', 'evals', 'evals', 'evals']);

    // The case may be cloned before the run loop writes the ids into the verdict (a full batch is sent at
    // once): the annotations still name the trace, as in process.
    phoenix.annotations.length = 0;
    const worker = await offThread.createRunTelemetry(config, { worker: true });
    const early = [];
    for (let i = 0; i < 40; i++) early.push(await worker.emitCase({ ...list[0]!, run: { ...decisionRun('dedup'), sample: i }, verdict: { ...decisionVerdict('dedup'), sample: i } }));
    await worker.shutdown();
    const annotated = phoenix.annotations.flatMap((r) => r.body.data) as Array<{ span_id: string; metadata: { trace_id?: string } }>;
    expect(annotated.map((a) => [a.span_id, a.metadata.trace_id])).toEqual(early.map((r) => [r!.rootSpanId, r!.traceId]));
  });

  it('reports a failed export as the in-process pipeline does, and the trace links still come back', async () => {
    sink = await startOtlpSink({ status: 500 });
    const config = otlpConfig(sink.url, false);
    const fromWorker: string[] = [];
    const viaWorker = await emitAll(await offThread.createRunTelemetry(config, { worker: true, onWarning: (m) => fromWorker.push(m) }), inputs());
    const local: string[] = [];
    await emitAll(inProcess.createTelemetry(config, { onWarning: (m) => local.push(m) }), inputs());
    expect(viaWorker.every((r) => /^[0-9a-f]{32}$/.test(r.traceId) && /^[0-9a-f]{16}$/.test(r.rootSpanId))).toBe(true);
    expect(fromWorker).toHaveLength(1);
    expect(fromWorker).toEqual(local);
  });

  it('disables itself before the run on a TLS file it cannot read, as in process', async () => {
    // It exists when the config is resolved (a directory), and cannot be read as a file.
    const config = otlpConfig(`https://127.0.0.1:${await closedPort()}`, false, { ca_file: tempDir() });
    const fromWorker: string[] = [];
    const worker = await offThread.createRunTelemetry(config, { worker: true, onWarning: (m) => fromWorker.push(m) });
    const local: string[] = [];
    inProcess.createTelemetry(config, { onWarning: (m) => local.push(m) });
    expect(worker.enabled).toBe(false);
    expect(await worker.emitCase(inputs()[0]!)).toBeUndefined();
    expect(fromWorker).toEqual(local);
    expect(fromWorker[0]).toMatch(/^disabled: EISDIR/);
  });
});

describe('worker failures (stand-in worker scripts)', () => {
  let port = 0;
  beforeAll(async () => {
    port = await closedPort();
  });
  const config = (): TelemetryConfig => otlpConfig(`http://127.0.0.1:${port}`, false);
  const script = (body: string): URL => {
    const file = join(tempDir(), 'worker.mjs');
    writeFileSync(file, `import { parentPort } from 'node:worker_threads';\n${body}\n`);
    return pathToFileURL(file);
  };

  it('a worker that dies is one clear warning; the run keeps its results and shutdown returns', async () => {
    const warnings: string[] = [];
    const telemetry = offThread.createWorkerTelemetry(config(), { onWarning: (m) => warnings.push(m) }, script(`parentPort.on('message', (batch) => { if (Array.isArray(batch) && batch.some((m) => m.type === 'case')) throw new Error('worker blew up'); });`));
    const first = await telemetry.emitCase(inputs()[0]!);
    expect(first?.traceId).toMatch(/^[0-9a-f]{32}$/);
    await telemetry.flush(); // answered by the worker's death, not by a reply
    expect(warnings).toEqual(['the telemetry worker stopped (worker blew up); traces not yet exported were dropped, the eval run is unaffected']);
    expect(await telemetry.emitCase(inputs()[1]!)).toBeUndefined();
    await telemetry.shutdown();
    expect(warnings).toHaveLength(1);
  });

  it('gives up on a worker that never answers a shutdown, says so, and stops it', async () => {
    const warnings: string[] = [];
    const telemetry = offThread.createWorkerTelemetry({ ...config(), timeoutMs: 50 }, { onWarning: (m) => warnings.push(m) }, script(`parentPort.on('message', () => {});`));
    await telemetry.emitCase(inputs()[0]!);
    await telemetry.shutdown();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the telemetry worker did not finish the shutdown within \d+ ms \(http:\/\/127\.0\.0\.1:\d+\/v1\/traces\); spans not yet exported were dropped, the eval run is unaffected$/);
  });

  it('keeps the process alive while an awaited emitCase or flush waits for the worker', async () => {
    // A script whose only pending work is the worker's answer (the worker is unref'd when idle).
    const file = join(tempDir(), 'awaits.mjs');
    const worker = script(`parentPort.on('message', (batch) => { if (!Array.isArray(batch)) return; let count = 0; for (const m of batch) { if (m.type === 'case') count++; else { parentPort.postMessage({ type: 'ack', count }); count = 0; parentPort.postMessage({ type: 'done', seq: m.seq }); } } if (count) setTimeout(() => parentPort.postMessage({ type: 'ack', count }), 5); });`);
    const input = { case: { id: 'c', tags: [] }, run: { modelCalls: [], toolCalls: [] }, runId: 'r' };
    writeFileSync(
      file,
      `const { createWorkerTelemetry, MAX_IN_FLIGHT } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist/telemetry/off-thread.js')).href)});
const t = createWorkerTelemetry(${JSON.stringify(config())}, {}, new URL(${JSON.stringify(worker.href)}));
let n = 0;
for (let i = 0; i < MAX_IN_FLIGHT * 3; i++) if (await t.emitCase(${JSON.stringify(input)})) n++;
await t.flush();
await t.shutdown();
console.log('emitted', n);`,
    );
    // The end of a shutdown is a race (a terminating worker does not hold the loop): several processes at
    // once make a lost race show (it did in about one run in seven).
    const { execFile } = await import('node:child_process');
    const once = (): Promise<{ stdout: string; stderr: string; status: number | null }> =>
      new Promise((resolve) => {
        execFile(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
          resolve({ stdout: stdout.trim(), stderr, status: err ? ((err as { code?: number }).code ?? null) : 0 });
        });
      });
    const outs = await Promise.all(Array.from({ length: 6 }, once));
    expect(outs).toEqual(Array.from({ length: 6 }, () => ({ stdout: `emitted ${offThread.MAX_IN_FLIGHT * 3}`, stderr: '', status: 0 })));
  });

  it('holds emitCase back once MAX_IN_FLIGHT cases wait for the worker, and lets them go as it catches up', async () => {
    // Acknowledges nothing until asked to flush, then everything at once.
    const telemetry = offThread.createWorkerTelemetry(
      config(),
      {},
      script(`let n = 0; parentPort.on('message', (batch) => { if (!Array.isArray(batch)) return; for (const m of batch) { if (m.type === 'case') n++; else if (m.type === 'flush' || m.type === 'shutdown') { parentPort.postMessage({ type: 'ack', count: n }); n = 0; parentPort.postMessage({ type: 'done', seq: m.seq }); } } });`),
    );
    const max = offThread.MAX_IN_FLIGHT;
    const results = Array.from({ length: max + 10 }, (_, i) => telemetry.emitCase({ ...inputs()[0]!, run: { ...decisionRun('dedup'), sample: i } }));
    expect(results.slice(0, max - 1).every((r) => !(r instanceof Promise))).toBe(true);
    expect(results.slice(max - 1).every((r) => r instanceof Promise)).toBe(true);
    await telemetry.flush();
    const released = await Promise.all(results.map(async (r) => r));
    expect(new Set(released.map((r) => r?.traceId)).size).toBe(max + 10);
    await telemetry.shutdown();
  });
});

describe('the built CLI exports through the worker', { timeout: 120_000 }, () => {
  const project = tempProject('runspec-telworker-');
  let model: FakeModelServer;
  let sink: OtlpSink;
  beforeAll(async () => {
    project.write('evals/fleet.toml', RUNSPEC_RESTART_AND_STATUS);
    model = await startFakeOpenAI({
      script: {
        'restart nginx on web-01': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] }],
        'is nginx running on web-02?': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }] }],
      },
    });
    sink = await startOtlpSink();
  });
  afterAll(async () => {
    await model.close();
    await sink.close();
    project.cleanup();
  });

  /** Span shape without ids, times and the run id (which differ between runs). */
  const shape = (spans: FlatSpan[], runId: string): unknown[] => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    // The fake model numbers its tool calls and responses across both runs.
    const scrub = (v: unknown): unknown => (typeof v === 'string' ? v.replaceAll(runId, '<run>').replace(/call_\d+_\d+/g, '<call>').replace(/^chatcmpl-\d+$/, '<response>') : v);
    return spans
      .map((s) => ({
        name: s.name,
        parent: s.parentSpanId === undefined ? null : byId.get(s.parentSpanId)?.name,
        kind: s.kind,
        status: s.status,
        resource: s.resource,
        scope: s.scope,
        attributes: Object.fromEntries(Object.entries(s.attributes).map(([k, v]) => [k, scrub(v)])),
        events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  };

  it('sends the spans the in-process CLI sends, under the trace ids written to the results file', async () => {
    const args = (out: string): string[] => ['--path', project.dir, 'run', 'evals/', '--base-url', model.url, '--model', 'fake-model', '--telemetry', '--endpoint', `${sink.url}/v1/traces`, '--out', out];
    const spawned = await runCli(args('out/worker.json'), { env: cliEnv(project.dir, { RUNSPEC_TELEMETRY_WORKER: '1' }), cwd: project.dir, spawn: true });
    expect(spawned.stderr).not.toMatch(/telemetry:/);
    const workerSpans = sink.spans();
    sink.requests.length = 0;
    const local = await runCli(args('out/local.json'), { env: cliEnv(project.dir), cwd: project.dir });
    expect(local.exitCode).toBe(spawned.exitCode);
    const localSpans = sink.spans();

    const doc = readJson(join(project.dir, 'out/worker.json'));
    const runs = Object.values(casesOf(doc)).flatMap((c) => (c as { runs: Array<{ verdict: { category: string; trace_id: string; root_span_id: string } }> }).runs);
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      const root = workerSpans.find((s) => s.spanId === run.verdict.root_span_id);
      expect(root?.traceId).toBe(run.verdict.trace_id);
      expect(root?.parentSpanId).toBeUndefined();
      expect(root?.attributes['runspec.eval.category']).toBe(run.verdict.category);
    }
    const runIdOf = (file: string): string => (readJson(join(project.dir, file)) as { meta: { run_id: string } }).meta.run_id;
    expect(shape(workerSpans, runIdOf('out/worker.json'))).toEqual(shape(localSpans, runIdOf('out/local.json')));
    expect(readdirSync(project.dir)).toContain('out');
  });
});
