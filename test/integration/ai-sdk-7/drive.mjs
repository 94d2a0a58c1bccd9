// AI SDK 7 through @ai-sdk/otel's default (GenAI) integration, or its LegacyOpenTelemetry (`ai.*` spans),
// against a local OpenAI-compatible server; posts OTLP JSON to a receiver. Runs under Node 22.
//
//   node drive.mjs genai|legacy on|off OPENAI_BASE_URL OTLP_BASE_URL
//
// Each scenario is one trace: an agent span (gen_ai.agent.name names the scenario) around generateText.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, jsonSchema, registerTelemetry, tool } from 'ai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { createOpenAI } from '@ai-sdk/openai';

const [layout, content, baseURL, otlp] = process.argv.slice(2);
const record = content === 'on';
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const spans = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': `ai-sdk-7-${layout}` }),
  spanProcessors: [new SimpleSpanProcessor(spans)],
});
trace.setGlobalTracerProvider(provider);
registerTelemetry(layout === 'legacy' ? new LegacyOpenTelemetry() : new OpenTelemetry());

const SCENARIOS = [
  ['weather-agent', 'What is the weather in Paris?'],
  ['news-agent', 'Any news about the weather?'],
  ['ops-agent', 'Is nginx running?'],
  ['chat-agent', 'Say hello.'],
];
const parameters = { type: 'object', properties: { city: { type: 'string' }, q: { type: 'string' }, name: { type: 'string' } } };
const tools = Object.fromEntries(
  ['get_weather', 'search', 'restart_service', 'service_status'].map((n) => [
    n,
    tool({ description: `${n} tool`, inputSchema: jsonSchema(parameters), execute: async () => 'ok' }),
  ]),
);
const openai = createOpenAI({ apiKey: 'sk-fixture', baseURL });
const agentTracer = trace.getTracer('agent');
for (const [agent, prompt] of SCENARIOS) {
  await agentTracer.startActiveSpan(
    `invoke_agent ${agent}`,
    { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent } },
    async (span) => {
      await generateText({ model: openai.chat('gpt-4o-mini'), prompt, tools, telemetry: { isEnabled: true, recordInputs: record, recordOutputs: record } });
      span.end();
    },
  );
}
await provider.forceFlush();
const body = Buffer.from(JsonTraceSerializer.serializeRequest(spans.getFinishedSpans())).toString('utf8');
const res = await fetch(`${otlp.replace(/\/$/, '')}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
