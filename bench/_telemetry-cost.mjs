// Telemetry cost per trace: renderRunTrace through the OpenTelemetry SDK (span objects, attribute checks,
// batch processor), as `run` does it, then the OTLP protobuf and JSON serialisers of the exporters.
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { renderRunTrace } from '../dist/telemetry/render.js';
import { aggregateCase, scoreRun } from '../dist/scoring/index.js';
import { loadToolset } from '../dist/toolset/index.js';
import { loadFixtureFile } from '../dist/fixtures/index.js';
import { runCase } from '../dist/engine/run-case.js';

/** Microseconds per trace (one decision case: invoke_agent → chat → execute_tool) of each stage. */
export async function telemetryCostPerTrace(n = 5000) {
  const toolset = await loadToolset('builtin:fleet', { projectDir: process.cwd(), env: {} });
  const c = loadFixtureFile(new URL('../fixtures/runspec/fleet.toml', import.meta.url).pathname)[0].cases.find((x) => x.id === 'restart-nginx-targeted');
  const reply = { toolCalls: [{ id: 'call_1', name: 'restart-service', arguments: { service: 'nginx', host: 'web-01' } }], usage: { promptTokens: 800, completionTokens: 30 }, requestModel: 'm', params: { temperature: 0.7 }, latencyMs: 1, finishReason: 'tool_calls', responseId: 'x', responseModel: 'm', serverAddress: '127.0.0.1', serverPort: 1 };
  const provider = { name: 'openai', system: 'openai', model: 'm', chat: async () => reply, close: async () => {} };
  const run = await runCase({ case: c, sample: 0, provider, toolset, toolMode: 'dedup' });
  const verdict = scoreRun(c, run, { toolset, toolMode: 'dedup' });
  const result = aggregateCase(c, [{ status: 'scored', sample: 0, verdict, elapsedMs: 1, tokens: 0 }], { threshold: 1 });
  const exporter = new InMemorySpanExporter();
  const tp = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 1e6, maxExportBatchSize: 1e6, scheduledDelayMillis: 1e9 })] });
  const tracer = tp.getTracer('bench');
  const input = { case: c, run, verdict, result, runId: 'r', captureContent: false, toolset };
  for (let i = 0; i < 500; i++) renderRunTrace(tracer, input);
  await tp.forceFlush();
  exporter.reset();
  let t = performance.now();
  for (let i = 0; i < n; i++) renderRunTrace(tracer, input);
  const renderUs = ((performance.now() - t) / n) * 1000;
  await tp.forceFlush();
  const spans = exporter.getFinishedSpans();
  t = performance.now();
  for (let i = 0; i < spans.length; i += 512) ProtobufTraceSerializer.serializeRequest(spans.slice(i, i + 512));
  const protobufUs = ((performance.now() - t) / n) * 1000;
  t = performance.now();
  for (let i = 0; i < spans.length; i += 512) JsonTraceSerializer.serializeRequest(spans.slice(i, i + 512));
  const jsonUs = ((performance.now() - t) / n) * 1000;
  await tp.shutdown();
  return { renderUs, protobufUs, jsonUs, spansPerTrace: spans.length / n };
}
