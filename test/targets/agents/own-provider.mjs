// A module that registers its own global tracer provider at import, exporting over OTLP/HTTP to
// OTEL_EXPORTER_OTLP_ENDPOINT as read when the exporter is made, and flushing before it returns.
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { generateText, jsonSchema, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';

const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())] });
provider.register();

export default async function agent(input, ctx) {
  const openai = createOpenAI({ baseURL: String(input.vars.base_url), apiKey: 'sk-test-not-a-key' });
  const result = await generateText({
    model: openai.chat('fake-model'),
    prompt: input.prompt,
    tools: {
      get_weather: tool({
        description: 'Current weather of a city',
        inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } } }),
        execute: async (a) => ctx.mockTool('get_weather', a)?.result ?? 'n/a',
      }),
    },
    experimental_telemetry: { isEnabled: true },
  });
  await provider.forceFlush();
  return result.text;
}
