// A small agent server for http-target tests: the `openai` package instrumented by OpenInference, its
// spans exported to OTEL_EXPORTER_OTLP_ENDPOINT and flushed before it answers. It continues the
// caller's traceparent, asks the model once with two tools and answers with the model's tool calls.
// Prints its URL on stdout. Requires AGENT_TOKEN as a bearer token when set (the template sends it).
import { createServer } from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import OpenAI from 'openai';

// NO_EXPORT=1: an agent that emits no trace (the run then reads calls from the response).
const provider = new NodeTracerProvider({ spanProcessors: process.env.NO_EXPORT ? [] : [new SimpleSpanProcessor(new OTLPTraceExporter())] });
provider.register();
new OpenAIInstrumentation().manuallyInstrument(OpenAI);

const client = new OpenAI({ baseURL: process.env.MODEL_URL, apiKey: 'sk-test-not-a-key', maxRetries: 0 });
const cityArgs = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: cityArgs } },
  { type: 'function', function: { name: 'get_time', description: 'Local time of a city', parameters: cityArgs } },
];

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  if (process.env.AGENT_TOKEN && req.headers.authorization !== `Bearer ${process.env.AGENT_TOKEN}`) {
    res.writeHead(401).end();
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const parent = propagation.extract(context.active(), req.headers);
  try {
    const reply = await context.with(parent, () => client.chat.completions.create({ model: 'fake-model', messages: body.messages, tools }));
    await provider.forceFlush();
    const message = reply.choices[0].message;
    const out = { answer: message.content, tool_calls: message.tool_calls };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/chat`));
