// The packed tarball installed with the optional peers, over every network path a user configures: OTLP/HTTP
// JSON and protobuf, gzip, TLS with a CA file, OTLP/gRPC (export and `serve --grpc`), Phoenix annotations,
// LangSmith feedback, `doctor` with read-back, MCP over stdio and streamable HTTP. The loopback servers are
// test/helpers' fakes; what Phoenix and LangSmith received is type-checked against @arizeai/phoenix-client's
// OpenAPI types and the langsmith package (test/packed/_wire-types.ts).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeLangSmith } from '../helpers/fake-langsmith.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startFakePhoenix } from '../helpers/fake-phoenix.js';
import { startMcpHttp } from '../helpers/mcp-http.js';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
// @ts-expect-error -- a plain ESM fixture without types (test/toolset/mcp.test.ts imports it the same way)
import { createServer as createMcpServer } from '../toolset/fixtures/mcp-server.mjs';
import { runInstalled, startInstalled, stop, waitForOutput } from './_cli.js';
import { typeCheckWireBodies } from './_wire-types.js';

const { full } = inject('packed');
const KEY = 'sk-packed-secret';
const proj = join(full, 'work');
// The committed test CA and its 127.0.0.1 server certificate (test/telemetry/tls/README.md): no openssl needed.
const certs = join(REPO_ROOT, 'test', 'telemetry', 'tls');
let model: FakeModelServer;
let tls: { key: Buffer; cert: Buffer };
/** Every body Phoenix and LangSmith accepted, type-checked in the last test (one tsc run). */
const wire: { phoenix: unknown[]; langsmith: unknown[] } = { phoenix: [], langsmith: [] };

const run = (args: string[], env: Record<string, string> = {}, cwd = proj) =>
  runInstalled(full, ['--path', cwd, ...args], { cwd, env: { OPENAI_API_KEY: KEY, ...env } });
const runOps = (env: Record<string, string>, cwd = proj) =>
  run(['run', join(proj, 'evals', 'ops.toml'), '--base-url', model.url, '--model', 'fake-model', '--out', join(cwd, 'out.json')], env, cwd);
const verdictExit = (code: number | null): void => expect([0, 1]).toContain(code);
const caseIds = (spans: Array<{ parentSpanId?: string; attributes: Record<string, unknown> }>): string[] =>
  spans
    .filter((s) => !s.parentSpanId)
    .map((s) => String(s.attributes['runspec.eval.case_id']))
    .sort();

/** A project folder of its own (runspec.toml), so settings of one test never reach another. */
function projectWith(name: string, toml: string): string {
  const dir = join(proj, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'runspec.toml'), toml);
  return dir;
}

/** A server certificate for 127.0.0.1, signed by the test CA at certs/ca.pem. */
function makeCerts(): { key: Buffer; cert: Buffer } {
  return { key: readFileSync(join(certs, 'server.key')), cert: readFileSync(join(certs, 'server.pem')) };
}

beforeAll(async () => {
  model = await startFakeOpenAI({ toolCall: { name: 'restart-service', arguments: { service: 'nginx', host: 'web-01' } } });
  mkdirSync(join(proj, 'evals'), { recursive: true });
  writeFileSync(
    join(proj, 'evals', 'ops.toml'),
    '[[eval]]\nid = "restart-nginx"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\nexpect_host = "web-01"\n\n' +
      '[[eval]]\nid = "status-api"\nprompt = "is the api up on web-02?"\nexpect_tool = "service-status"\n',
  );
  tls = makeCerts();
});
afterAll(async () => {
  await model.close();
});

describe('OTLP export from the installed CLI', () => {
  it.each([
    ['http/json', {}, 'application/json', undefined],
    ['http/protobuf', {}, 'application/x-protobuf', undefined],
    ['http/protobuf', { OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' }, 'application/x-protobuf', 'gzip'],
  ])('%s %o arrives whole', async (protocol, extra, contentType, encoding) => {
    const sink = await startOtlpSink();
    try {
      const r = await runOps(
        { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, ...extra },
        projectWith(`otlp-${protocol.replace('/', '-')}-${encoding ?? 'plain'}`, ''),
      );
      verdictExit(r.exitCode);
      expect(r.stderr).not.toMatch(/warning/i);
      expect(sink.requests.length).toBeGreaterThan(0);
      for (const q of sink.requests) {
        expect(q.contentType).toBe(contentType);
        expect(q.headers['content-encoding']).toBe(encoding);
        if (encoding === 'gzip') expect(() => gunzipSync(q.body)).not.toThrow();
      }
      expect(caseIds(sink.spans())).toEqual(['restart-nginx', 'status-api']);
    } finally {
      await sink.close();
    }
  });

  it('trusts a private CA from OTEL_EXPORTER_OTLP_CERTIFICATE (https)', async () => {
    const sink = await startOtlpSink({ tls });
    try {
      const r = await runOps({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_CERTIFICATE: join(certs, 'ca.pem') }, projectWith('tls', ''));
      verdictExit(r.exitCode);
      expect(r.stderr).not.toMatch(/warning/i);
      expect(sink.url).toMatch(/^https:/);
      expect(caseIds(sink.spans())).toEqual(['restart-nginx', 'status-api']);
    } finally {
      await sink.close();
    }
  });

  it('exports OTLP/gRPC to `serve --grpc`, which scores what arrives', async () => {
    const serve = startInstalled(
      full,
      ['--path', proj, 'serve', '--port', '0', '--grpc', '0', '--quiet-ms', '50', '--cases', join(proj, 'evals', 'ops.toml')],
      { cwd: proj },
    );
    let stdout = '';
    serve.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      const [, grpcUrl] = await waitForOutput(serve, /OTLP\/gRPC on (\S+) /);
      const r = await runOps(
        { OTEL_EXPORTER_OTLP_ENDPOINT: grpcUrl!.replace(/^grpc:/, 'http:'), OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        projectWith('grpc', ''),
      );
      verdictExit(r.exitCode);
      expect(r.stderr).not.toMatch(/warning/i);
      await expect.poll(() => stdout.trim().split('\n').filter(Boolean).length, { timeout: 20_000 }).toBe(2);
    } finally {
      await stop(serve);
    }
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { case_id?: string; caseId?: string; case?: string });
    expect(JSON.stringify(lines)).toContain('restart-nginx');
    expect(JSON.stringify(lines)).toContain('status-api');
  });
});

describe('Phoenix, LangSmith and doctor from the installed CLI', () => {
  it('run and score --annotate post Phoenix annotations (also over TLS with a CA file); the bodies type-check against the OpenAPI types', async () => {
    const phoenix = await startFakePhoenix();
    const secure = await startFakePhoenix({ tls });
    try {
      const dir = projectWith('phoenix', `[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\neval_annotations = true\nproject = "packed"\n`);
      const r = await runOps({}, dir);
      verdictExit(r.exitCode);
      expect(r.stderr).not.toMatch(/warning|not a constructor/i);
      expect(caseIds(phoenix.spans())).toEqual(['restart-nginx', 'status-api']);
      expect(phoenix.annotations.length).toBeGreaterThan(0);

      const tlsDir = projectWith(
        'phoenix-tls',
        `[telemetry]\nendpoint = "${secure.url}/v1/traces"\neval_annotations = true\nca_file = "${join(certs, 'ca.pem')}"\n`,
      );
      const t = await runOps({}, tlsDir);
      verdictExit(t.exitCode);
      expect(t.stderr).not.toMatch(/warning|not a constructor/i);
      expect(secure.annotations.length).toBeGreaterThan(0);

      // score --annotate over traces written to files by a run without an endpoint.
      const fileDir = projectWith('phoenix-score', '');
      verdictExit((await runOps({}, fileDir)).exitCode);
      const traces = join(fileDir, '.runspec', 'traces');
      const before = phoenix.annotations.length;
      const s = await run(
        ['score', join(traces, readdirSync(traces)[0]!), '--cases', join(proj, 'evals', 'ops.toml'), '--annotate', '--phoenix-url', phoenix.url],
        {},
        fileDir,
      );
      verdictExit(s.exitCode);
      expect(s.stderr).not.toMatch(/warning|not a constructor/i);
      expect(phoenix.annotations.length).toBeGreaterThan(before);

      const bad = await fetch(`${phoenix.url}/v1/span_annotations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data": [' });
      expect(bad.status).toBe(422); // FastAPI's answer to a body that does not parse
      wire.phoenix.push(...[...phoenix.annotations, ...secure.annotations].map((a) => a.body));
    } finally {
      await phoenix.close();
      await secure.close();
    }
  });

  it('run posts LangSmith feedback on the derived run ids; the bodies type-check against the langsmith package', async () => {
    const apiKey = 'lsv2-packed-key';
    const ls = await startFakeLangSmith({ apiKey });
    try {
      const dir = projectWith('langsmith', '[telemetry.langsmith]\nfeedback = true\nbackoff_ms = 5\n');
      const r = await runOps(
        {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ls.url}/otel/v1/traces`,
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-api-key=${apiKey},Langsmith-Project=runspec`,
          LANGSMITH_ENDPOINT: ls.url,
          LANGSMITH_API_KEY: apiKey,
        },
        dir,
      );
      verdictExit(r.exitCode);
      expect(r.stderr).not.toMatch(/warning|not a constructor/i);
      expect(r.stdout + r.stderr).not.toContain(apiKey);
      const roots = ls.spans.filter((s) => !s.parentSpanId);
      expect(roots).toHaveLength(2);
      expect(
        ls
          .accepted()
          .map((f) => String(f.run_id))
          .sort(),
      ).toEqual(roots.map((s) => `00000000-0000-0000-${s.spanId.slice(0, 4)}-${s.spanId.slice(4)}`).sort());
      const bad = await fetch(`${ls.url}/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: '{"run_id":',
      });
      expect(bad.status).toBe(422);
      wire.langsmith.push(...ls.accepted());
    } finally {
      await ls.close();
    }
  });

  it('doctor passes against a live Phoenix (canary trace and annotation read back) and a live LangSmith', async () => {
    const phoenix = await startFakePhoenix();
    try {
      const dir = projectWith('doctor-phoenix', `[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\neval_annotations = true\nproject = "packed"\n`);
      const r = await run(['doctor', '--timeout-ms', '20000'], {}, dir);
      expect(r.stdout + r.stderr).not.toMatch(/not a constructor|✗/);
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/annotation read-back/);
    } finally {
      await phoenix.close();
    }
    const apiKey = 'lsv2-packed-key';
    const ls = await startFakeLangSmith({ apiKey });
    try {
      const dir = projectWith('doctor-langsmith', '[telemetry.langsmith]\nfeedback = true\n');
      const r = await run(
        ['doctor', '--timeout-ms', '20000'],
        {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ls.url}/otel/v1/traces`,
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-api-key=${apiKey},Langsmith-Project=runspec`,
          LANGSMITH_ENDPOINT: ls.url,
          LANGSMITH_API_KEY: apiKey,
        },
        dir,
      );
      expect(r.stdout + r.stderr).not.toMatch(/not a constructor|✗/);
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(apiKey);
    } finally {
      await ls.close();
    }
  });

  it('the bodies Phoenix and LangSmith received type-check against @arizeai/phoenix-client and langsmith', () => {
    expect(wire.phoenix.length).toBeGreaterThan(0);
    expect(wire.langsmith.length).toBeGreaterThan(0);
    typeCheckWireBodies(wire);
    // The check can fail: a field the schema does not have.
    expect(() => typeCheckWireBodies({ phoenix: [{ data: [{ span_id: 'ab', name: 'n', annotator_kind: 'CODE', verdict: 'pass' }] }], langsmith: [] })).toThrow(
      /verdict/,
    );
  });
});

describe('MCP tools from the installed CLI', () => {
  const SERVER = join(REPO_ROOT, 'test/toolset/fixtures/mcp-server.mjs');

  it.each(['stdio', 'http'])('runs a trajectory case whose tool is served over %s', async (transport) => {
    const mcpModel = await startFakeOpenAI({
      script: { 'Read note a.': [{ toolCalls: [{ id: 'call_read', name: 'read_note', arguments: { id: 'a' } }] }, { text: 'it says note' }] },
    });
    const http = transport === 'http' ? await startMcpHttp(createMcpServer) : undefined;
    try {
      const dir = projectWith(`mcp-${transport}`, '');
      writeFileSync(join(dir, 'read.json'), JSON.stringify({ id: 'mcp-read', task: 'Read note a.', expected: ['read_note'] }));
      const toolset = http ? `mcp:${http.url}` : `mcp:${process.execPath} ${SERVER}`;
      const r = await run(
        [
          'run',
          join(dir, 'read.json'),
          '--toolset',
          toolset,
          '--base-url',
          mcpModel.url,
          '--model',
          'fake-model',
          '--no-telemetry',
          '--out',
          join(dir, 'out.json'),
        ],
        {},
        dir,
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const after = mcpModel
        .chatRequests()
        .find((q) => (q.json.messages as Array<{ role: string; tool_call_id?: string }>).some((m) => m.role === 'tool' && m.tool_call_id === 'call_read'));
      const result = (after!.json.messages as Array<{ role: string; tool_call_id?: string; content?: string }>).find((m) => m.tool_call_id === 'call_read');
      expect(result!.content).toContain('note');
    } finally {
      await mcpModel.close();
      await http?.close();
    }
  });
});
