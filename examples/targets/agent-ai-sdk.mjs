// A module target: export `(input, ctx) => output`. runspec-eval registers its tracer provider globally
// for the run, so the AI SDK's `experimental_telemetry` spans land under each case's root span.
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';

const city = jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });

export default async function agent(input, ctx) {
  const openai = createOpenAI({ baseURL: ctx.env.OPENAI_BASE_URL ?? ctx.env.RUNSPEC_BASE_URL, apiKey: ctx.env.OPENAI_API_KEY });
  // In a test, answer tool calls from the case's tool_mocks: nothing real executes.
  const mocked = (name) => async (args) => ctx.mockTool(name, args)?.result ?? `no data for ${name}`;
  const result = await generateText({
    model: openai.chat('gpt-4o-mini'),
    system: input.system,
    messages: [...input.messages, { role: 'user', content: input.prompt }],
    tools: {
      get_weather: tool({ description: 'Current weather of a city', inputSchema: city, execute: mocked('get_weather') }),
      get_time: tool({ description: 'Local time of a city', inputSchema: city, execute: mocked('get_time') }),
    },
    stopWhen: stepCountIs(4),
    abortSignal: ctx.signal,
    // Without this the SDK emits no spans, and every case is `unscorable`.
    experimental_telemetry: { isEnabled: true },
  });
  return result.text;
}
