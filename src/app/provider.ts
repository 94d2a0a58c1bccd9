import { resolveProviderSpec, toEnv, type ProviderSpec, type ResolveProviderOptions } from '../config/providers.js';
import { createAnthropicProvider } from '../providers/anthropic.js';
import { createMockProvider } from '../providers/mock.js';
import { createOpenAIProvider } from '../providers/openai.js';
import { createReplayProvider } from '../providers/recording.js';
import type { HttpProviderOptions, Provider } from '../providers/types.js';

/**
 * Build the provider a name stands for: a preset (openai, anthropic, ollama, vllm, mock:FILE,
 * replay:FILE) or a `[providers.NAME]` profile. The API key is read from the variable the preset or
 * profile names, and nowhere else.
 * @example resolveProvider('ollama', { config, env: process.env, flags: { model: 'qwen3:8b' } })
 */
export function resolveProvider(name: string | undefined, opts: ResolveProviderOptions & { extra?: Partial<HttpProviderOptions> }): Provider {
  const spec = resolveProviderSpec(name, opts);
  return createProviderFromSpec(spec, opts);
}

/** Build a provider from an already resolved spec. */
export function createProviderFromSpec(spec: ProviderSpec, opts: Pick<ResolveProviderOptions, 'env'> & { extra?: Partial<HttpProviderOptions> }): Provider {
  if (spec.kind === 'mock') return createMockProvider({ file: spec.script!, name: spec.name });
  if (spec.kind === 'replay') return createReplayProvider({ file: spec.script!, name: spec.name });
  const env = toEnv(opts.env);
  const http: HttpProviderOptions = {
    name: spec.name,
    baseUrl: spec.baseUrl,
    model: spec.model,
    apiKey: spec.apiKeyEnv ? env.get(spec.apiKeyEnv) : undefined,
    apiKeyEnv: spec.apiKeyEnv,
    temperature: spec.temperature,
    maxTokens: spec.maxTokens,
    reasoningEffort: spec.reasoningEffort,
    contextWindow: spec.contextWindow,
    timeoutMs: spec.timeoutMs,
    retries: spec.retries,
    ...opts.extra,
  };
  return spec.kind === 'anthropic' ? createAnthropicProvider(http) : createOpenAIProvider(http);
}
