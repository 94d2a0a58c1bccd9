// A command target in Node: reads the prompt on stdin, continues TRACEPARENT, asks the model once with
// the `openai` package (OpenInference-instrumented), exports its spans to OTEL_EXPORTER_OTLP_ENDPOINT,
// flushes, and prints the model's answer. SPAN_ID_FILE: also append "traceId spanId" of each span it
// emitted to that file (so a test can find the agent's own spans in what the run exports).
import { appendFileSync } from 'node:fs';
import { context, propagation } from '@opentelemetry/api';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import OpenAI from 'openai';

const idLog = {
  export(spans, done) {
    appendFileSync(process.env.SPAN_ID_FILE, spans.map((s) => `${s.spanContext().traceId} ${s.spanContext().spanId}\n`).join(''));
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const provider = new NodeTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter()), ...(process.env.SPAN_ID_FILE ? [new SimpleSpanProcessor(idLog)] : [])],
});
provider.register();
new OpenAIInstrumentation().manuallyInstrument(OpenAI);

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const prompt = Buffer.concat(chunks).toString('utf8') || process.env.RUNSPEC_PROMPT;
const input = JSON.parse(process.env.RUNSPEC_INPUT);
const cityArgs = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: cityArgs } },
  { type: 'function', function: { name: 'get_time', description: 'Local time of a city', parameters: cityArgs } },
];
const client = new OpenAI({ baseURL: input.vars.base_url, apiKey: 'sk-test-not-a-key', maxRetries: 0 });
const parent = propagation.extract(context.active(), { traceparent: process.env.TRACEPARENT });
const reply = await context.with(parent, () =>
  client.chat.completions.create({ model: 'fake-model', messages: [...input.messages, { role: 'user', content: prompt }], tools }),
);
await provider.shutdown();
process.stdout.write(reply.choices[0].message.content ?? '');
