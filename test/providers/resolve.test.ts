import { describe, expect, it } from 'vitest';
import { PROVIDER_PRESETS, resolveProviderSpec } from '../../src/config/providers.js';
import { readEnv } from '../../src/config/env.js';
import { ConfigError } from '../../src/errors.js';
import { resolveProvider } from '../../src/app/provider.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';

describe('provider presets and profiles', () => {
  it.each([
    { name: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', kind: 'openai' },
    { name: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY', kind: 'anthropic' },
    { name: 'ollama', baseUrl: 'http://localhost:11434/v1', apiKeyEnv: undefined, kind: 'openai' },
    { name: 'vllm', baseUrl: 'http://localhost:8000/v1', apiKeyEnv: undefined, kind: 'openai' },
  ])('resolves the $name preset', ({ name, baseUrl, apiKeyEnv, kind }) => {
    const spec = resolveProviderSpec(name, { config: {}, env: {} });
    expect(spec).toMatchObject({ name, kind, baseUrl });
    expect(spec.apiKeyEnv).toBe(apiKeyEnv);
  });

  it('resolves a [providers.NAME] profile with its key variable', () => {
    const config = {
      providers: { local: { kind: 'openai' as const, base_url: 'http://127.0.0.1:8080/v1', model: 'llama', api_key_env: 'LOCAL_KEY', temperature: 0.2 } },
    };
    expect(resolveProviderSpec('local', { config, env: {} })).toMatchObject({
      name: 'local',
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:8080/v1',
      model: 'llama',
      apiKeyEnv: 'LOCAL_KEY',
      temperature: 0.2,
    });
  });

  it('applies flag > env > profile > [llm] > preset', () => {
    const config = { llm: { provider: 'vllm', model: 'from-llm', temperature: 0.1, retries: 5 } };
    expect(resolveProviderSpec('vllm', { config, env: {} })).toMatchObject({ model: 'from-llm', temperature: 0.1, retries: 5 });
    expect(resolveProviderSpec('vllm', { config, env: { RUNSPEC_MODEL: 'from-env' } }).model).toBe('from-env');
    expect(resolveProviderSpec('vllm', { config, env: readEnv({ RUNSPEC_MODEL: 'from-env' }), flags: { model: 'from-flag' } }).model).toBe('from-flag');
    // [llm] model belongs to the [llm] provider only, so --compare vllm,ollama does not send it to ollama
    expect(resolveProviderSpec('ollama', { config, env: {} }).model).toBeUndefined();
    expect(resolveProviderSpec('ollama', { config, env: {} }).temperature).toBe(0.1);
    expect(resolveProviderSpec(undefined, { config, env: {} }).name).toBe('vllm');
    expect(resolveProviderSpec(undefined, { config, env: { RUNSPEC_PROVIDER: 'ollama' } }).name).toBe('ollama');
  });

  it('takes reasoning effort and context window from flag > profile > [llm], and leaves them unset otherwise', () => {
    const config = {
      llm: { reasoning_effort: 'high' as const, context_window: 1000 },
      providers: { think: { kind: 'anthropic' as const, base_url: 'http://127.0.0.1:1', reasoning_effort: 'low' as const, context_window: 500 } },
    };
    expect(resolveProviderSpec('think', { config, env: {} })).toMatchObject({ reasoningEffort: 'low', contextWindow: 500 });
    expect(resolveProviderSpec('think', { config, env: {}, flags: { reasoningEffort: 'medium', contextWindow: 200 } })).toMatchObject({
      reasoningEffort: 'medium',
      contextWindow: 200,
    });
    expect(resolveProviderSpec('vllm', { config, env: {} })).toMatchObject({ reasoningEffort: 'high', contextWindow: 1000 });
    const bare = resolveProviderSpec('vllm', { config: {}, env: {} });
    expect(bare.reasoningEffort).toBeUndefined();
    expect(bare.maxTokens).toBeUndefined();
  });

  it('rejects an unknown provider naming the known ones', () => {
    expect(() => resolveProviderSpec('olama', { config: {}, env: {} })).toThrow(ConfigError);
    expect(() => resolveProviderSpec('olama', { config: {}, env: {} })).toThrow(/unknown provider "olama".*ollama/);
  });

  it('asks for a script for mock and replay, and takes mock:FILE', () => {
    expect(() => resolveProviderSpec('mock', { config: {}, env: {} })).toThrow(/needs a mock script/);
    expect(resolveProviderSpec('mock:examples/mock-script.json', { config: {}, env: {}, projectDir: '/p' }).script).toBe('/p/examples/mock-script.json');
    expect(Object.keys(PROVIDER_PRESETS)).toEqual(['openai', 'anthropic', 'ollama', 'vllm', 'mock', 'replay']);
  });

  it('sends the key from the variable the profile names, and only that one', async () => {
    const server = await startFakeOpenAI({});
    try {
      const config = { providers: { local: { kind: 'openai' as const, base_url: server.url, model: 'm', api_key_env: 'LOCAL_KEY' } } };
      const p = resolveProvider('local', { config, env: { LOCAL_KEY: 'sk-local-1234', OPENAI_API_KEY: 'sk-wrong' }, flags: {} });
      await p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
      await p.close();
      expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-local-1234');
      const anon = resolveProvider('vllm', { config: {}, env: { OPENAI_API_KEY: 'sk-wrong' }, flags: { baseUrl: server.url, model: 'm' } });
      await anon.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
      await anon.close();
      expect(server.requests[1]!.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('builds a mock provider from mock:FILE', async () => {
    const p = resolveProvider('mock:examples/mock-script.json', { config: {}, env: {}, flags: {}, projectDir: REPO_ROOT });
    expect(p.system).toBe('mock');
    const res = await p.chat({ messages: [{ role: 'user', content: 'x' }], tools: [], key: { caseId: 'read-file-lines', sample: 0, turn: 1 } });
    expect(res.text).toContain('4 lines');
  });
});
