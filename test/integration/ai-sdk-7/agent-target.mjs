// A module target on AI SDK 7 (Node >= 22): Chat Completions through openai.chat(model), its telemetry on
// through @ai-sdk/otel's default (GenAI) integration, which reports to the global tracer provider the run
// registers. The integration tier copies this file into the AI SDK 7 install (setup/ai-sdk-7.ts), so `ai`
// resolves there. The model's base URL comes from the case's vars.
import { writeFileSync } from 'node:fs';
import { generateText, jsonSchema, registerTelemetry, tool } from 'ai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { createOpenAI } from '@ai-sdk/openai';

registerTelemetry(new OpenTelemetry());

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
    abortSignal: ctx.signal,
    telemetry: { isEnabled: true, recordInputs: true, recordOutputs: true, functionId: 'weather-agent' },
  });
  // The Node version the CLI ran under, for the test to check.
  if (process.env.NODE_VERSION_FILE) writeFileSync(process.env.NODE_VERSION_FILE, process.versions.node);
  return result.text;
}
