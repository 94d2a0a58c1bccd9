import { PROVIDER_PRESETS, resolveProviderSpec, toEnv, type ProviderSpec, type ResolveProviderOptions } from '../config/providers.js';
import { ConfigError } from '../errors.js';
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

/** Hosts of the hosted APIs whose presets need a key (a local or self-hosted base URL needs none). */
const HOSTED_API_HOSTS = new Set(Object.values(PROVIDER_PRESETS).flatMap((p) => (p.apiKeyEnv && p.baseUrl ? [new URL(p.baseUrl).hostname] : [])));

function isHostedApi(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    return HOSTED_API_HOSTS.has(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/** Build a provider from an already resolved spec. */
export function createProviderFromSpec(spec: ProviderSpec, opts: Pick<ResolveProviderOptions, 'env'> & { extra?: Partial<HttpProviderOptions> }): Provider {
  // --context-window applies to a scripted model too (a recording carries its own).
  if (spec.kind === 'mock')
    return {
      ...createMockProvider({ file: spec.script!, name: spec.name }),
      ...(spec.contextWindow !== undefined ? { contextWindow: spec.contextWindow } : {}),
    };
  if (spec.kind === 'replay') return createReplayProvider({ file: spec.script!, name: spec.name });
  const env = toEnv(opts.env);
  const apiKey = spec.apiKeyEnv ? env.get(spec.apiKeyEnv) : undefined;
  if (spec.apiKeyEnv && !apiKey && isHostedApi(spec.baseUrl)) {
    // Fail before any request: a hosted API without its key would answer 401 after the model lookup and retries.
    throw new ConfigError('CONFIG', `${spec.apiKeyEnv} is not set: provider "${spec.name}" talks to ${spec.baseUrl}, which needs an API key`, {
      hint: `export ${spec.apiKeyEnv}=..., or point --base-url at a local server (vLLM, Ollama, llama.cpp) that needs none`,
    });
  }
  const http: HttpProviderOptions = {
    name: spec.name,
    baseUrl: spec.baseUrl,
    model: spec.model,
    apiKey,
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
