import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.js';
import { createAnthropicProvider } from '../../src/providers/anthropic.js';
import type { Provider } from '../../src/providers/types.js';
import type { Message } from '../../src/types/run.js';
import type { ToolDefinition } from '../../src/types/toolset.js';
import { startFakeAnthropic, type FakeModelServer } from '../helpers/fake-anthropic.js';

const TOOLS: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];
const SECRET = 'sk-ant-test-secret-42';

let servers: FakeModelServer[] = [];
let providers: Provider[] = [];
afterEach(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  providers = [];
});

async function setup(opts: Parameters<typeof startFakeAnthropic>[0], popts: Parameters<typeof createAnthropicProvider>[0] = {}) {
  const server = await startFakeAnthropic(opts);
  servers.push(server);
  const provider = createAnthropicProvider({
    baseUrl: server.url,
    model: 'claude-fake',
    apiKey: SECRET,
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    retryBaseMs: 5,
    ...popts,
  });
  providers.push(provider);
  return { server, provider };
}

describe('anthropic provider', () => {
  it('sends tools as input_schema, the system prompt top-level, and the key as x-api-key', async () => {
    const { server, provider } = await setup({ toolCall: { id: 'toolu_1', name: 'read_file', arguments: { path: 'a.py' } } });
    const res = await provider.chat({
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'read a.py' },
      ],
      tools: TOOLS,
    });
    const req = server.chatRequests()[0]!;
    expect(req.headers['x-api-key']).toBe(SECRET);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.json).toEqual({
      model: 'claude-fake',
      temperature: 0.7,
      max_tokens: 4096,
      system: 'You are a coding agent.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'read a.py' }] }],
      tools: [{ name: 'read_file', description: 'Read a file', input_schema: TOOLS[0]!.parameters }],
    });
    expect(res.toolCalls).toEqual([{ id: 'toolu_1', name: 'read_file', arguments: { path: 'a.py' } }]);
    expect(res.finishReason).toBe('tool_use');
    expect(res.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(res.params).toEqual({ temperature: 0.7, max_tokens: 4096 });
    expect(res.responseId).toBe('msg_0');
  });

  it('feeds parallel tool results back as tool_result blocks in one user message with matching ids', async () => {
    const { server, provider } = await setup({});
    const messages: Message[] = [
      { role: 'user', content: 'read both' },
      {
        role: 'assistant',
        content: 'Reading.',
        toolCalls: [
          { id: 'toolu_a', name: 'read_file', arguments: { path: 'a' } },
          { id: 'toolu_b', name: 'read_file', arguments: { path: 'b' } },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', name: 'read_file', content: 'A' },
      { role: 'tool', toolCallId: 'toolu_b', name: 'read_file', content: 'B' },
    ];
    const res = await provider.chat({ messages, tools: TOOLS });
    expect(server.chatRequests()[0]!.json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'B' },
        ],
      },
    ]);
    expect(res.text).toBe('done');
    expect(res.finishReason).toBe('end_turn');
  });

  it('takes the model from GET /v1/models when none is named', async () => {
    const server = await startFakeAnthropic({ models: ['claude-listed'] });
    servers.push(server);
    const provider = createAnthropicProvider({ baseUrl: `${server.url}/v1` });
    providers.push(provider);
    await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/messages']);
    expect(server.chatRequests()[0]!.json.model).toBe('claude-listed');
  });

  it('retries 529 overloaded and then answers', async () => {
    const { server, provider } = await setup({
      respond: (_r, i) => (i === 0 ? { status: 529, body: { type: 'error', error: { type: 'overloaded_error' } } } : undefined),
    });
    const res = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS });
    expect(res.text).toBe('done');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('fails fast on 401 with a hint naming the variable, never the key', async () => {
    const { server, provider } = await setup({ respond: () => ({ status: 401, body: { type: 'error', error: { message: `invalid x-api-key ${SECRET}` } } }) });
    const err = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS }).catch((e: unknown) => e as ProviderError);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('PROVIDER_AUTH');
    expect((err as ProviderError).hint).toContain('ANTHROPIC_API_KEY');
    expect((err as ProviderError).message).not.toContain(SECRET);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('reports a body without content[] as PROVIDER_RESPONSE', async () => {
    const { provider } = await setup({ respond: () => ({ status: 200, body: { choices: [] } }) });
    const err = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS }).catch((e: unknown) => e as ProviderError);
    expect((err as ProviderError).code).toBe('PROVIDER_RESPONSE');
  });
});
