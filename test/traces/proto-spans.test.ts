// The receivers decode protobuf trace requests straight to span records (spans.ts spansFromProtoRequest).
// That path must give exactly what the OTLP/JSON path gives for the same bytes: decodeTraceRequest, then
// spansFromRequest. Compared on the official serialiser's output, on hand-made requests with every value
// kind and id defect, and on many mutations of valid messages (whatever still decodes).
import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { decodeTraceMessage, decodeTraceRequest, encodeTraceRequest } from '../../src/traces/otlp-proto.js';
import type { OtlpAnyValue, OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { MAX_ATTRIBUTE_CHARS, spansFromProtoRequest, spansFromRequest } from '../../src/traces/spans.js';
import { kv, request, span } from './_otlp.js';

function both(buf: Uint8Array) {
  return { direct: spansFromProtoRequest(decodeTraceMessage(buf), 'p'), viaJson: spansFromRequest(decodeTraceRequest(buf), 'p') };
}

function sdkRequest(): Uint8Array {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('proto-test', '1.2.3');
  const root = tracer.startSpan('invoke_agent ops', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
  const ctx = trace.setSpan(context.active(), root);
  const chat = tracer.startSpan('chat', { kind: SpanKind.CLIENT, attributes: { n: 42, f: 1.5, ok: true, s: 'x', list: ['a', 'b'], nums: [1, 2] } }, ctx);
  chat.addEvent('ev', { k: 'v' });
  chat.addLink({ context: root.spanContext(), attributes: { why: 'x' } });
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  chat.end();
  root.end();
  return ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
}

function nested(depth: number): OtlpAnyValue {
  return depth === 0 ? { stringValue: 'leaf' } : { kvlistValue: { values: [{ key: `d${depth}`, value: nested(depth - 1) }] } };
}

function handMade(): OtlpTraceRequest {
  const req = request(
    [
      span({
        trace: 1,
        id: 1,
        name: 'invoke_agent',
        start: 0,
        end: 10,
        attrs: { s: 'x', i: 7, neg: -3, d: 2.5, b: false, arr: [1, 'two', [3]], obj: { a: { b: 1 } } },
        events: [{ name: 'e1', at: 1, attrs: { k: 'v' } }],
        error: true,
      }),
      span({ trace: 1, id: 2, parent: 1, name: 'open', start: 1, end: null }),
      span({ trace: 1, id: 3, parent: 1, name: 'server', kind: 2, start: 2, end: 3 }),
    ],
    { 'service.name': 'agent', 'host.tags': ['a', 'b'] },
  );
  const spans = req.resourceSpans![0]!.scopeSpans![0]!.spans!;
  spans.push(
    // Id defects: all zero, too short, 11 bytes (its hex would read as base64 of 16 bytes: invalid, not another id), no span id, no parent.
    { ...spans[0]!, traceId: '0'.repeat(32), spanId: 'c'.repeat(16) },
    { ...spans[0]!, traceId: 'ab'.repeat(8), spanId: 'c'.repeat(16) },
    { ...spans[0]!, traceId: 'ab'.repeat(11), spanId: 'c'.repeat(16) },
    { ...spans[0]!, spanId: '' },
    { ...spans[0]!, spanId: 'd'.repeat(16), parentSpanId: '0'.repeat(16) },
    // Odd values: empty AnyValue, no value, empty key, bytes, deep kvlist, a cut string, empty array and kvlist.
    {
      ...spans[0]!,
      spanId: 'e'.repeat(16),
      name: '',
      kind: 9,
      attributes: [
        { key: 'empty', value: {} },
        { key: 'novalue' },
        { key: '', value: { stringValue: 'blank key' } },
        { key: 'bytes', value: { bytesValue: Buffer.from('hello').toString('base64') } },
        { key: 'deep', value: nested(40) },
        { key: 'big', value: { stringValue: 'x'.repeat(MAX_ATTRIBUTE_CHARS + 5) } },
        { key: 'ea', value: { arrayValue: {} } },
        { key: 'ek', value: { kvlistValue: {} } },
        { key: 'max', value: { intValue: '9007199254740993' } },
        { key: 'nan', value: { doubleValue: Number.NaN } },
      ],
      events: [{ name: 'no time' }, { timeUnixNano: '0', name: 'zero' }],
      links: [
        { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8) },
        { traceId: '', spanId: 'cd'.repeat(8) },
      ],
      status: { code: 1, message: '' },
      startTimeUnixNano: '0',
      endTimeUnixNano: '123',
    },
  );
  // A second scope without a name, a second resource without attributes, and the pre-v0.19 field.
  req.resourceSpans![0]!.scopeSpans!.push({ scope: {}, spans: [span({ trace: 2, id: 1, name: 'x', start: 5 })] });
  req.resourceSpans!.push({
    scopeSpans: [{ spans: [span({ trace: 3, id: 1, name: 'y', start: 5, attrs: kv({ a: 1 }) as unknown as Record<string, unknown> })] }],
    instrumentationLibrarySpans: [{ instrumentationLibrary: { name: 'old-lib' }, spans: [span({ trace: 4, id: 1, name: 'legacy', start: 6 })] }],
  } as never);
  return req;
}

describe('protobuf trace requests straight to span records', () => {
  it('gives what the OTLP/JSON path gives for the official serialiser', () => {
    const { direct, viaJson } = both(sdkRequest());
    expect(direct.spans).toHaveLength(2);
    expect(direct).toStrictEqual(viaJson);
  });

  it('gives what the OTLP/JSON path gives for every value kind and id defect, problems included', () => {
    const { direct, viaJson } = both(encodeTraceRequest(handMade()));
    expect(direct.problems.length).toBeGreaterThanOrEqual(4);
    expect(direct.spans.some((s) => s.scopeName === 'old-lib')).toBe(true);
    // A trace id of the wrong length is invalid on both paths, never re-read as base64 into a made-up id.
    const elevenBytesAsBase64 = Buffer.from('ab'.repeat(11), 'base64').toString('hex');
    expect(direct.spans.some((s) => s.traceId === elevenBytesAsBase64)).toBe(false);
    expect(direct.problems.filter((p) => /invalid traceId/.test(p.reason)).length).toBeGreaterThanOrEqual(3);
    expect(direct).toStrictEqual(viaJson);
  });

  it('gives what the OTLP/JSON path gives for mutated messages that still decode', () => {
    const seeds = [sdkRequest(), encodeTraceRequest(handMade())];
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let decoded = 0;
    for (let i = 0; i < 600; i++) {
      const buf = Buffer.from(seeds[i % seeds.length]!);
      for (let flips = 1 + rand(3); flips > 0; flips--) buf[rand(buf.length)] = rand(256);
      let viaJson;
      try {
        viaJson = spansFromRequest(decodeTraceRequest(buf), 'p');
      } catch {
        expect(() => decodeTraceMessage(buf)).toThrow(/expected an OTLP protobuf ExportTraceServiceRequest/);
        continue;
      }
      decoded++;
      expect(spansFromProtoRequest(decodeTraceMessage(buf), 'p')).toStrictEqual(viaJson);
    }
    expect(decoded).toBeGreaterThan(50);
  });
});
