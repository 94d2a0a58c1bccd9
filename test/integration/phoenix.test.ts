// Our traces and verdicts in a live Arize Phoenix, read back through Phoenix's own REST API: the built CLI
// (dist/cli/main.js, as a process) runs a scripted suite (mock provider: no model, no key) and exports over
// OTLP/HTTP protobuf and OTLP/gRPC with annotations on; the spans, their kinds, token counts, arguments and
// `runspec.eval.*` attributes, and every verdict annotation are then polled from Phoenix with a deadline.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/run-cli.js';
import {
  listSpanAnnotations,
  listSpans,
  phoenixGet,
  PHOENIX_VERSION,
  startPhoenix,
  type PhoenixAnnotation,
  type PhoenixServer,
  type PhoenixSpan,
} from './setup/phoenix.js';
import { freePort } from './setup/net.js';
import { waitFor } from './setup/wait.js';
import { encodeTraceRequest } from '../../src/traces/otlp-proto.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';

const INGEST_DEADLINE_MS = 60_000;

const DECISION_SUITE = `
[[eval]]
id          = "restart-nginx"
prompt      = "restart nginx on web-01"
expect_tool = "restart-service"
expect_host = "web-01"
expect_args = { service = "nginx-7f3e" }

[[eval]]
id           = "status-check"
prompt       = "is nginx running on web-02?"
expect_tool  = "read-text-file"
forbid_tools = ["restart-service"]

[[eval]]
id          = "outage"
prompt      = "read /etc/hosts on db-01"
expect_tool = "read-text-file"
`;

const TRAJECTORY_CASE = {
  id: 'count-lines',
  task: 'How many lines does src/app.py have?',
  files: { 'src/app.py': 'import sys\n\n\ndef main():\n    return 0\n' },
  expected: ['file_read'],
  verifier: { must_include: ['file_read'], min_calls: 1, max_calls: 2 },
};

const MOCK_SCRIPT = {
  model: 'mock-model',
  cases: {
    'restart-nginx': [
      {
        toolCalls: [{ id: 'call_1', name: 'restart-service', arguments: { service: 'nginx-7f3e', host: 'web-01' } }],
        usage: { promptTokens: 120, completionTokens: 17, totalTokens: 137 },
      },
    ],
    'status-check': [
      {
        toolCalls: [{ id: 'call_2', name: 'restart-service', arguments: { service: 'nginx-7f3e', host: 'web-02' } }],
        usage: { promptTokens: 110, completionTokens: 15, totalTokens: 125 },
      },
    ],
    outage: [{ error: { code: 'PROVIDER', message: 'simulated outage' } }],
    'count-lines': [
      {
        toolCalls: [{ id: 'call_3', name: 'file_read', arguments: { path: 'src/app.py' } }],
        usage: { promptTokens: 200, completionTokens: 20, totalTokens: 220 },
      },
      { text: 'src/app.py has 5 lines.', usage: { promptTokens: 260, completionTokens: 9, totalTokens: 269 } },
    ],
  },
};

const MOCK_SCRIPT_B = {
  model: 'mock-model-b',
  cases: {
    ...MOCK_SCRIPT.cases,
    'status-check': [
      {
        toolCalls: [{ id: 'call_9', name: 'read-text-file', arguments: { path: '/var/run/nginx.pid', host: 'web-02' } }],
        usage: { promptTokens: 100, completionTokens: 12, totalTokens: 112 },
      },
    ],
  },
};

/** One sample of the results document, reduced to what the Phoenix checks need. */
interface Sample {
  caseId: string;
  status: string;
  traceId: string;
  rootSpanId: string;
  category: string;
  reason: string;
  pass: boolean | null;
}

function samplesOf(resultsFile: string): Sample[] {
  const doc = JSON.parse(readFileSync(resultsFile, 'utf8')) as { iterations: Array<{ cases: Record<string, { runs: any[] }> }> };
  const cases = doc.iterations.at(-1)!.cases;
  return Object.entries(cases).flatMap(([caseId, c]) =>
    c.runs.map((r: any): Sample => {
      const errored = r.status === 'errored';
      return {
        caseId,
        status: r.status,
        traceId: errored ? r.trace_id : r.verdict.trace_id,
        rootSpanId: errored ? r.root_span_id : r.verdict.root_span_id,
        category: errored ? 'error' : r.verdict.category,
        reason: errored ? `${r.error.code}: ${r.error.message}` : r.verdict.reason,
        pass: errored ? null : r.pass,
      };
    }),
  );
}

/** The spans of each trace, once every trace has at least `minSpans[traceId]` spans in Phoenix. */
async function spansByTrace(phoenix: PhoenixServer, project: string, minSpans: Record<string, number>): Promise<Map<string, PhoenixSpan[]>> {
  return await waitFor(
    async () => {
      const spans = await listSpans(phoenix, project);
      const byTrace = new Map<string, PhoenixSpan[]>();
      for (const s of spans) byTrace.set(s.context.trace_id, [...(byTrace.get(s.context.trace_id) ?? []), s]);
      return Object.entries(minSpans).every(([t, n]) => (byTrace.get(t)?.length ?? 0) >= n) ? byTrace : undefined;
    },
    { deadlineMs: INGEST_DEADLINE_MS, what: `${Object.keys(minSpans).length} traces in Phoenix project ${project}` },
  );
}

async function annotationsOn(phoenix: PhoenixServer, project: string, spanIds: string[], atLeast = spanIds.length): Promise<PhoenixAnnotation[]> {
  return await waitFor(
    async () => {
      const found = await listSpanAnnotations(phoenix, project, spanIds);
      return found.length >= atLeast ? found : undefined;
    },
    { deadlineMs: INGEST_DEADLINE_MS, what: `${atLeast} annotations in project ${project}` },
  );
}

/** Flatten a Phoenix attribute tree (it nests dotted keys on read-back in some versions) into dotted keys. */
function flat(attrs: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flat(v as Record<string, unknown>, key));
    else out[key] = v;
  }
  return out;
}

/** Our own record of the root spans written: the OTLP JSON lines the file sink wrote for the same suite. */
function writtenRootAttributes(traceDir: string): Map<string, Record<string, unknown>> {
  const byCase = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(traceDir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(traceDir, file), 'utf8').split('\n').filter(Boolean)) {
      const req = JSON.parse(line) as {
        resourceSpans: Array<{
          scopeSpans: Array<{ spans: Array<{ parentSpanId?: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }> }>;
        }>;
      };
      for (const rs of req.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const span of ss.spans) {
            if (span.parentSpanId) continue;
            const attrs: Record<string, unknown> = {};
            for (const a of span.attributes) attrs[a.key] = otlpValue(a.value);
            byCase.set(String(attrs['runspec.eval.case_id']), attrs);
          }
    }
  }
  return byCase;
}

function otlpValue(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return ((v.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(otlpValue);
  return v;
}

describe(`runspec-eval traces and verdicts in a live Phoenix ${PHOENIX_VERSION}`, () => {
  let phoenix: PhoenixServer;
  let dir: string;
  beforeAll(async () => {
    phoenix = await startPhoenix();
    dir = mkdtempSync(join(tmpdir(), 'runspec-it-phoenix-'));
    const write = (rel: string, text: string): void => {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    };
    cpSync(join(REPO_ROOT, 'examples/toolset.toml'), join(dir, 'toolset.toml'));
    write('evals/ops.toml', DECISION_SUITE);
    write('trajectory/count-lines.json', JSON.stringify(TRAJECTORY_CASE));
    write('mock.json', JSON.stringify(MOCK_SCRIPT));
    // A second model for the experiment comparison: it checks status where the first restarts.
    write('mock-b.json', JSON.stringify(MOCK_SCRIPT_B));
    // Over gRPC the traces endpoint is not Phoenix's web port, so annotations are told where to go.
    write('runspec.toml', `[telemetry]\nannotations_url = "${phoenix.url}"\n`);
    for (const d of ['home', 'config', 'tmp']) mkdirSync(join(dir, d));
  });
  afterAll(async () => {
    await phoenix?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The built CLI as a process, in the temp project, with its own HOME, XDG_CONFIG_HOME and TMPDIR. */
  const cli = async (args: string[], env: Record<string, string> = {}, cwd = dir): Promise<CliResult> =>
    await runCli(args, {
      spawn: true,
      cwd,
      timeoutMs: 90_000,
      env: { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config'), TMPDIR: join(dir, 'tmp'), ...env },
    });
  const decisionRun = (out: string, extra: string[], env: Record<string, string>) =>
    cli(['run', 'evals/ops.toml', '--toolset', 'toolset.toml', '--provider', 'mock:mock.json', '--out', out, ...extra], env);

  it('answers its version and refuses OTLP/JSON with 415', async () => {
    expect(phoenix.version).toBe(PHOENIX_VERSION);
    const res = await fetch(`${phoenix.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
    expect(res.status).toBe(415);
  });

  it('shows decision traces sent over OTLP/HTTP protobuf: AGENT root, LLM with tokens, TOOL with arguments (content capture), runspec.eval.* as written, one annotation per verdict', async () => {
    const project = 'it-http';
    const run = await decisionRun('out/http.json', ['--endpoint', `${phoenix.url}/v1/traces`, '--annotations', '--capture-content'], {
      PHOENIX_PROJECT_NAME: project,
    });
    // outage errors every sample: exit 3 (infrastructure); nothing about Phoenix may warn.
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).not.toMatch(/warning: telemetry/);
    const samples = samplesOf(join(dir, 'out/http.json'));
    expect(samples.map((s) => [s.caseId, s.category])).toEqual([
      ['restart-nginx', 'pass'],
      ['status-check', 'forbidden_tool'],
      ['outage', 'error'],
    ]);

    // The same suite once more into the file sink: our own record of the root attributes written.
    const fileRun = await decisionRun('out/file.json', ['--capture-content'], {});
    expect(fileRun.exitCode, fileRun.stderr).toBe(3);
    const written = writtenRootAttributes(join(dir, '.runspec', 'traces'));

    const byTrace = await spansByTrace(phoenix, project, Object.fromEntries(samples.map((s) => [s.traceId, s.status === 'errored' ? 2 : 3])));
    for (const s of samples) {
      const spans = byTrace.get(s.traceId)!;
      const root = spans.find((x) => x.parent_id === null)!;
      expect(root.context.span_id).toBe(s.rootSpanId);
      expect(root.span_kind).toBe('AGENT');
      const llm = spans.filter((x) => x.span_kind === 'LLM');
      expect(llm).toHaveLength(1);
      expect(llm[0]!.parent_id).toBe(root.context.span_id);
      const tools = spans.filter((x) => x.span_kind === 'TOOL');
      const attrs = flat(root.attributes);
      if (s.status === 'errored') {
        expect(tools).toHaveLength(0);
        expect(root.status_code).toBe('ERROR');
      } else {
        const usage = MOCK_SCRIPT.cases[s.caseId as 'restart-nginx'][0]!.usage;
        const llmAttrs = flat(llm[0]!.attributes);
        expect([llmAttrs['llm.token_count.prompt'], llmAttrs['llm.token_count.completion'], llmAttrs['llm.token_count.total']]).toEqual([
          usage.promptTokens,
          usage.completionTokens,
          usage.totalTokens,
        ]);
        expect(tools).toHaveLength(1);
        const tool = flat(tools[0]!.attributes);
        expect(tool['tool.name']).toBe('restart-service');
        expect(JSON.parse(String(tool['gen_ai.tool.call.arguments']))).toEqual(MOCK_SCRIPT.cases[s.caseId as 'restart-nginx'][0]!.toolCalls[0]!.arguments);
      }
      // Every runspec.eval.* attribute the CLI writes for this case reads back with the same value and type
      // (run ids differ between the two runs); none is added or lost.
      const ours = Object.fromEntries(Object.entries(written.get(s.caseId)!).filter(([k]) => k.startsWith('runspec.eval.') && k !== 'runspec.eval.run_id'));
      const theirs = Object.fromEntries(Object.entries(attrs).filter(([k]) => k.startsWith('runspec.eval.') && k !== 'runspec.eval.run_id'));
      expect(theirs).toEqual(ours);
      expect(attrs['runspec.eval.category']).toBe(s.category);
      expect(attrs['runspec.eval.pass']).toBe(s.pass === null ? undefined : s.pass);
    }

    const annotations = await annotationsOn(
      phoenix,
      project,
      samples.map((s) => s.rootSpanId),
    );
    expect(annotations).toHaveLength(samples.length);
    for (const s of samples) {
      const a = annotations.filter((x) => x.span_id === s.rootSpanId);
      expect(a).toHaveLength(1);
      expect(a[0]).toMatchObject({
        name: 'runspec.tool_selection',
        annotator_kind: 'CODE',
        source: 'API',
        identifier: `${s.caseId}#0`,
        result: { label: s.category, score: s.pass === null ? null : s.pass ? 1 : 0, explanation: s.reason },
        metadata: { case_id: s.caseId, sample: 0 },
      });
    }
  });

  it('shows decision traces sent over OTLP/gRPC, with no tool arguments when content capture is off', async () => {
    const project = 'it-grpc';
    const run = await decisionRun('out/grpc.json', ['--annotations'], {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.grpcUrl,
      PHOENIX_PROJECT_NAME: project,
    });
    expect(run.exitCode, run.stderr).toBe(3);
    const samples = samplesOf(join(dir, 'out/grpc.json'));
    const byTrace = await spansByTrace(phoenix, project, Object.fromEntries(samples.map((s) => [s.traceId, s.status === 'errored' ? 2 : 3])));
    for (const s of samples.filter((x) => x.status === 'scored')) {
      const spans = byTrace.get(s.traceId)!;
      expect(spans.map((x) => x.span_kind).toSorted()).toEqual(['AGENT', 'LLM', 'TOOL']);
      const tool = flat(spans.find((x) => x.span_kind === 'TOOL')!.attributes);
      expect(tool['tool.name']).toBe('restart-service');
      const argKeys = Object.keys(tool).filter((k) => /arguments|parameters|input\.value/.test(k));
      expect(argKeys).toEqual([]);
      // The argument value (only in the mock's tool call) appears nowhere; the case id "restart-nginx" may.
      expect(JSON.stringify(spans)).not.toContain('7f3e');
    }
    const annotations = await annotationsOn(
      phoenix,
      project,
      samples.map((s) => s.rootSpanId),
    );
    const bySpan = (rows: Array<[string, unknown, unknown]>) => rows.toSorted((x, y) => x[0].localeCompare(y[0]));
    expect(bySpan(annotations.map((a) => [a.span_id, a.result.label, a.result.score]))).toEqual(
      bySpan(samples.map((s) => [s.rootSpanId, s.category, s.pass === null ? null : s.pass ? 1 : 0])),
    );
  });

  it('shows a trajectory trace (AGENT → LLM per turn → executed TOOL) with its runspec.trajectory annotation', async () => {
    const project = 'it-trajectory';
    const run = await cli(
      [
        'run',
        'trajectory/count-lines.json',
        '--provider',
        'mock:mock.json',
        '--out',
        'out/trajectory.json',
        '--endpoint',
        `${phoenix.url}/v1/traces`,
        '--annotations',
        '--capture-content',
      ],
      { PHOENIX_PROJECT_NAME: project },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/warning: telemetry/);
    const [sample] = samplesOf(join(dir, 'out/trajectory.json'));
    const spans = (await spansByTrace(phoenix, project, { [sample!.traceId]: 4 })).get(sample!.traceId)!;
    const root = spans.find((x) => x.parent_id === null)!;
    expect(root.span_kind).toBe('AGENT');
    const llm = spans.filter((x) => x.span_kind === 'LLM');
    expect(llm.map((x) => Number(flat(x.attributes)['llm.token_count.total'])).toSorted((x, y) => x - y)).toEqual([220, 269]);
    const tool = spans.find((x) => x.span_kind === 'TOOL')!;
    expect(flat(tool.attributes)['tool.name']).toBe('file_read');
    expect(JSON.parse(String(flat(tool.attributes)['gen_ai.tool.call.arguments']))).toEqual({ path: 'src/app.py' });
    expect(flat(root.attributes)['runspec.eval.category']).toBe(sample!.category);
    const [annotation] = await annotationsOn(phoenix, project, [root.context.span_id]);
    expect(annotation).toMatchObject({
      name: 'runspec.trajectory',
      identifier: 'count-lines#0',
      result: { label: sample!.category, score: 1, explanation: sample!.reason },
    });
  });

  it('keeps OpenInference evaluations.* span attributes as plain attributes: without --annotations no annotation exists', async () => {
    const project = 'it-no-annotations';
    const run = await decisionRun('out/plain.json', ['--endpoint', `${phoenix.url}/v1/traces`], { PHOENIX_PROJECT_NAME: project });
    expect(run.exitCode, run.stderr).toBe(3);
    const samples = samplesOf(join(dir, 'out/plain.json'));
    const byTrace = await spansByTrace(phoenix, project, Object.fromEntries(samples.map((s) => [s.traceId, s.status === 'errored' ? 2 : 3])));
    const root = byTrace.get(samples[0]!.traceId)!.find((x) => x.parent_id === null)!;
    expect(flat(root.attributes)).toMatchObject({
      'evaluations.0.evaluation.name': 'runspec.tool_selection',
      'evaluations.0.evaluation.label': samples[0]!.category,
    });
    // Phoenix stores evaluations.* as span attributes only: it makes no annotation of them.
    expect(
      await listSpanAnnotations(
        phoenix,
        project,
        samples.map((s) => s.rootSpanId),
      ),
    ).toEqual([]);
  });

  it('upserts annotations when the same traces are scored again (score --annotate), and an unscorable verdict has no score', async () => {
    // One run's traces, kept as OTLP JSON lines (the file sink) and sent to Phoenix as a collector would; then
    // scored offline twice: first with the suite as run (restart-nginx passes), then with restart-nginx's
    // argument expectation changed, which the content-free trace cannot check (unscorable). Both post to the
    // same (name, span, identifier): one annotation per root span, updated.
    const project = 'it-rescore';
    rmSync(join(dir, '.runspec', 'traces'), { recursive: true, force: true });
    const run = await decisionRun('out/rescore.json', [], { PHOENIX_PROJECT_NAME: project });
    expect(run.exitCode, run.stderr).toBe(3);
    const samples = samplesOf(join(dir, 'out/rescore.json'));
    const traceDir = join(dir, '.runspec', 'traces');
    for (const file of readdirSync(traceDir).filter((f) => f.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(traceDir, file), 'utf8').split('\n').filter(Boolean)) {
        const res = await fetch(`${phoenix.url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body: Buffer.from(encodeTraceRequest(JSON.parse(line) as OtlpTraceRequest)),
        });
        expect(res.status).toBe(200);
      }
    }
    await spansByTrace(phoenix, project, Object.fromEntries(samples.map((s) => [s.traceId, s.status === 'errored' ? 2 : 3])));
    const roots = samples.map((s) => s.rootSpanId);
    const restart = samples.find((s) => s.caseId === 'restart-nginx')!;

    const score = (cases: string) =>
      cli(['score', '.runspec/traces', '--cases', cases, '--annotate', '--phoenix-url', phoenix.url, '--output', 'jsonl'], { PHOENIX_PROJECT_NAME: project });
    const first = await score('evals/ops.toml');
    expect(first.stderr).not.toMatch(/warning/);
    const before = await annotationsOn(phoenix, project, roots, 2);
    expect(before.find((a) => a.span_id === restart.rootSpanId)?.result).toMatchObject({ label: 'pass', score: 1 });

    mkdirSync(join(dir, 'evals-changed'), { recursive: true });
    writeFileSync(
      join(dir, 'evals-changed', 'ops.toml'),
      DECISION_SUITE.replace('expect_args = { service = "nginx-7f3e" }', 'expect_args = { service = "apache" }'),
    );
    const second = await score('evals-changed/ops.toml');
    expect(second.stderr).not.toMatch(/warning/);
    const after = await waitFor(
      async () => {
        const found = await listSpanAnnotations(phoenix, project, roots);
        return found.find((a) => a.span_id === restart.rootSpanId)?.result.label === 'unscorable' ? found : undefined;
      },
      { deadlineMs: INGEST_DEADLINE_MS, what: 'the re-scored annotation' },
    );
    expect(after).toHaveLength(before.length);
    const updated = after.filter((a) => a.span_id === restart.rootSpanId);
    expect(updated).toHaveLength(1);
    expect(updated[0]!.id).toBe(before.find((a) => a.span_id === restart.rootSpanId)!.id);
    expect(updated[0]!.result.score).toBeNull();
    expect(updated[0]!.result.explanation).toMatch(/args\.service|argument/);
  });

  describe('doctor against the live Phoenix', () => {
    let plain: string;
    let grpcWithWebUrl: string;
    beforeAll(() => {
      plain = join(dir, 'doctor-plain');
      grpcWithWebUrl = join(dir, 'doctor-grpc');
      mkdirSync(plain, { recursive: true });
      mkdirSync(grpcWithWebUrl, { recursive: true });
      writeFileSync(join(grpcWithWebUrl, 'runspec.toml'), `[telemetry]\nannotations_url = "${phoenix.url}"\n`);
    });
    const doctor = (env: Record<string, string>, cwd = plain) => cli(['doctor', '--timeout-ms', '30000'], env, cwd);

    it.each([
      { name: 'OTLP/HTTP protobuf', env: () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url }), cwd: () => plain },
      {
        name: 'OTLP/gRPC with annotations_url',
        env: () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.grpcUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
        cwd: () => grpcWithWebUrl,
      },
    ])('passes over $name: the canary span and annotation are read back', async ({ env, cwd }) => {
      const r = await doctor({ ...env(), PHOENIX_PROJECT_NAME: 'it-doctor' }, cwd());
      expect(r.stdout).toMatch(/✓ trace read-back: span [0-9a-f]{16} is in Phoenix project "it-doctor"/);
      expect(r.stdout).toMatch(/✓ annotation read-back: annotation runspec\.doctor is on span [0-9a-f]{16}/);
      expect(r.stdout).toContain('everything sent arrived');
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    });

    it.each([
      {
        name: 'a port nothing listens on',
        env: async () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}` }),
        fix: /fix: nothing listens on 127\.0\.0\.1:\d+/,
      },
      {
        name: "Phoenix's gRPC port given as the OTLP/HTTP endpoint",
        env: async () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.grpcUrl }),
        fix: /fix: 127\.0\.0\.1:\d+ speaks HTTP\/2 only, like an OTLP\/gRPC port: for OTLP\/HTTP use the server's HTTP port/,
      },
      {
        name: "gRPC to Phoenix's web port",
        env: async () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
        fix: /fix: 127\.0\.0\.1:\d+ does not speak gRPC .*point the endpoint at the OTLP\/gRPC port/,
      },
      {
        name: 'gRPC without annotations_url (no web URL to read back from)',
        env: async () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.grpcUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
        fix: /fix: over OTLP\/gRPC the traces endpoint is not Phoenix's web URL: set annotations_url/,
      },
      {
        name: 'OTLP/JSON (Phoenix answers 415)',
        env: async () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
        fix: /answered HTTP 415\n\s+fix: the server does not take OTLP\/JSON \(Phoenix accepts only protobuf\): set OTEL_EXPORTER_OTLP_PROTOCOL=http\/protobuf/,
      },
      {
        name: 'a traces endpoint without /v1/traces',
        env: async () => ({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: phoenix.url }),
        fix: /fix: the traces URL should end in \/v1\/traces \(got \/\)/,
      },
      {
        name: 'a doubled /v1/traces suffix',
        env: async () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: `${phoenix.url}/v1/traces` }),
        fix: /fix: the traces path is doubled \(…\/v1\/traces\/v1\/traces\): OTEL_EXPORTER_OTLP_ENDPOINT takes the base URL/,
      },
    ])('fails on $name and names the fix', async ({ env, fix }) => {
      const r = await doctor({ ...(await env()), PHOENIX_PROJECT_NAME: 'it-doctor' });
      expect(r.exitCode, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(fix);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });

    it('fails on a mistyped project (Phoenix makes any project it is sent) and names the one it has', async () => {
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url };
      expect((await doctor({ ...env, PHOENIX_PROJECT_NAME: 'runspec-evals' })).exitCode).toBe(0);
      const r = await doctor({ ...env, PHOENIX_PROJECT_NAME: 'runspec-evalz' });
      expect(r.exitCode, r.stdout).toBe(1);
      expect(r.stdout).toMatch(/✗ project: Phoenix had no project "runspec-evalz" before this check \(it created it for the canary\), but has "runspec-evals"/);
      expect(r.stdout).toMatch(/fix: if that is a typo, set \[telemetry\] project = "runspec-evals"/);
      // Once it exists, the same name passes: a new project on purpose costs one more run.
      expect((await doctor({ ...env, PHOENIX_PROJECT_NAME: 'runspec-evalz' })).exitCode).toBe(0);
    });
  });

  describe('a run as a Phoenix experiment (--phoenix-experiment)', () => {
    const project = 'it-experiments';
    interface Experiment {
      id: string;
      name: string;
      dataset_id: string;
      metadata: Record<string, unknown>;
      example_count: number;
    }
    const datasets = async () =>
      (await phoenixGet<{ data: Array<{ id: string; name: string; example_count: number }> }>(phoenix, '/v1/datasets?name=ops')).data;
    const experimentsOf = async (datasetId: string) => (await phoenixGet<{ data: Experiment[] }>(phoenix, `/v1/datasets/${datasetId}/experiments`)).data;
    const runExperiment = (out: string, providers: string[]) =>
      cli(
        [
          'run',
          'evals/ops.toml',
          '--toolset',
          'toolset.toml',
          ...(providers.length > 1 ? ['--compare', providers.join(',')] : ['--provider', providers[0]!]),
          '--out',
          out,
          '--endpoint',
          `${phoenix.url}/v1/traces`,
          '--capture-content',
          '--phoenix-experiment',
        ],
        { PHOENIX_PROJECT_NAME: project },
      );

    it('compare of two models makes two experiments on one dataset; runs link their traces; evaluations match the verdicts; a re-run adds no examples', async () => {
      const compared = await runExperiment('out/exp.json', ['mock:mock.json', 'mock:mock-b.json']);
      expect(compared.exitCode, compared.stderr).toBe(3);
      expect(compared.stderr).not.toMatch(/warning/);

      const [dataset] = await datasets();
      expect(dataset).toMatchObject({ name: 'ops', example_count: 3 });
      const experiments = await experimentsOf(dataset!.id);
      expect(experiments.map((e) => e.name).toSorted()).toEqual(['mock-model (mock:mock.json) · ops', 'mock-model-b (mock:mock-b.json) · ops']);
      const examples = (
        await phoenixGet<{ data: { examples: Array<{ id: string; node_id: string; input: unknown; output: unknown }> } }>(
          phoenix,
          `/v1/datasets/${dataset!.id}/examples`,
        )
      ).data.examples;
      expect(examples.map((e) => e.id).toSorted()).toEqual(['outage', 'restart-nginx', 'status-check']);
      expect(examples.find((e) => e.id === 'restart-nginx')).toMatchObject({
        input: { prompt: 'restart nginx on web-01' },
        output: { expected: { tool: ['restart-service'], host: 'web-01' } },
      });

      for (const [out, model] of [
        ['out/exp.mock_mock.json.json', 'mock-model'],
        ['out/exp.mock_mock-b.json.json', 'mock-model-b'],
      ] as const) {
        const samples = samplesOf(join(dir, out));
        const experiment = experiments.find((e) => e.name.startsWith(`${model} `))!;
        expect(experiment.metadata).toMatchObject({ run_id: expect.any(String), model, traces_project: project });
        const runs = await phoenixGet<
          Array<{
            example_id: string;
            repetition_number: number;
            trace_id: string | null;
            error: string | null;
            annotations: Array<{ name: string; label: string | null; score: number | null; explanation: string | null }>;
          }>
        >(phoenix, `/v1/experiments/${experiment.id}/json`);
        expect(runs).toHaveLength(samples.length);
        for (const s of samples) {
          const run = runs.find((r) => r.trace_id === s.traceId)!;
          expect(run, `${model} ${s.caseId}`).toBeDefined();
          expect(run.repetition_number).toBe(1);
          expect(run.error).toBe(s.status === 'errored' ? s.reason : null);
          expect(run.annotations).toEqual([
            expect.objectContaining({
              name: 'runspec.tool_selection',
              label: s.category,
              score: s.pass === null ? null : s.pass ? 1 : 0,
              explanation: s.reason,
            }),
          ]);
          // The run's trace id resolves in the project the run's traces went to.
          const spans = await waitFor(
            async () => {
              const found = await listSpans(phoenix, project, { trace_id: s.traceId });
              return found.length > 0 ? found : undefined;
            },
            { deadlineMs: INGEST_DEADLINE_MS, what: `trace ${s.traceId} in ${project}` },
          );
          expect(spans.every((x) => x.context.trace_id === s.traceId)).toBe(true);
        }
      }

      const again = await runExperiment('out/exp-again.json', ['mock:mock.json']);
      expect(again.stderr).not.toMatch(/warning/);
      expect((await datasets()).map((d) => d.example_count)).toEqual([3]);
      expect(await experimentsOf(dataset!.id)).toHaveLength(3);

      // Phoenix's experiment comparison view of the two models, as a user opens it.
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
        const [first, second] = [experiments.find((e) => e.name.startsWith('mock-model ('))!, experiments.find((e) => e.name.startsWith('mock-model-b '))!];
        await page.goto(`${phoenix.url}/datasets/${dataset!.id}/compare?experimentId=${first.id}&experimentId=${second.id}`, { timeout: 120_000 });
        await page.getByText('restart nginx on web-01').first().waitFor({ timeout: 120_000 });
        await page.getByText('forbidden_tool', { exact: true }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
        const text = await page.locator('body').innerText();
        for (const shown of [
          first.name,
          second.name,
          'runspec.tool_selection',
          'forbidden_tool',
          'pass',
          'PROVIDER: mock provider: simulated outage',
          'is nginx running on web-02?',
        ])
          expect(text).toContain(shown);
        mkdirSync(join(REPO_ROOT, '.ci-out', 'screenshots'), { recursive: true });
        await page.screenshot({ path: join(REPO_ROOT, '.ci-out', 'screenshots', 'phoenix-experiments.png') });
      } finally {
        await browser.close();
      }
    });

    it('a Phoenix outage is one warning: the exit code and the results stay the same', async () => {
      // A project of its own: the main one points annotations_url at the live Phoenix.
      const alone = join(dir, 'outage-project');
      mkdirSync(join(alone, 'evals'), { recursive: true });
      for (const f of ['evals/ops.toml', 'toolset.toml', 'mock.json']) cpSync(join(dir, f), join(alone, f));
      const down = `http://127.0.0.1:${await freePort()}`;
      const r = await cli(
        [
          'run',
          'evals/ops.toml',
          '--toolset',
          'toolset.toml',
          '--provider',
          'mock:mock.json',
          '--out',
          'out/exp-down.json',
          '--endpoint',
          `${down}/v1/traces`,
          '--phoenix-experiment',
        ],
        { OTEL_EXPORTER_OTLP_TIMEOUT: '1000' },
        alone,
      );
      expect(r.exitCode).toBe(3);
      expect(r.stderr.split('\n').filter((l) => l.includes('phoenix experiment:'))).toEqual([
        expect.stringMatching(
          /^warning: telemetry: phoenix experiment: POST http:\/\/127\.0\.0\.1:\d+\/v1\/datasets\/upload\?sync=true: connection failed \(.*\); 0 run\(s\) and 0 evaluation\(s\) recorded$/,
        ),
      ]);
      expect(samplesOf(join(alone, 'out/exp-down.json')).map((s) => s.category)).toEqual(['pass', 'forbidden_tool', 'error']);
    });
  });

  it('renders our trace and its annotation in the Phoenix UI (headless Chromium; screenshots in .ci-out/screenshots/)', async () => {
    const project = 'it-http';
    const samples = samplesOf(join(dir, 'out/http.json'));
    const failed = samples.find((s) => s.caseId === 'status-check')!;
    const shots = join(REPO_ROOT, '.ci-out', 'screenshots');
    mkdirSync(shots, { recursive: true });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
      // Phoenix's own permalink for an OTel trace id: it redirects to the trace in its project.
      await page.goto(`${phoenix.url}/redirects/traces/${failed.traceId}`, { timeout: 120_000 });
      const trace = page.getByRole('dialog');
      await trace.getByText('execute_tool restart-service').first().waitFor({ timeout: 120_000 });
      expect(page.url()).toContain(`/traces/${failed.traceId}`);
      await expect.poll(() => page.getByText(project, { exact: true }).first().isVisible()).toBe(true);
      // The span tree and each span's kind badge.
      for (const [node, kind] of [
        ['chat mock-model', 'llm'],
        ['execute_tool restart-service', 'tool'],
        ['invoke_agent runspec-eval', 'agent'],
      ] as const) {
        await trace.getByText(node, { exact: true }).first().click();
        await trace.getByText(kind, { exact: true }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
      }
      await page.screenshot({ path: join(shots, 'phoenix-trace.png') });
      // The root span's annotations as a table: name, kind, label, score, explanation.
      await trace
        .getByRole('button', { name: /^Annotations/ })
        .first()
        .click();
      await trace.getByText('Table', { exact: true }).filter({ visible: true }).first().click();
      const row = trace.getByRole('row').filter({ hasText: 'runspec.tool_selection' }).first();
      await row.waitFor({ timeout: 30_000 });
      const cells = await row.getByRole('cell').allInnerTexts();
      expect(cells.slice(0, 5).map((c) => c.trim())).toEqual(['runspec.tool_selection', 'CODE', 'forbidden_tool', '0', failed.reason]);
      await page.screenshot({ path: join(shots, 'phoenix-annotation.png') });
    } finally {
      await browser.close();
    }
  });
});
