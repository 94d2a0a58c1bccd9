import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  decodeLogsRequest,
  decodeTraceRequest,
  decodeTraceResponse,
  encodeLogsRequest,
  encodeTraceRequest,
  encodeTraceResponse,
} from '../../src/traces/otlp-proto.js';
import type { OtlpLogsRequest, OtlpTraceRequest } from '../../src/traces/otlp-types.js';

function recordSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('proto-test', '1.2.3');
  tracer.startActiveSpan('invoke_agent', { kind: SpanKind.INTERNAL }, (root) => {
    const child = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, attributes: { n: 42, f: 1.5, ok: true, s: 'x', list: ['a', 'b'] } });
    child.addEvent('ev', { k: 'v' });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    child.end();
    root.end();
  });
  return exporter.getFinishedSpans();
}

describe('OTLP protobuf codec', () => {
  it('decodes what the official serializer encodes into the same shape as the official JSON encoding', () => {
    const spans = recordSpans();
    const proto = ProtobufTraceSerializer.serializeRequest(spans)!;
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!)) as OtlpTraceRequest;
    const decoded = decodeTraceRequest(proto);
    const decodedSpans = decoded.resourceSpans![0]!.scopeSpans![0]!.spans!;
    const jsonSpans = json.resourceSpans![0]!.scopeSpans![0]!.spans!;
    expect(decodedSpans).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      const d = decodedSpans[i]!;
      const j = jsonSpans[i]!;
      expect(d.traceId).toBe(j.traceId!.toLowerCase());
      expect(d.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(d.spanId).toBe(j.spanId);
      expect(d.parentSpanId ?? '').toBe(j.parentSpanId ?? '');
      expect(d.name).toBe(j.name);
      expect(d.kind).toBe(j.kind);
      expect(String(d.startTimeUnixNano)).toBe(String(j.startTimeUnixNano));
      expect(String(d.endTimeUnixNano)).toBe(String(j.endTimeUnixNano));
    }
    const chat = decodedSpans.find((s) => s.name === 'chat gpt-4o')!;
    const attrs = Object.fromEntries(chat.attributes!.map((kv) => [kv.key, kv.value]));
    expect(attrs.n).toEqual({ intValue: '42' });
    expect(attrs.f).toEqual({ doubleValue: 1.5 });
    expect(attrs.ok).toEqual({ boolValue: true });
    expect(attrs.list).toEqual({ arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } });
    expect(chat.status).toEqual({ code: 2, message: 'boom' });
    expect(chat.events![0]!.name).toBe('ev');
    expect(decoded.resourceSpans![0]!.scopeSpans![0]!.scope).toMatchObject({ name: 'proto-test', version: '1.2.3' });
  });

  it('keeps nanosecond timestamps exact beyond 2^53', () => {
    const req: OtlpTraceRequest = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  name: 's',
                  startTimeUnixNano: '1767225600123456789',
                  endTimeUnixNano: '1767225600987654321',
                },
              ],
            },
          ],
        },
      ],
    };
    const span = decodeTraceRequest(encodeTraceRequest(req)).resourceSpans![0]!.scopeSpans![0]!.spans![0]!;
    expect(span.startTimeUnixNano).toBe('1767225600123456789');
    expect(span.endTimeUnixNano).toBe('1767225600987654321');
    expect(span.parentSpanId).toBeUndefined();
  });

  it('renders span-link ids as hex and leaves a bytes attribute as base64, as OTLP/JSON writes them', () => {
    // Ids are converted where OTLP puts them (spans, links, log records); a bytes attribute is not an id.
    const req: OtlpTraceRequest = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  name: 's',
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: [{ key: 'blob', value: { bytesValue: Buffer.from('hi').toString('base64') } }],
                  links: [{ traceId: '12'.repeat(16), spanId: '34'.repeat(8) }],
                },
              ],
            },
          ],
        },
      ],
    };
    const span = decodeTraceRequest(encodeTraceRequest(req)).resourceSpans![0]!.scopeSpans![0]!.spans![0]!;
    expect(span.links).toEqual([{ traceId: '12'.repeat(16), spanId: '34'.repeat(8) }]);
    expect(span.attributes).toEqual([{ key: 'blob', value: { bytesValue: Buffer.from('hi').toString('base64') } }]);
  });

  it('round-trips log records with bodies, trace ids and event names', () => {
    const req: OtlpLogsRequest = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  traceId: '0f'.repeat(16),
                  spanId: '1e'.repeat(8),
                  eventName: 'gen_ai.choice',
                  timeUnixNano: '1000',
                  body: { kvlistValue: { values: [{ key: 'index', value: { intValue: '0' } }] } },
                },
              ],
            },
          ],
        },
      ],
    };
    const rec = decodeLogsRequest(encodeLogsRequest(req)).resourceLogs![0]!.scopeLogs![0]!.logRecords![0]!;
    expect(rec).toMatchObject({ traceId: '0f'.repeat(16), spanId: '1e'.repeat(8), eventName: 'gen_ai.choice', timeUnixNano: '1000' });
    expect(rec.body).toEqual({ kvlistValue: { values: [{ key: 'index', value: { intValue: '0' } }] } });
  });

  it('answers partial_success only when something was rejected', () => {
    expect(encodeTraceResponse({}).length).toBe(0);
    expect(decodeTraceResponse(encodeTraceResponse({ rejectedSpans: 3, errorMessage: 'missing ids' }))).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: 'missing ids' },
    });
  });

  it('throws a TraceError on bytes that are not a message', () => {
    expect(() => decodeTraceRequest(new Uint8Array([0x0a, 0xff, 0xff, 0xff]))).toThrow(/expected an OTLP protobuf/);
  });
});
