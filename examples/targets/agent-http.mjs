// An agent behind HTTP: POST /chat with { conversation: [...] } answers { answer, tool_calls }. Its spans
// (the `openai` package, instrumented by OpenInference) go to OTEL_EXPORTER_OTLP_ENDPOINT and continue the
// request's traceparent; it flushes them before it answers, so the run has the whole trace at once.
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4319 SERVICE_TOKEN=secret node agent-http.mjs
import { createServer } from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import OpenAI from 'openai';

const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())] });
provider.register();
new OpenAIInstrumentation().manuallyInstrument(OpenAI);

const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL });
const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: city } },
  { type: 'function', function: { name: 'get_time', description: 'Local time of a city', parameters: city } },
];

createServer(async (req, res) => {
  if (req.headers.authorization !== `Bearer ${process.env.SERVICE_TOKEN}`) return void res.writeHead(401).end();
  let body = '';
  for await (const chunk of req) body += chunk;
  const { conversation } = JSON.parse(body);
  const parent = propagation.extract(context.active(), req.headers);
  const reply = await context.with(parent, () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: conversation, tools }));
  await provider.forceFlush();
  const message = reply.choices[0].message;
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: message.content, tool_calls: message.tool_calls ?? [] }));
}).listen(8787, '127.0.0.1');
