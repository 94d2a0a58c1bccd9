// A module target on the Vercel AI SDK 6: Chat Completions through openai.chat(model), telemetry on.
// The model's base URL comes from the case's vars (the target sets it).
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';

const cityArgs = jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false });

export default async function agent(input, ctx) {
  const openai = createOpenAI({ baseURL: String(input.vars.base_url), apiKey: 'sk-test-not-a-key' });
  const answer = (name) => async (args) => ctx.mockTool(name, args)?.result ?? `${name} is not mocked`;
  const result = await generateText({
    model: openai.chat('fake-model'),
    system: input.system,
    messages: [...input.messages, { role: 'user', content: input.prompt }],
    tools: {
      get_weather: tool({ description: 'Current weather of a city', inputSchema: cityArgs, execute: answer('get_weather') }),
      get_time: tool({ description: 'Local time of a city', inputSchema: cityArgs, execute: answer('get_time') }),
    },
    stopWhen: stepCountIs(3),
    abortSignal: ctx.signal,
    experimental_telemetry: { isEnabled: input.vars.telemetry !== 'off', functionId: 'weather-agent' },
  });
  return result.text;
}
