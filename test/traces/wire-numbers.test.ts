// The official JS exporters send a whole-number double as intValue (opentelemetry-js issue 1938), so a
// registry double such as runspec.eval.pass_rate = 1 arrives as an int. Our readers take both encodings.
import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { ATTR_RUNSPEC_EVAL_PASS_RATE, ATTR_RUNSPEC_EVAL_SCORE, ATTR_RUNSPEC_EVAL_THRESHOLD } from '../../src/semconv/index.js';
import { decodeTraceRequest } from '../../src/traces/otlp-proto.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { spansFromRequest } from '../../src/traces/spans.js';
import { spansFromPhoenix } from '../../src/traces/phoenix-spans.js';

function exported(attrs: Record<string, number>) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.getTracer('t').startSpan('invoke_agent', { attributes: attrs }).end();
  return exporter.getFinishedSpans();
}

describe('whole doubles sent as ints', () => {
  const attrs = { [ATTR_RUNSPEC_EVAL_PASS_RATE]: 1, [ATTR_RUNSPEC_EVAL_SCORE]: 0.5, [ATTR_RUNSPEC_EVAL_THRESHOLD]: 0 };

  it('the official exporter really sends a whole double as intValue (the premise)', () => {
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exported(attrs))!)) as OtlpTraceRequest;
    const wire = json.resourceSpans![0]!.scopeSpans![0]!.spans![0]!.attributes!;
    expect(wire.find((a) => a.key === ATTR_RUNSPEC_EVAL_PASS_RATE)!.value).toHaveProperty('intValue');
    expect(wire.find((a) => a.key === ATTR_RUNSPEC_EVAL_SCORE)!.value).toEqual({ doubleValue: 0.5 });
  });

  it.each([
    {
      name: 'OTLP/JSON from the official serializer',
      read: () => spansFromRequest(JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exported(attrs))!)), 'json').spans,
    },
    {
      name: 'OTLP/protobuf from the official serializer',
      read: () => spansFromRequest(decodeTraceRequest(ProtobufTraceSerializer.serializeRequest(exported(attrs))!), 'proto').spans,
    },
    {
      name: 'hand-written JSON: intValue as a string and as a number, doubleValue as a string',
      read: () =>
        spansFromRequest(
          {
            resourceSpans: [
              {
                scopeSpans: [
                  {
                    spans: [
                      {
                        traceId: 'a'.repeat(32),
                        spanId: 'b'.repeat(16),
                        name: 'x',
                        startTimeUnixNano: '1',
                        endTimeUnixNano: '2',
                        attributes: [
                          { key: ATTR_RUNSPEC_EVAL_PASS_RATE, value: { intValue: '1' } },
                          { key: ATTR_RUNSPEC_EVAL_SCORE, value: { doubleValue: '0.5' } },
                          { key: ATTR_RUNSPEC_EVAL_THRESHOLD, value: { intValue: 0 } },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
          'json',
        ).spans,
    },
    {
      name: 'a Phoenix span list (JSON numbers)',
      read: () =>
        spansFromPhoenix(
          {
            data: [
              {
                name: 'x',
                context: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) },
                start_time: '2026-01-01T00:00:00Z',
                end_time: '2026-01-01T00:00:01Z',
                attributes: { [ATTR_RUNSPEC_EVAL_PASS_RATE]: 1, [ATTR_RUNSPEC_EVAL_SCORE]: 0.5, [ATTR_RUNSPEC_EVAL_THRESHOLD]: 0 },
              },
            ],
          },
          'phoenix',
        )?.spans ?? [],
    },
  ])('$name: numbers either way', ({ read }) => {
    const [span] = read();
    expect(span).toBeDefined();
    expect(span!.attributes[ATTR_RUNSPEC_EVAL_PASS_RATE]).toBe(1);
    expect(span!.attributes[ATTR_RUNSPEC_EVAL_SCORE]).toBe(0.5);
    expect(span!.attributes[ATTR_RUNSPEC_EVAL_THRESHOLD]).toBe(0);
  });
});
