// OTLP/protobuf request bodies for the `serve` benchmark, as an instrumented agent's SDK sends them: agent
// traces (invoke_agent → chat → execute_tool) made by the OpenTelemetry SDK, serialised by the official
// ProtobufTraceSerializer in the batch processor's default batches of 512 spans, gzip-compressed.
// Also the floor's decoder: protobufjs over the OTLP trace messages (field numbers of
// open-telemetry/opentelemetry-proto, trace/v1 and collector/trace/v1), since
// @opentelemetry/otlp-transformer serialises requests but decodes only responses.
import { gzipSync } from 'node:zlib';
import { context, trace as traceApi, SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import protobuf from 'protobufjs';

const T0 = 1_764_000_000_000;

/** `traces` agent traces as gzip'd ExportTraceServiceRequest bodies of at most 512 spans. */
export async function traceBodies(traces) {
  const spans = [];
  const collect = { onStart() {}, onEnd: (span) => spans.push(span), forceFlush: async () => {}, shutdown: async () => {} };
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'bench-agent' }), spanProcessors: [collect] });
  const tracer = provider.getTracer('bench-agent', '1.0.0');
  for (let i = 0; i < traces; i++) {
    const t = T0 + i * 1000;
    const tool = i % 7 === 0 ? 'restart-service' : 'service-status';
    const args = JSON.stringify({ service: 'nginx', host: `web-0${(i % 3) + 1}` });
    const root = tracer.startSpan('invoke_agent ops', {
      kind: SpanKind.INTERNAL,
      startTime: t,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'ops',
        'openinference.span.kind': 'AGENT',
        'input.value': `is nginx up on web-0${(i % 3) + 1}? (#${i})`,
      },
    });
    const ctx = traceApi.setSpan(context.active(), root);
    const chat = tracer.startSpan(
      'chat gpt-4o',
      {
        kind: SpanKind.CLIENT,
        startTime: t + 10,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.usage.input_tokens': 812,
          'gen_ai.usage.output_tokens': 31,
          'gen_ai.response.finish_reasons': ['tool_calls'],
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: `call_${i}`, name: tool, arguments: JSON.parse(args) }] },
          ]),
        },
      },
      ctx,
    );
    chat.end(t + 600);
    const exec = tracer.startSpan(
      `execute_tool ${tool}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: t + 610,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool,
          'gen_ai.tool.call.id': `call_${i}`,
          'gen_ai.tool.call.arguments': args,
          'gen_ai.tool.call.result': 'active (running)',
        },
      },
      ctx,
    );
    exec.end(t + 880);
    root.end(t + 900);
  }
  const bodies = [];
  for (let i = 0; i < spans.length; i += 512) bodies.push(gzipSync(ProtobufTraceSerializer.serializeRequest(spans.slice(i, i + 512))));
  await provider.shutdown();
  return { bodies, spans: spans.length };
}

const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; repeated Event events = 11;
  uint32 dropped_events_count = 12; repeated Link links = 13; uint32 dropped_links_count = 14; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

/** protobufjs's decoder of ExportTraceServiceRequest. */
export const ExportTraceServiceRequest = protobuf.parse(PROTO).root.lookupType('otlp.ExportTraceServiceRequest');
