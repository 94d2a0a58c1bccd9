// The OTLP/HTTP receiver in-process, fed by the official OpenTelemetry exporters and by raw requests.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { SpanKind, SpanStatusCode, ROOT_CONTEXT, trace as otTrace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { createOtlpReceiver } from '../../src/traces/receiver.js';
import type { OtlpReceiver } from '../../src/traces/receiver.js';
import { createTracePipeline } from '../../src/traces/pipeline.js';
import type { TracePipeline } from '../../src/traces/pipeline.js';
import type { TraceOutcome } from '../../src/traces/score-traces.js';
import { parseRulesText } from '../../src/traces/rules.js';
import { decodeRpcStatus, decodeTraceResponse, encodeTraceRequest } from '../../src/traces/otlp-proto.js';
import { logRecord, logsRequest, request, span, spanId, traceId } from './_otlp.js';
import { spansFromRequest } from '../../src/traces/spans.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';

const spansOf = (req: OtlpTraceRequest) => spansFromRequest(req, 'test').spans;

const RULES = parseRulesText(
  `[[rule]]
name = "no-restarts"
forbid_tools = ["service_restart"]
max_calls = 5
`,
  'rules.toml',
);

let outcomes: TraceOutcome[] = [];
let pipeline: TracePipeline;
let receiver: OtlpReceiver;
let url: string;

async function until<T>(fn: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const scored = (traceHex: string) => () => outcomes.find((o) => o.traceId === traceHex);

beforeAll(async () => {
  pipeline = createTracePipeline({ rules: RULES, assembler: { quiet: 60, reopenWindow: 60_000 }, onOutcome: (o) => outcomes.push(o) });
  receiver = createOtlpReceiver({ pipeline, port: 0, tickMs: 20, maxBodyBytes: 1024 * 1024, token: 'tok-123' });
  url = await receiver.listen();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => {
  outcomes = [];
});

const AUTH = { authorization: 'Bearer tok-123' };

/** An agent turn as a GenAI-instrumented app would emit it: chat span, then a sibling execute_tool span. */
function emitAgentTurn(provider: BasicTracerProvider, tool: string): string {
  const tracer = provider.getTracer('app');
  const root = tracer.startSpan('invoke_agent ops', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, ROOT_CONTEXT);
  const ctx = otTrace.setSpan(ROOT_CONTEXT, root);
  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'fix the api' }] }]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: 'c1', name: tool, arguments: { name: 'api' } }] },
        ]),
      },
    },
    ctx,
  );
  chat.end();
  const exec = tracer.startSpan(
    `execute_tool ${tool}`,
    {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.arguments': '{"name":"api"}',
      },
    },
    ctx,
  );
  exec.setStatus({ code: SpanStatusCode.OK });
  exec.end();
  root.end();
  return root.spanContext().traceId;
}

describe('official OpenTelemetry exporters posting to the receiver', () => {
  it.each([
    { name: 'exporter-trace-otlp-proto', make: () => new ProtoExporter({ url: `${url}/v1/traces`, headers: AUTH }) },
    { name: 'exporter-trace-otlp-proto with gzip', make: () => new ProtoExporter({ url: `${url}/v1/traces`, headers: AUTH, compression: 'gzip' as never }) },
    { name: 'exporter-trace-otlp-http (JSON)', make: () => new JsonExporter({ url: `${url}/v1/traces`, headers: AUTH }) },
  ])('scores traces sent by $name', async ({ make }) => {
    const exporter = make();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const bad = emitAgentTurn(provider, 'service_restart');
    const good = emitAgentTurn(provider, 'service_status');
    await provider.forceFlush();
    const b = await until(scored(bad), 'the restart trace');
    const g = await until(scored(good), 'the status trace');
    await provider.shutdown();
    expect(b.kind).toBe('scored');
    if (b.kind !== 'scored' || g.kind !== 'scored') return;
    expect(b.lines).toEqual([expect.objectContaining({ traceId: bad, rule: 'no-restarts', category: 'forbidden_tool', pass: false })]);
    expect(b.lines[0]!.calls).toEqual([{ id: 'c1', name: 'service_restart', arguments: { name: 'api' }, executed: true }]);
    expect(g.lines).toEqual([expect.objectContaining({ category: 'pass', pass: true })]);
    expect(b.info.rootSpanId).toMatch(/^[0-9a-f]{16}$/);
  });
});

async function post(path: string, body: Uint8Array | string, headers: Record<string, string>) {
  const res = await fetch(`${url}${path}`, { method: 'POST', body: typeof body === 'string' ? body : Buffer.from(body), headers: { ...AUTH, ...headers } });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

describe('receiver protocol handling', () => {
  it('answers partial_success for spans without ids, in the request encoding', async () => {
    const req = request([span({ trace: 100, id: 1, name: 'execute_tool x', start: 0, attrs: { 'gen_ai.tool.name': 'x' } })]);
    req.resourceSpans![0]!.scopeSpans![0]!.spans!.push({ name: 'missing-ids' });
    const json = await post('/v1/traces', JSON.stringify(req), { 'content-type': 'application/json' });
    expect(json.status).toBe(200);
    expect(json.type).toBe('application/json');
    expect(JSON.parse(json.body.toString())).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringMatching(/missing-ids.*traceId/) } });
    const protoReq = request([span({ trace: 101, id: 1, name: 'execute_tool x', start: 0, attrs: { 'gen_ai.tool.name': 'x' } })]);
    const proto = await post('/v1/traces', encodeTraceRequest(protoReq), { 'content-type': 'application/x-protobuf' });
    expect(proto.status).toBe(200);
    expect(proto.type).toBe('application/x-protobuf');
    expect(decodeTraceResponse(proto.body)).toEqual({});
    await until(scored(traceId(101)), 'trace 101');
  });

  it.each([
    { name: 'a wrong content type', body: 'hello', headers: { 'content-type': 'text/plain' }, status: 415, message: /unsupported content type/ },
    { name: 'malformed JSON', body: '{"resourceSpans": [', headers: { 'content-type': 'application/json' }, status: 400, message: /invalid JSON/ },
    {
      name: 'JSON of the wrong shape',
      body: '{"resourceSpans": 5}',
      headers: { 'content-type': 'application/json' },
      status: 400,
      message: /not an ExportTraceServiceRequest/,
    },
    {
      name: 'an unknown content encoding',
      body: 'x',
      headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
      status: 415,
      message: /content encoding/,
    },
    {
      name: 'a body over the limit',
      body: 'x'.repeat(1024 * 1024 + 10),
      headers: { 'content-type': 'application/json' },
      status: 413,
      message: /over the 1048576-byte limit/,
    },
  ])('rejects $name with $status and a message, and stays up', async ({ body, headers, status, message }) => {
    const r = await post('/v1/traces', body, headers as Record<string, string>);
    expect(r.status).toBe(status);
    expect(JSON.parse(r.body.toString()).message).toMatch(message);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('rejects bad protobuf with 400 and a google.rpc.Status body', async () => {
    const r = await post('/v1/traces', new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f]), { 'content-type': 'application/x-protobuf' });
    expect(r.status).toBe(400);
    expect(r.type).toBe('application/x-protobuf');
    expect(decodeRpcStatus(r.body)).toEqual({ code: 3, message: expect.stringMatching(/expected an OTLP protobuf/) });
  });

  it('stops inflating a gzip bomb at the body limit with 413', async () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const r = await post('/v1/traces', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body.toString()).message).toMatch(/decompressed body over/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('requires the bearer token on POSTs but not on /healthz', async () => {
    const res = await fetch(`${url}/v1/traces`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    // The scheme is case-insensitive (RFC 7235); the token is not.
    for (const scheme of ['bearer', 'BEARER']) {
      const ok = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json', authorization: `${scheme} tok-123` },
      });
      expect(ok.status).not.toBe(401);
    }
    const wrongCase = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', authorization: 'bearer TOK-123' },
    });
    expect(wrongCase.status).toBe(401);
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({
      status: 'ok',
      openTraces: expect.any(Number),
      traces: expect.any(Number),
      verdicts: expect.any(Number),
      failed: expect.any(Number),
      uninterpretable: expect.any(Number),
      evictedTraces: 0,
      retainedEvictions: 0,
      lateRecords: 0,
    });
  });

  it('joins gen_ai.choice log records posted to /v1/logs with spans posted to /v1/traces', async () => {
    const logs = logsRequest([
      logRecord({
        trace: 102,
        span: 2,
        eventName: 'gen_ai.choice',
        body: {
          index: 0,
          finish_reason: 'tool_calls',
          message: { tool_calls: [{ id: 'k', type: 'function', function: { name: 'service_restart', arguments: '{}' } }] },
        },
      }),
    ]);
    const l = await post('/v1/logs', JSON.stringify(logs), { 'content-type': 'application/json' });
    expect(l.status).toBe(200);
    const spans = request([
      span({ trace: 102, id: 1, name: 'root', start: 0, end: 10 }),
      span({
        trace: 102,
        id: 2,
        parent: 1,
        name: 'chat gpt-4o',
        start: 1,
        end: 5,
        attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['tool_calls'] },
      }),
    ]);
    expect((await post('/v1/traces', encodeTraceRequest(spans), { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    const o = await until(scored(traceId(102)), 'trace 102');
    expect(o.kind === 'scored' && o.lines[0]).toMatchObject({ category: 'forbidden_tool', calls: [{ id: 'k', name: 'service_restart' }] });
  });

  it('waits for the root to end before scoring a trace', async () => {
    const child = request([span({ trace: 103, id: 2, parent: 1, name: 'execute_tool x', start: 1, attrs: { 'gen_ai.tool.name': 'x' } })]);
    await post('/v1/traces', JSON.stringify(child), { 'content-type': 'application/json' });
    // Five quiet windows later (short of the orphan window): a tick at that time, not a sleep.
    pipeline.tick(Date.now() + 5 * 60);
    expect(outcomes.find((o) => o.traceId === traceId(103))).toBeUndefined();
    const root = request([span({ trace: 103, id: 1, name: 'root', start: 0, end: 5 })]);
    await post('/v1/traces', JSON.stringify(root), { 'content-type': 'application/json' });
    const o = await until(scored(traceId(103)), 'trace 103');
    expect(o.kind === 'scored' && o.info.rootSpanId).toBe(spanId(1));
  });
});

describe('late spans', () => {
  // Regression: serve judged a trace from its root and dropped children that came after --quiet-ms, so a
  // forbidden call made by a slow tool service went unflagged.
  it('re-opens a judged trace for late children: a superseding verdict flags the forbidden call and only it counts', async () => {
    const json = { 'content-type': 'application/json' };
    const first = request([
      span({ trace: 104, id: 1, name: 'invoke_agent ops', start: 0, end: 50, attrs: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({
        trace: 104,
        id: 2,
        parent: 1,
        name: 'execute_tool service_status',
        start: 1,
        end: 2,
        attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'service_status' },
      }),
    ]);
    expect((await post('/v1/traces', JSON.stringify(first), json)).status).toBe(200);
    const judged = await until(scored(traceId(104)), 'first verdict of 104');
    expect(judged.kind === 'scored' && judged.lines[0]).toMatchObject({ rule: 'no-restarts', category: 'pass', revision: 0, final: false });
    expect(judged.supersedes).toBeUndefined();
    const before = pipeline.summary();
    const late = request([
      span({
        trace: 104,
        id: 3,
        parent: 1,
        name: 'execute_tool service_restart',
        start: 3,
        end: 4,
        attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'service_restart' },
      }),
    ]);
    expect((await post('/v1/traces', JSON.stringify(late), json)).status).toBe(200);
    const again = await until(() => outcomes.filter((o) => o.traceId === traceId(104))[1], 'superseding verdict of 104');
    expect(again.supersedes).toBe(true);
    expect(again.kind === 'scored' && again.lines[0]).toMatchObject({
      rule: 'no-restarts',
      category: 'forbidden_tool',
      supersedes: true,
      rootSpanId: spanId(1),
      revision: 1,
      final: false,
    });
    // Neither revision is final yet (the re-open window is open): the summary counts neither.
    const after = pipeline.summary();
    expect(after.traces).toBe(before.traces);
    expect([after.passed - before.passed, after.failed - before.failed]).toEqual([0, 0]);
    expect(after.reopenedTraces).toBe(before.reopenedTraces + 1);
  });

  it('judges a trace whose parent never arrives as incomplete instead of dropping it', () => {
    const local: TraceOutcome[] = [];
    const p = createTracePipeline({ rules: RULES, assembler: { quiet: 10 }, onOutcome: (o) => local.push(o) });
    const orphan = request([
      span({ trace: 105, id: 1, name: 'invoke_agent ops', start: 0, end: 50 }),
      span({ trace: 105, id: 3, parent: 2, name: 'execute_tool service_status', start: 1, end: 2, attrs: { 'gen_ai.tool.name': 'service_status' } }),
    ]);
    p.addSpans(spansOf(orphan), 0);
    p.tick(50);
    expect(local).toEqual([]);
    p.tick(100);
    expect(local.map((o) => o.kind === 'scored' && [o.lines[0]!.category, o.lines[0]!.pass, o.lines[0]!.incomplete])).toEqual([['incomplete', null, true]]);
    // Counted once its re-open window (10 × quiet by default) has closed and the final judgement is out.
    expect(p.summary()).toMatchObject({ traces: 0 });
    p.tick(200);
    expect(local.map((o) => [o.final, o.revision])).toEqual([
      [false, 0],
      [true, 0],
    ]);
    expect(p.summary()).toMatchObject({ traces: 1, unscorable: 1, passed: 0, failed: 0 });
  });
});

describe('receiver shutdown and bounds', () => {
  it('scores open traces on close and counts evictions past max open traces', async () => {
    const local: TraceOutcome[] = [];
    const p = createTracePipeline({ assembler: { quiet: 60_000, maxOpenTraces: 2 }, onOutcome: (o) => local.push(o) });
    const r = createOtlpReceiver({ pipeline: p, port: 0 });
    const u = await r.listen();
    try {
      for (const t of [200, 201, 202]) {
        const body = JSON.stringify(request([span({ trace: t, id: 1, name: 'execute_tool x', start: 0, end: null, attrs: { 'gen_ai.tool.name': 'x' } })]));
        expect((await fetch(`${u}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).status).toBe(200);
      }
      expect(local.map((o) => o.traceId)).toEqual([traceId(200)]);
    } finally {
      await r.close();
    }
    expect(local.map((o) => o.traceId).sort()).toEqual([traceId(200), traceId(201), traceId(202)]);
    const s = p.summary();
    expect(s.evictedTraces).toBe(1);
    expect(s.traces).toBe(3);
  });
});
