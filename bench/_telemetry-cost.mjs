// Telemetry cost per trace: renderRunTrace through the OpenTelemetry SDK (span objects, attribute checks,
// batch processor) and through the direct tracer `run` uses in process (the SDK's ReadableSpans built
// directly, src/telemetry/direct-tracer.ts), then the OTLP protobuf and JSON serialisers of the exporters. With 3+ cores `run` does
// these on a telemetry worker thread (src/telemetry/off-thread.ts); what its main thread then pays per trace
// (ids, posting the case to the worker) is `mainThreadUs`, measured through the same code with a stand-in
// worker that only acknowledges.
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { createDirectTracer } from '../dist/telemetry/direct-tracer.js';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { renderRunTrace } from '../dist/telemetry/render.js';
import { createWorkerTelemetry } from '../dist/telemetry/off-thread.js';
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
  const renderDirectUs = await directCost(input, n);
  const mainThreadUs = await mainThreadCost({ case: c, run, verdict, result, runId: 'r', toolset }, n);
  return { renderUs, renderDirectUs, protobufUs, jsonUs, mainThreadUs, spansPerTrace: spans.length / n };
}

/** renderRunTrace through the direct tracer into a batch processor (µs per trace, warm). */
async function directCost(input, n) {
  const exporter = new InMemorySpanExporter();
  const processor = new BatchSpanProcessor(exporter, { maxQueueSize: 1e6, maxExportBatchSize: 1e6, scheduledDelayMillis: 1e9 });
  const tracer = createDirectTracer({
    sampler: 'parentbased_always_on',
    resource: resourceFromAttributes({ 'service.name': 'bench' }),
    scope: { name: 'bench' },
    idGenerator: new RandomIdGenerator(),
    processor,
    limits: { attributeCountLimit: 100_000, eventCountLimit: 1000, linkCountLimit: 1000, attributePerEventCountLimit: 128, attributePerLinkCountLimit: 128 },
  });
  for (let i = 0; i < 500; i++) renderRunTrace(tracer, input);
  await processor.forceFlush();
  exporter.reset();
  const t = performance.now();
  for (let i = 0; i < n; i++) renderRunTrace(tracer, input);
  const us = ((performance.now() - t) / n) * 1000;
  await processor.shutdown();
  return us;
}

/** Main-thread µs per case of the worker pipeline: ids, the case message and its structured clone. */
async function mainThreadCost(input, n) {
  const ack = `import { parentPort } from 'node:worker_threads'; parentPort.on('message', (batch) => { if (!Array.isArray(batch)) return; let count = 0; for (const m of batch) { if (m.type === 'case') count++; else if (m.seq) { parentPort.postMessage({ type: 'ack', count }); count = 0; parentPort.postMessage({ type: 'done', seq: m.seq }); } } if (count) parentPort.postMessage({ type: 'ack', count }); });`;
  const config = { enabled: true, captureContent: false, annotations: false, exporter: { kind: 'file', dir: '/nonexistent' }, timeoutMs: 10_000, serviceName: 'bench', resourceAttributes: {}, apiKeyEnv: 'X', sources: {} };
  const telemetry = createWorkerTelemetry(config, {}, new URL(`data:text/javascript,${encodeURIComponent(ack)}`));
  for (let i = 0; i < 500; i++) await telemetry.emitCase(input);
  await telemetry.flush();
  const t = performance.now();
  for (let i = 0; i < n; i++) await telemetry.emitCase(input);
  const us = ((performance.now() - t) / n) * 1000;
  await telemetry.shutdown();
  return us;
}
