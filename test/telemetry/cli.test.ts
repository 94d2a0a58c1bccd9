// `runspec-eval run` with telemetry, end to end: the verdict reaches the collector on the root span, the
// embedded default writes JSON lines, Phoenix gets annotations, and a broken collector (down, 500,
// hanging) changes neither the exit code nor the results file. The CLI runs in-process through main().
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startFakePhoenix } from '../helpers/fake-phoenix.js';
import { flattenTraceRequest, startOtlpSink } from '../helpers/otlp-sink.js';
import { runCli } from '../helpers/run-cli.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { cliEnv, readJson, SECRET, stable, tempProject } from '../e2e/_helpers.js';

const SUITE = `
[[eval]]
id           = "status-check"
prompt       = "PROMPT-TEXT is nginx running on web-02?"
expect_tool  = "service-status"
forbid_tools = ["restart-service"]
`;

/** A results document with volatile fields blanked and the fake model's per-request call ids unified. */
// Trace ids exist only when telemetry is on (whether or not the export then succeeds): not compared.
const TRACE_KEYS = new Set(['trace_id', 'root_span_id', 'trace_url']);
function comparable(doc: unknown): unknown {
  return JSON.parse(JSON.stringify(stable(doc), (k, v: unknown) => (TRACE_KEYS.has(k) ? undefined : v)).replace(/call_\d+_\d+/g, 'call_n'));
}

describe('run with telemetry', () => {
  const project = tempProject('runspec-tel-');
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE);
    // The model restarts the service it was only asked about: a forbidden_tool verdict, exit 1.
    model = await startFakeOpenAI({ toolCall: { name: 'restart-service', arguments: { host: 'web-02', service: 'ARG-nginx' } } });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });
  const run = (out: string, env: Record<string, string> = {}, extra: string[] = []) =>
    runCli(['--path', project.dir, 'run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--out', out, ...extra], {
      env: cliEnv(project.dir, env),
      cwd: project.dir,
    });

  it('exports the case as a trace with the verdict on the root span, and no key or content without capture', async () => {
    const sink = await startOtlpSink();
    try {
      const cli = await run('out/ok.json', { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
      expect(cli.exitCode).toBe(1);
      const root = sink.rootSpan();
      expect(root.attributes['runspec.eval.category']).toBe('forbidden_tool');
      expect(root.attributes['runspec.eval.case_id']).toBe('status-check');
      expect(root.attributes['openinference.span.kind']).toBe('AGENT');
      expect(sink.spans().some((s) => s.attributes['gen_ai.tool.name'] === 'restart-service')).toBe(true);
      expect(sink.requests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
      const wire = sink.rawBodies();
      expect(cli.stdout + cli.stderr + wire).not.toContain(SECRET);
      expect(wire).not.toContain('PROMPT-TEXT');
      expect(wire).not.toContain('ARG-nginx');
    } finally {
      await sink.close();
    }
  });

  it('writes OTLP JSON lines under .runspec/traces when no endpoint is configured', async () => {
    const cli = await run('out/file.json');
    expect(cli.exitCode).toBe(1);
    const dir = join(project.dir, '.runspec', 'traces');
    const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThan(0);
    const spans = files.flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .trimEnd()
        .split('\n')
        .flatMap((line) => flattenTraceRequest(JSON.parse(line) as OtlpTraceRequest)),
    );
    expect(spans.find((s) => s.parentSpanId === undefined)?.attributes['runspec.eval.category']).toBe('forbidden_tool');
  });

  it('posts the verdict to Phoenix as a span annotation with --annotations', async () => {
    const phoenix = await startFakePhoenix();
    try {
      const cli = await run('out/phoenix.json', { PHOENIX_API_KEY: 'px-key' }, ['--endpoint', `${phoenix.url}/v1/traces`, '--annotations']);
      expect(cli.exitCode).toBe(1);
      const root = phoenix.spans().find((s) => s.parentSpanId === undefined)!;
      expect(phoenix.annotations).toHaveLength(1);
      expect(phoenix.annotations[0]!.headers.authorization).toBe('Bearer px-key');
      expect(phoenix.annotations[0]!.body.data).toMatchObject([
        {
          span_id: root.spanId,
          name: 'runspec.tool_selection',
          annotator_kind: 'CODE',
          result: { label: 'forbidden_tool', score: 0 },
          identifier: 'status-check#0',
        },
      ]);
    } finally {
      await phoenix.close();
    }
  });

  // The baseline runs once with telemetry off; each fault run must match it. (A 500 is covered in faults.test.ts.)
  let baseline: Promise<{ exitCode: number | null; doc: unknown }> | undefined;
  const baselineRun = () =>
    (baseline ??= run('out/baseline.json', { OTEL_SDK_DISABLED: 'true' }).then((cli) => ({
      exitCode: cli.exitCode,
      doc: comparable(readJson(join(project.dir, 'out/baseline.json'))),
    })));

  it.each([
    { name: 'down', hang: false, down: true },
    { name: 'hanging', hang: true, down: false },
  ])('keeps the exit code and results identical when the collector is $name', async ({ name, hang, down }) => {
    const expected = await baselineRun();
    const sink = await startOtlpSink({ hang });
    if (down) await sink.close();
    try {
      const cli = await run(`out/${name}.json`, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' });
      expect(cli.exitCode).toBe(expected.exitCode);
      expect(comparable(readJson(join(project.dir, `out/${name}.json`)))).toEqual(expected.doc);
      expect(cli.stderr).toMatch(/telemetry: export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
      expect(cli.stderr).not.toMatch(/\n\s+at /);
    } finally {
      if (!down) await sink.close();
    }
  });
});
