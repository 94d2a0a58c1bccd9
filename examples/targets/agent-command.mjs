// A command target: any program that reads the prompt on stdin and exports its OpenTelemetry spans to
// OTEL_EXPORTER_OTLP_ENDPOINT, continuing TRACEPARENT. RUNSPEC_INPUT holds the whole input as JSON.
import { context, propagation } from '@opentelemetry/api';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import OpenAI from 'openai';

const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())] });
provider.register();
new OpenAIInstrumentation().manuallyInstrument(OpenAI);

let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
const input = JSON.parse(process.env.RUNSPEC_INPUT);
const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL ?? process.env.RUNSPEC_BASE_URL });
const parent = propagation.extract(context.active(), { traceparent: process.env.TRACEPARENT });
const reply = await context.with(parent, () =>
  client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [...(input.system ? [{ role: 'system', content: input.system }] : []), ...input.messages, { role: 'user', content: prompt }],
    tools: [
      { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: city } },
      { type: 'function', function: { name: 'get_time', description: 'Local time of a city', parameters: city } },
    ],
  }),
);
// Export before exiting: the run reads the trace once it is quiet.
await provider.shutdown();
process.stdout.write(reply.choices[0].message.content ?? '');
