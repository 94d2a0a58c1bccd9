// OTLP/gRPC: the receiver fed by the official OpenTelemetry JS gRPC exporter (and a grpc-js client for
// logs, serialised by the official ProtobufLogsSerializer), `run` exporting over gRPC, and `serve --grpc`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { SpanKind, ROOT_CONTEXT, trace as otTrace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { createGrpcReceiver, LOGS_EXPORT_PATH, TRACE_EXPORT_PATH, type GrpcReceiver } from '../../src/traces/grpc-receiver.js';
import { createTracePipeline, type TracePipeline } from '../../src/traces/pipeline.js';
import type { TraceOutcome } from '../../src/traces/score-traces.js';
import { parseRulesText } from '../../src/traces/rules.js';
import { decodeLogsRequest } from '../../src/traces/otlp-proto.js';
import { loadCasesFromPaths, mergeSuites } from '../../src/fixtures/index.js';
import { main } from '../../src/cli/main.js';
import { CLI, isolatedEnv } from '../helpers/run-cli.js';
import { verdictLines } from '../helpers/verdict-lines.js';

const RULES = parseRulesText('[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n', 'rules.toml');

let outcomes: TraceOutcome[] = [];
let pipeline: TracePipeline;
let receiver: GrpcReceiver;
const TOKEN = 'grpc-tok-1';

async function until<T>(fn: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  pipeline = createTracePipeline({ rules: RULES, assembler: { quiet: 60 }, onOutcome: (o) => outcomes.push(o) });
  receiver = await createGrpcReceiver({ pipeline, port: 0, tickMs: 20, token: TOKEN });
  await receiver.listen();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  outcomes = [];
});

function metadata(token = TOKEN): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${token}`);
  return md;
}

function emitAgentTurn(provider: BasicTracerProvider, tool: string, withOutput = true): { traceId: string; chatSpanId: string } {
  const tracer = provider.getTracer('app');
  const root = tracer.startSpan('invoke_agent ops', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, ROOT_CONTEXT);
  const ctx = otTrace.setSpan(ROOT_CONTEXT, root);
  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'fix the api' }] }]),
        ...(withOutput
          ? {
              'gen_ai.output.messages': JSON.stringify([
                { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: 'c1', name: tool, arguments: { name: 'api' } }] },
              ]),
            }
          : { 'gen_ai.response.finish_reasons': ['tool_calls'] }),
      },
    },
    ctx,
  );
  chat.end();
  root.end();
  return { traceId: root.spanContext().traceId, chatSpanId: chat.spanContext().spanId };
}

describe('OTLP/gRPC receiver', () => {
  it.each([
    { name: 'the official gRPC exporter', compression: undefined },
    { name: 'the official gRPC exporter with gzip', compression: 'gzip' },
  ])('scores traces sent by $name', async ({ compression }) => {
    const exporter = new GrpcExporter({
      url: `http://127.0.0.1:${receiver.port}`,
      metadata: metadata(),
      ...(compression ? { compression: compression as never } : {}),
    });
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const bad = emitAgentTurn(provider, 'service_restart');
    const good = emitAgentTurn(provider, 'service_status');
    await provider.forceFlush();
    const b = await until(() => outcomes.find((o) => o.traceId === bad.traceId), 'the restart trace');
    const g = await until(() => outcomes.find((o) => o.traceId === good.traceId), 'the status trace');
    await provider.shutdown();
    expect(b.kind === 'scored' && b.lines).toEqual([expect.objectContaining({ rule: 'no-restarts', category: 'forbidden_tool', pass: false })]);
    expect(g.kind === 'scored' && g.lines).toEqual([expect.objectContaining({ category: 'pass', pass: true })]);
  });

  it('answers UNAUTHENTICATED without the bearer token', async () => {
    const client = new grpc.Client(`127.0.0.1:${receiver.port}`, grpc.credentials.createInsecure());
    const code = await new Promise<number>((resolve) => {
      client.makeUnaryRequest(
        LOGS_EXPORT_PATH,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        metadata('wrong'),
        (err) => resolve(err?.code ?? 0),
      );
    });
    client.close();
    expect(code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it.each([
    { name: 'traces', path: TRACE_EXPORT_PATH },
    { name: 'logs', path: LOGS_EXPORT_PATH },
  ])('answers INVALID_ARGUMENT to $name bytes that are not an OTLP request', async ({ path }) => {
    const client = new grpc.Client(`127.0.0.1:${receiver.port}`, grpc.credentials.createInsecure());
    // Field 1 as a length-delimited record claiming 127 bytes, with none following.
    const garbage = Buffer.from([0x0a, 0x7f]);
    const err = await new Promise<grpc.ServiceError | null>((resolve) => {
      client.makeUnaryRequest(
        path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        garbage,
        metadata(),
        (e) => resolve(e),
      );
    });
    client.close();
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('joins gen_ai.choice log records sent over gRPC (official serializer) with the spans, and decodes them as the official JSON serializer writes them', async () => {
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${receiver.port}`, metadata: metadata() });
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const t = emitAgentTurn(provider, 'service_restart', false);
    const record = {
      hrTime: [1_700_000_000, 5] as [number, number],
      hrTimeObserved: [1_700_000_000, 5] as [number, number],
      spanContext: { traceId: t.traceId, spanId: t.chatSpanId, traceFlags: 1 },
      severityNumber: 9,
      severityText: 'INFO',
      eventName: 'gen_ai.choice',
      body: {
        index: 0,
        finish_reason: 'tool_calls',
        message: { tool_calls: [{ id: 'k', type: 'function', function: { name: 'service_restart', arguments: '{}' } }] },
      },
      attributes: { 'gen_ai.system': 'openai' },
      resource: resourceFromAttributes({ 'service.name': 'app' }),
      instrumentationScope: { name: 'app' },
      droppedAttributesCount: 0,
    };
    const bytes = ProtobufLogsSerializer.serializeRequest([record as never])!;
    // Cross-check: our decoder reads the official protobuf as the official JSON serializer writes the same records.
    const ours = decodeLogsRequest(bytes);
    const official = JSON.parse(new TextDecoder().decode(JsonLogsSerializer.serializeRequest([record as never])!)) as typeof ours;
    const pick = (r: typeof ours) => {
      const l = r.resourceLogs![0]!.scopeLogs![0]!.logRecords![0]!;
      // int64 may be a JSON number or string (OTLP/JSON); compare as strings.
      const int64AsText = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'intValue' ? String(x) : x)));
      return {
        traceId: String(l.traceId).toLowerCase(),
        spanId: String(l.spanId).toLowerCase(),
        eventName: l.eventName,
        body: int64AsText(l.body),
        attributes: int64AsText(l.attributes),
        time: String(l.timeUnixNano),
      };
    };
    expect(pick(ours)).toEqual(pick(official));
    const client = new grpc.Client(`127.0.0.1:${receiver.port}`, grpc.credentials.createInsecure());
    const err = await new Promise<grpc.ServiceError | null>((resolve) => {
      client.makeUnaryRequest(
        LOGS_EXPORT_PATH,
        (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => b,
        bytes,
        metadata(),
        (e) => resolve(e),
      );
    });
    client.close();
    expect(err).toBeNull();
    await provider.forceFlush();
    const o = await until(() => outcomes.find((x) => x.traceId === t.traceId), 'the joined trace');
    await provider.shutdown();
    expect(o.kind === 'scored' && o.lines[0]).toMatchObject({ category: 'forbidden_tool', calls: [{ id: 'k', name: 'service_restart' }] });
  });
});

describe('run exports over gRPC; serve --grpc scores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-grpc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'evals.toml'), '[[eval]]\nid = "status"\nprompt = "is nginx up?"\nexpect_tool = "service-status"\n');
  writeFileSync(
    join(dir, 'script.json'),
    JSON.stringify({ cases: { status: [{ toolCalls: [{ name: 'restart-service', arguments: { service: 'nginx' } }] }] } }),
  );

  it("OTEL_EXPORTER_OTLP_PROTOCOL=grpc sends the run's traces through the official gRPC exporter", async () => {
    const local: TraceOutcome[] = [];
    const cases = mergeSuites(loadCasesFromPaths([join(dir, 'evals.toml')])).cases;
    const p = createTracePipeline({ cases, assembler: { quiet: 30 }, onOutcome: (o) => local.push(o) });
    const r = await createGrpcReceiver({ pipeline: p, port: 0, tickMs: 20 });
    await r.listen();
    try {
      const out = {
        buf: '',
        write(s: string) {
          this.buf += s;
          return true;
        },
      };
      const code = await main({
        argv: ['run', 'evals.toml', '--provider', 'mock', '--script', 'script.json', '--out', 'res.json'],
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          ...isolatedEnv(),
          HOME: dir,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${r.port}`,
        },
        stdout: out as never,
        stderr: out as never,
      });
      expect(code).toBe(1);
      expect(out.buf).not.toMatch(/warning/);
      const o = await until(() => local[0], 'the run trace');
      expect(o.kind === 'scored' && o.lines[0]).toMatchObject({ case: 'status', category: 'wrong_tool', pass: false });
    } finally {
      await r.close();
    }
  });

  it('serve --grpc 0: verdict lines out of traces the official gRPC exporter sent', async () => {
    writeFileSync(join(dir, 'rules.toml'), '[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n');
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--grpc', '0', '--quiet-ms', '50', '--cases', join(dir, 'evals.toml'), '--rules', 'rules.toml'],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), HOME: dir },
        stdio: 'pipe',
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    try {
      const port = await until(() => /OTLP\/gRPC on grpc:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1], 'the gRPC port');
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new GrpcExporter({ url: `http://127.0.0.1:${port}` }))] });
      const t = emitAgentTurn(provider, 'service_restart');
      await provider.forceFlush();
      await until(() => (stdout.includes(t.traceId) ? true : undefined), 'a verdict line');
      await provider.shutdown();
      const line = verdictLines(stdout).find((l) => l.traceId === t.traceId);
      expect(line).toMatchObject({ traceId: t.traceId, rule: 'no-restarts', category: 'forbidden_tool', pass: false });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
