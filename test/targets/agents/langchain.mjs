// A module target on LangChain.js with the OpenInference LangChain instrumentation (manual in ESM).
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';

new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule);

const cityArgs = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: cityArgs } },
  { type: 'function', function: { name: 'get_time', description: 'Local time of a city', parameters: cityArgs } },
];
const asMessage = (m) => (m.role === 'system' ? new SystemMessage(m.content) : m.role === 'assistant' ? new AIMessage(m.content) : new HumanMessage(m.content));

export default async function agent(input, ctx) {
  const model = new ChatOpenAI({
    model: 'fake-model',
    apiKey: 'sk-test-not-a-key',
    configuration: { baseURL: String(input.vars.base_url) },
    maxRetries: 0,
  }).bindTools(tools);
  const messages = [...(input.system ? [new SystemMessage(input.system)] : []), ...input.messages.map(asMessage), new HumanMessage(input.prompt)];
  for (let turn = 0; turn < 3; turn++) {
    const reply = await model.invoke(messages, { signal: ctx.signal });
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content;
    for (const call of reply.tool_calls) {
      messages.push(new ToolMessage({ tool_call_id: call.id, content: ctx.mockTool(call.name, call.args)?.result ?? `${call.name} is not mocked` }));
    }
  }
  return '';
}
