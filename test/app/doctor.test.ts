// `doctor` against local fakes of Phoenix and LangSmith: success, and the fix for each common mistake.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startFakePhoenix, type FakePhoenix } from '../helpers/fake-phoenix.js';
import { startFakeLangSmith, type FakeLangSmith } from '../helpers/fake-langsmith.js';
import { createGrpcReceiver } from '../../src/traces/grpc-receiver.js';
import { createTracePipeline } from '../../src/traces/pipeline.js';

const root = mkdtempSync(join(tmpdir(), 'runspec-doctor-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function project(toml = ''): string {
  const dir = join(root, `p${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'runspec.toml'), toml);
  return dir;
}

let phoenix: FakePhoenix | undefined;
let ls: FakeLangSmith | undefined;
afterEach(async () => {
  await phoenix?.close();
  await ls?.close();
  phoenix = undefined;
  ls = undefined;
});

describe('runspec-eval doctor', () => {
  it('Phoenix: the canary span and its annotation arrive in the project, exit 0', async () => {
    phoenix = await startFakePhoenix();
    const dir = project(`[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\nproject = "agents"\neval_annotations = true\n`);
    const r = await runCli(['doctor', '--timeout-ms', '2000'], { cwd: dir });
    expect(r.stdout).toMatch(/runspec-eval doctor: phoenix at http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
    expect(r.stdout).toMatch(/✓ canary trace: trace [0-9a-f]{32} accepted \(HTTP 200\)/);
    expect(r.stdout).toMatch(/✓ trace read-back: span [0-9a-f]{16} is in Phoenix project "agents"/);
    expect(r.stdout).toMatch(/✓ annotation read-back: annotation runspec\.doctor is on span/);
    expect(r.stdout).toContain('everything sent arrived');
    expect(r.exitCode).toBe(0);
    expect(phoenix.spans()[0]!.resource['openinference.project.name']).toBe('agents');
    expect(phoenix.annotations[0]!.body.data[0]).toMatchObject({ name: 'runspec.doctor', span_id: phoenix.spans()[0]!.spanId });
  });

  it('Phoenix without a project: a note; a Phoenix that files the canary under "default": the project-header fix', async () => {
    phoenix = await startFakePhoenix();
    const plain = await runCli(['doctor', '--timeout-ms', '1000'], {
      cwd: project(`[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\neval_annotations = true\n`),
    });
    expect(plain.stdout).toMatch(/✓ project: no Phoenix project set: spans go to the project "default"\n\s+note: set \[telemetry\] project/);
    expect(plain.exitCode).toBe(0);
    await phoenix.close();
    phoenix = await startFakePhoenix({ projectFromHeaderOnly: true });
    const r = await runCli(['doctor', '--timeout-ms', '300'], { cwd: project(`[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\nproject = "agents"\n`) });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/✗ trace read-back: span [0-9a-f]{16} landed in project "default", not "agents"/);
    expect(r.stdout).toMatch(/fix: the project did not reach Phoenix: .*x-project-name=agents/);
  });

  it('Phoenix with OTLP/JSON: 415, and the fix is protobuf', async () => {
    phoenix = await startFakePhoenix();
    const dir = project(`[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\nprotocol = "http/json"\neval_annotations = true\n`);
    const r = await runCli(['doctor', '--timeout-ms', '500'], { cwd: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/✗ canary trace: POST http:\/\/127\.0\.0\.1:\d+\/v1\/traces answered HTTP 415/);
    expect(r.stdout).toMatch(/fix: the server does not take OTLP\/JSON \(Phoenix accepts only protobuf\): set OTEL_EXPORTER_OTLP_PROTOCOL=http\/protobuf/);
  });

  it('a doubled /v1/traces suffix is named', async () => {
    phoenix = await startFakePhoenix();
    const dir = project('[telemetry]\neval_annotations = true\n');
    const r = await runCli(['doctor', '--timeout-ms', '500'], { cwd: dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${phoenix.url}/v1/traces` } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/✗ endpoint: http:\/\/127\.0\.0\.1:\d+\/v1\/traces\/v1\/traces/);
    expect(r.stdout).toMatch(/fix: the traces path is doubled/);
  });

  it('nothing listening: connection refused, with the fix', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dir = project(`[telemetry]\nendpoint = "http://127.0.0.1:${port}/v1/traces"\n`);
    const r = await runCli(['doctor', '--timeout-ms', '500'], { cwd: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/fix: nothing listens on 127\.0\.0\.1:\d+/);
  });

  it('https to a plain-HTTP server: the TLS fix', async () => {
    phoenix = await startFakePhoenix();
    const dir = project(`[telemetry]\nendpoint = "${phoenix.url.replace('http:', 'https:')}/v1/traces"\n`);
    const r = await runCli(['doctor', '--timeout-ms', '500', '--backend', 'otlp'], { cwd: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/fix: the server speaks plain HTTP on 127\.0\.0\.1:\d+: use http:\/\//);
  });

  it('LangSmith: the canary run and its feedback read back, exit 0; no key in the output', async () => {
    const KEY = 'lsv2-doctor-secret';
    ls = await startFakeLangSmith({ apiKey: KEY, lagRequests: 1 });
    const dir = project('');
    const r = await runCli(['doctor', '--timeout-ms', '3000'], {
      cwd: dir,
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ls.url}/otel/v1/traces`,
        OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${KEY},Langsmith-Project=agents`,
        LANGSMITH_ENDPOINT: ls.url,
        LANGSMITH_API_KEY: KEY,
      },
    });
    expect(r.stdout).toMatch(/runspec-eval doctor: langsmith at/);
    expect(r.stdout).toMatch(/✓ trace read-back: run 00000000-0000-0000-[0-9a-f]{4}-[0-9a-f]{12} \(from span [0-9a-f]{16}\) is in LangSmith/);
    expect(r.stdout).toMatch(/✓ feedback read-back: feedback runspec\.doctor is on run/);
    expect(r.exitCode).toBe(0);
    expect(ls.accepted()[0]).toMatchObject({ key: 'runspec.doctor', score: 1 });
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('LangSmith with a wrong key: 401 on the canary and the x-api-key fix', async () => {
    ls = await startFakeLangSmith({ apiKey: 'right' });
    const dir = project('');
    const r = await runCli(['doctor', '--timeout-ms', '500'], {
      cwd: dir,
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ls.url}/otel/v1/traces`,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=wrong',
        LANGSMITH_ENDPOINT: ls.url,
        LANGSMITH_API_KEY: 'wrong',
      },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/answered HTTP 401/);
    expect(r.stdout).toMatch(/fix: LangSmith wants header x-api-key/);
  });

  it('OTLP/gRPC: the canary goes over gRPC to a generic receiver (no read-back), exit 0', async () => {
    const spans: string[] = [];
    const pipeline = createTracePipeline({ assembler: { quiet: 10 }, onOutcome: (o) => spans.push(o.traceId) });
    const receiver = await createGrpcReceiver({ pipeline, port: 0, tickMs: 10 });
    await receiver.listen();
    try {
      const r = await runCli(['doctor', '--timeout-ms', '500'], {
        cwd: project(''),
        env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}` },
      });
      expect(r.stdout).toMatch(/✓ canary trace: trace ([0-9a-f]{32}) accepted over OTLP\/gRPC/);
      // Only the acceptance was checked: exit 0, but never "everything sent arrived".
      expect(r.stdout).toMatch(/– read-back: not checked: a generic OTLP receiver offers no read-back/);
      expect(r.stdout).toContain('accepted (cannot read back from this endpoint)');
      expect(r.stdout).not.toContain('everything sent arrived');
      expect(r.exitCode).toBe(0);
      const traceId = /trace ([0-9a-f]{32}) accepted/.exec(r.stdout)![1]!;
      pipeline.flush();
      expect(spans).toContain(traceId);
    } finally {
      await receiver.close();
    }
  });

  // The gRPC canary used to go without the client certificate, so an mTLS collector refused it (exit 1).
  it('OTLP/gRPC over mutual TLS: the canary carries the client certificate and key, exit 0', async () => {
    const grpc = await import('@grpc/grpc-js');
    const tlsDir = join(import.meta.dirname, '../telemetry/tls');
    const clientDir = join(import.meta.dirname, '../core/tls');
    const server = new grpc.Server();
    let exports = 0;
    server.addService(
      {
        Export: {
          path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
          requestStream: false,
          responseStream: false,
          requestSerialize: (b: Buffer) => b,
          requestDeserialize: (b: Buffer) => b,
          responseSerialize: (b: Buffer) => b,
          responseDeserialize: (b: Buffer) => b,
        },
      },
      {
        Export: (_call: unknown, callback: (err: null, reply: Buffer) => void) => {
          exports++;
          callback(null, Buffer.alloc(0));
        },
      },
    );
    // The self-signed client certificate is the only CA the server trusts for clients.
    const creds = grpc.ServerCredentials.createSsl(
      readFileSync(join(clientDir, 'client.pem')),
      [{ private_key: readFileSync(join(tlsDir, 'server.key')), cert_chain: readFileSync(join(tlsDir, 'server.pem')) }],
      true,
    );
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', creds, (err, p) => (err ? reject(err) : resolve(p))));
    const env = {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: `https://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_CERTIFICATE: join(tlsDir, 'ca.pem'),
    };
    try {
      const withCert = await runCli(['doctor', '--timeout-ms', '500'], {
        cwd: project(''),
        env: { ...env, OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: join(clientDir, 'client.pem'), OTEL_EXPORTER_OTLP_CLIENT_KEY: join(clientDir, 'client.key') },
      });
      expect(withCert.stdout).toMatch(/✓ canary trace: trace [0-9a-f]{32} accepted over OTLP\/gRPC/);
      expect(withCert.exitCode).toBe(0);
      expect(exports).toBe(1);
      // Without them the server refuses the handshake: the same server proves the certificate is what counts.
      const without = await runCli(['doctor', '--timeout-ms', '500'], { cwd: project(''), env });
      expect(without.stdout).toMatch(/✗ canary trace: gRPC Export failed/);
      expect(without.exitCode).toBe(1);
      expect(exports).toBe(1);
    } finally {
      server.forceShutdown();
    }
  });

  it('no endpoint configured: says where traces go, exit 1', async () => {
    const r = await runCli(['doctor'], { cwd: project('') });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/✗ endpoint: no OTLP endpoint configured/);
  });

  it('an HTTP/2-only port (an OTLP/gRPC receiver) as the OTLP/HTTP endpoint: the fix names the HTTP port or grpc', async () => {
    const { createServer: createH2 } = await import('node:http2');
    const h2 = createH2((_req, res) => res.end());
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    try {
      const port = (h2.address() as { port: number }).port;
      const r = await runCli(['doctor', '--timeout-ms', '1000'], { cwd: project(`[telemetry]\nendpoint = "http://127.0.0.1:${port}/v1/traces"\n`) });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`fix: 127\\.0\\.0\\.1:${port} speaks HTTP/2 only, like an OTLP/gRPC port: .*OTEL_EXPORTER_OTLP_PROTOCOL=grpc`));
    } finally {
      h2.close();
    }
  });

  it.each([
    { name: 'no key', toml: 'eval_annotations = true', env: {}, fix: /fix: Phoenix has authentication on and no key was sent: export PHOENIX_API_KEY=/ },
    {
      name: 'a key not sent with the export',
      toml: '',
      env: { PHOENIX_API_KEY: 'px-unsent' },
      fix: /fix: PHOENIX_API_KEY is set but the trace export does not send it/,
    },
    {
      name: 'a refused key',
      toml: 'eval_annotations = true',
      env: { PHOENIX_API_KEY: 'px-refused' },
      fix: /fix: Phoenix refused the key sent as Authorization: Bearer/,
    },
  ])('Phoenix answering 401 with $name: the matching fix, no key in the output', async ({ toml, env, fix }) => {
    phoenix = await startFakePhoenix({ traceStatus: 401 });
    const r = await runCli(['doctor', '--timeout-ms', '500'], {
      cwd: project(`[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\nproject = "p"\n${toml}\n`),
      env,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(fix);
    expect(r.stdout + r.stderr).not.toMatch(/px-unsent|px-refused/);
  });

  // Used to print the endpoint with its password and key, in the header line and in every check.
  it('prints endpoints with user:password and key-like query parameters redacted', async () => {
    phoenix = await startFakePhoenix();
    const url = `${phoenix.url.replace('://', '://bob:hunter2pw@')}/v1/traces?api-key=sekrit-123456`;
    const r = await runCli(['doctor', '--timeout-ms', '300', '--backend', 'otlp'], { cwd: project(`[telemetry]\nendpoint = "${url}"\n`) });
    expect(r.stdout).toMatch(/otlp at http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/v1\/traces\?api-key=\*\*\*/);
    expect(r.stdout + r.stderr).not.toMatch(/hunter2pw|sekrit-123456/);
  });

  // Used to read the answer whole (`res.body.text()`): an endless 200 on read-back grew without bound.
  it('an endless 200 on read-back is cut at the size limit and reported, not buffered', async () => {
    const { createServer: createHttp } = await import('node:http');
    let streamed = 0;
    const server = createHttp((req, res) => {
      req.resume();
      if (req.method === 'POST') return void res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        // Bounded: 1 GiB at most, far beyond the 32 MiB limit.
        while (streamed < 1024 * 1024 * 1024 && !res.destroyed) {
          streamed += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as { port: number }).port;
      const r = await runCli(['doctor', '--timeout-ms', '300', '--backend', 'phoenix'], {
        cwd: project(`[telemetry]\nendpoint = "http://127.0.0.1:${port}/v1/traces"\nproject = "p"\n`),
      });
      expect(r.exitCode).toBe(1);
      // The first read from Phoenix's REST API (the project lookup) meets the endless body: cut at the limit.
      expect(r.stdout).toMatch(/✗ phoenix api: GET .* the response body is larger than 33554432 bytes \(not retried\)/);
      expect(streamed).toBeLessThan(512 * 1024 * 1024);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
