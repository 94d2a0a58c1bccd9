import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderError } from '../../src/errors.js';
import { createOpenAIProvider, openAIParams } from '../../src/providers/openai.js';
import type { Provider, RetryInfo } from '../../src/providers/types.js';
import type { Message } from '../../src/types/run.js';
import type { ToolDefinition } from '../../src/types/toolset.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';

// The provider's retry waits (node:timers/promises in the HTTP client) are recorded and return at once: a
// Retry-After of 1 s is asserted as the wait asked for, not slept through. Signals still cancel.
const waits = vi.hoisted(() => [] as number[]);
vi.mock('node:timers/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:timers/promises')>();
  return {
    ...real,
    setTimeout: <T>(ms?: number, value?: T, opts?: { signal?: AbortSignal }): Promise<T | undefined> => {
      waits.push(ms ?? 0);
      return opts?.signal?.aborted ? Promise.reject(opts.signal.reason) : Promise.resolve(value);
    },
  };
});

const TOOLS: ToolDefinition[] = [
  {
    name: 'service_status',
    description: 'Show a service status',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  { name: 'service_restart', description: 'Restart a service', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
];
const USER: Message[] = [{ role: 'user', content: 'is nginx up?' }];
const SECRET = 'sk-test-secret-123456';

let servers: FakeModelServer[] = [];
let providers: Provider[] = [];
afterEach(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  providers = [];
});

async function setup(opts: Parameters<typeof startFakeOpenAI>[0], popts: Parameters<typeof createOpenAIProvider>[0] = {}) {
  const server = await startFakeOpenAI(opts);
  servers.push(server);
  const provider = createOpenAIProvider({ baseUrl: server.url, model: 'fake-model', apiKey: SECRET, apiKeyEnv: 'OPENAI_API_KEY', retryBaseMs: 5, ...popts });
  providers.push(provider);
  return { server, provider };
}

async function chatError(p: Provider, messages = USER, signal?: AbortSignal): Promise<ProviderError> {
  try {
    await p.chat({ messages, tools: TOOLS, signal });
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected chat to fail');
}

describe('openai provider: the wire', () => {
  it('sends the tool schemas, model, default temperature and bearer key, and parses a tool call', async () => {
    const { server, provider } = await setup({ toolCall: { id: 'call_1', name: 'service_status', arguments: { name: 'nginx' } } });
    const res = await provider.chat({ messages: USER, tools: TOOLS });
    const body = server.chatRequests()[0]!.json;
    expect(body.model).toBe('fake-model');
    expect(body.temperature).toBe(0.7);
    expect(body.stream).toBe(false);
    expect(body.tool_choice).toBe('auto');
    expect(body.tools).toEqual(TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
    expect(body.messages).toEqual([{ role: 'user', content: 'is nginx up?' }]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(res.toolCalls).toEqual([{ id: 'call_1', name: 'service_status', arguments: { name: 'nginx' } }]);
    expect(res.finishReason).toBe('tool_calls');
    expect(res.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(res.params).toEqual({ temperature: 0.7 });
    expect(res.requestModel).toBe('fake-model');
    expect(res.responseModel).toBe('fake-model');
    expect(res.responseId).toBe('chatcmpl-0');
    expect(res.serverAddress).toBe('127.0.0.1');
    expect(res.serverPort).toBe(Number(new URL(server.url).port));
  });

  it('feeds tool results back with the ids of the calls they answer', async () => {
    const { server, provider } = await setup({});
    const messages: Message[] = [
      { role: 'system', content: 'be brief' },
      ...USER,
      {
        role: 'assistant',
        toolCalls: [
          { id: 'call_a', name: 'service_status', arguments: { name: 'nginx' } },
          { id: 'call_b', name: 'service_status', arguments: { _raw: '{"name": ' } },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', name: 'service_status', content: 'active' },
      { role: 'tool', toolCallId: 'call_b', name: 'service_status', content: 'Error: bad arguments' },
    ];
    const res = await provider.chat({ messages, tools: TOOLS, maxTokens: 64, temperature: 0, reasoningEffort: 'low' });
    const body = server.chatRequests()[0]!.json;
    expect(body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'is nginx up?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'service_status', arguments: '{"name":"nginx"}' } },
          // unparseable arguments go back exactly as the model wrote them
          { id: 'call_b', type: 'function', function: { name: 'service_status', arguments: '{"name": ' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'active' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: bad arguments' },
    ]);
    expect(body).toMatchObject({ temperature: 0, max_tokens: 64, reasoning_effort: 'low' });
    expect(res.params).toEqual({ temperature: 0, max_tokens: 64, reasoning_effort: 'low' });
    expect(res.text).toBe('done');
  });

  it('parses parallel tool calls, keeps unparseable arguments as _raw, and falls back to prompt + completion', async () => {
    const { provider } = await setup({
      respond: () => ({
        toolCalls: [
          { id: 'c1', name: 'service_status', arguments: { name: 'a' } },
          { id: 'c2', name: 'service_status', arguments: { name: 'b' } },
          { id: 'c3', name: 'service_restart', arguments: 'not json{' },
        ],
        usage: { prompt: 7, completion: 3 },
      }),
    });
    const res = await provider.chat({ messages: USER, tools: TOOLS });
    expect(res.toolCalls.map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
    expect(res.toolCalls[2]!.arguments).toEqual({ _raw: 'not json{' });
    expect(res.usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
  });

  it('takes the first model of GET /models when none is named, once', async () => {
    const server = await startFakeOpenAI({ models: ['qwen-7b', 'other'] });
    servers.push(server);
    const provider = createOpenAIProvider({ baseUrl: server.url });
    providers.push(provider);
    expect(provider.model).toBeUndefined();
    await provider.chat({ messages: USER, tools: [] });
    await provider.chat({ messages: USER, tools: [] });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/chat/completions']);
    expect(server.chatRequests()[0]!.json.model).toBe('qwen-7b');
    expect(server.chatRequests()[0]!.json.tools).toBeUndefined();
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(provider.model).toBe('qwen-7b');
  });
});

describe('openai provider: parameters', () => {
  it('sends turnstone defaults to local servers and what OpenAI reasoning models accept to api.openai.com', () => {
    expect(openAIParams({ maxTokens: 100 }, {}, false)).toEqual({ temperature: 0.7, max_tokens: 100 });
    expect(openAIParams({ maxTokens: 100 }, { reasoningEffort: 'high' }, true)).toEqual({ max_completion_tokens: 100, reasoning_effort: 'high' });
    expect(openAIParams({}, { temperature: 0.2 }, true)).toEqual({ temperature: 0.2 });
  });
});

describe('openai provider: faults', () => {
  it('retries a 429 after the Retry-After seconds', async () => {
    const retries: RetryInfo[] = [];
    waits.length = 0;
    const { server, provider } = await setup(
      { respond: (_req, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined) },
      { onRetry: (r) => retries.push(r) },
    );
    const res = await provider.chat({ messages: USER, tools: TOOLS });
    expect(res.text).toBe('done');
    expect(server.chatRequests()).toHaveLength(2);
    expect(retries).toEqual([{ attempt: 1, delayMs: 1000, reason: 'HTTP 429' }]);
    expect(waits.at(-1)).toBe(1000);
  });

  it('caps a Retry-After date far in the future', async () => {
    const retries: RetryInfo[] = [];
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    const { provider } = await setup(
      { respond: (_req, i) => (i === 0 ? { status: 503, headers: { 'retry-after': later } } : undefined) },
      { onRetry: (r) => retries.push(r), maxRetryDelayMs: 20 },
    );
    await provider.chat({ messages: USER, tools: TOOLS });
    expect(retries).toEqual([{ attempt: 1, delayMs: 20, reason: 'HTTP 503' }]);
  });

  it('gives up on a persistent 500 after 3 attempts with PROVIDER', async () => {
    const { server, provider } = await setup({ respond: () => ({ status: 500, body: { error: { message: 'boom' } } }) });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER');
    expect(err.status).toBe(500);
    expect(err.message).toContain('answered 500 after 3 attempts');
    expect(err.message).toContain('boom');
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('makes a single attempt with retries = 1', async () => {
    const { server, provider } = await setup({ respond: () => ({ status: 502 }) }, { retries: 1 });
    expect((await chatError(provider)).code).toBe('PROVIDER');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('retries a connection reset and succeeds', async () => {
    const { server, provider } = await setup({ respond: (_req, i) => (i === 0 ? { fault: 'reset' } : undefined) });
    const res = await provider.chat({ messages: USER, tools: TOOLS });
    expect(res.text).toBe('done');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('reports a connection that keeps resetting as PROVIDER', async () => {
    const { server, provider } = await setup({ respond: () => ({ fault: 'reset' }) });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER');
    expect(err.message).toContain('connection failed');
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('reports an unreachable server as PROVIDER with a hint', async () => {
    const server = await startFakeOpenAI();
    const url = server.url;
    await server.close();
    const provider = createOpenAIProvider({ baseUrl: url, model: 'm', retries: 2, retryBaseMs: 1 });
    providers.push(provider);
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER');
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.hint).toContain('--base-url');
  });

  it.each([
    { name: 'before the headers', afterHeaders: false },
    { name: 'in the middle of the body', afterHeaders: true },
  ])('times out a response that hangs $name', async ({ afterHeaders }) => {
    const { server, provider } = await setup({ respond: () => ({ fault: 'hang', afterHeaders }) }, { timeoutMs: 150, retries: 2 });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER_TIMEOUT');
    expect(err.message).toContain('no response within 150 ms (2 attempts)');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('turns a malformed body into PROVIDER_RESPONSE with a snippet, without retrying', async () => {
    const { server, provider } = await setup({ respond: () => ({ fault: 'malformed', body: '<html>gateway error</html>' }) });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER_RESPONSE');
    expect(err.message).toContain('<html>gateway error</html>');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('turns JSON of the wrong shape into PROVIDER_RESPONSE', async () => {
    const { provider } = await setup({ respond: () => ({ status: 200, body: { result: 'hello' } }) });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER_RESPONSE');
    expect(err.message).toContain('no choices[0].message');
  });

  it.each([{ status: 401 }, { status: 403 }])('fails fast on $status without printing the key', async ({ status }) => {
    const { server, provider } = await setup({
      respond: () => ({ status, body: { error: { message: `Incorrect API key provided: ${SECRET}` } } }),
    });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER_AUTH');
    expect(err.message).toContain(`answered ${status}`);
    expect(err.hint).toContain('OPENAI_API_KEY');
    expect(`${err.message} ${err.hint}`).not.toContain(SECRET);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('does not retry a 400', async () => {
    const { server, provider } = await setup({ respond: () => ({ status: 400, body: { error: { message: 'bad tool schema' } } }) });
    const err = await chatError(provider);
    expect(err.code).toBe('PROVIDER');
    expect(err.message).toContain('bad tool schema');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('cancels a hanging request when the signal aborts', async () => {
    const { provider } = await setup({ respond: () => ({ fault: 'hang' }) }, { timeoutMs: 20_000 });
    const ctl = new AbortController();
    const pending = chatError(provider, USER, ctl.signal);
    setTimeout(() => ctl.abort(), 50);
    expect((await pending).code).toBe('CANCELLED');
  });

  it('aborts every request in flight on a shared signal, and leaves no listener on a signal once its requests end', async () => {
    const { provider } = await setup({ respond: (_req, i) => (i < 2 ? { text: 'ok' } : { fault: 'hang' }) }, { timeoutMs: 20_000, retries: 1 });
    const done = new AbortController();
    await Promise.all([
      provider.chat({ messages: USER, tools: TOOLS, signal: done.signal }),
      provider.chat({ messages: USER, tools: TOOLS, signal: done.signal }),
    ]);
    expect(getEventListeners(done.signal, 'abort')).toHaveLength(0);
    const ctl = new AbortController();
    const pending = [chatError(provider, USER, ctl.signal), chatError(provider, USER, ctl.signal)];
    setTimeout(() => ctl.abort(), 50);
    expect((await Promise.all(pending)).map((e) => e.code)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('keeps at most maxConcurrent requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const { provider } = await setup(
      {
        respond: async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, 20));
          inFlight--;
          return undefined;
        },
      },
      { maxConcurrent: 2 },
    );
    await Promise.all(Array.from({ length: 6 }, () => provider.chat({ messages: USER, tools: TOOLS })));
    expect(peak).toBe(2);
  });
});
