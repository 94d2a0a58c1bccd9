import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { readEnv, type Env, type EnvSource } from './env.js';
import type { ConfigFile } from './file.js';
import { firstSet, type Source } from './setting.js';
import { attemptsSetting } from './settings.js';
import type { ReasoningEffort } from '../core/vocabulary.js';

// Provider presets and [providers.NAME] profiles → one plain ProviderSpec. The spec names the
// environment variable of the key, never the key; providers/resolve.ts turns a spec into a Provider.

export type ProviderKind = 'openai' | 'anthropic' | 'mock' | 'replay';

export interface ProviderPreset {
  kind: ProviderKind;
  baseUrl?: string;
  /** Environment variable holding the API key. */
  apiKeyEnv?: string;
  description: string;
}

/** Built-in presets: `--provider ollama`, `--compare ollama,openai`. */
export const PROVIDER_PRESETS: Readonly<Record<string, ProviderPreset>> = {
  openai: { kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', description: 'OpenAI Chat Completions (OPENAI_API_KEY)' },
  anthropic: { kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY', description: 'Anthropic Messages (ANTHROPIC_API_KEY)' },
  ollama: { kind: 'openai', baseUrl: 'http://localhost:11434/v1', description: "Ollama's OpenAI-compatible API on localhost:11434" },
  vllm: { kind: 'openai', baseUrl: 'http://localhost:8000/v1', description: 'vLLM (or any OpenAI-compatible server) on localhost:8000' },
  mock: { kind: 'mock', description: 'scripted answers from a JSON script (mock:FILE)' },
  replay: { kind: 'replay', description: 'answers from a recording (replay:FILE)' },
};

/** Everything needed to build one provider. */
export interface ProviderSpec {
  /** Display name: the preset or profile name. */
  name: string;
  kind: ProviderKind;
  baseUrl?: string;
  model?: string;
  /** Name of the variable holding the key (the value is read only when the provider is built). */
  apiKeyEnv?: string;
  /** mock: the script file; replay: the recording (absolute path). */
  script?: string;
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: ReasoningEffort;
  contextWindow?: number;
  timeoutMs?: number;
  retries?: number;
  /** Where the base URL and the model came from (flag, env, file, default), for `config`. */
  sources?: { baseUrl: Source; model: Source };
}

/** Values from command-line flags; they win over everything else. */
export type ProviderFlags = Pick<
  ProviderSpec,
  'model' | 'baseUrl' | 'temperature' | 'maxTokens' | 'reasoningEffort' | 'contextWindow' | 'timeoutMs' | 'retries'
>;

export interface ResolveProviderOptions {
  config: ConfigFile;
  /** process.env-like object or an Env from readEnv. */
  env: EnvSource | Env;
  flags?: ProviderFlags;
  /** Base for relative script paths. @default the current directory */
  projectDir?: string;
}

export function toEnv(env: EnvSource | Env): Env {
  return typeof (env as Env).get === 'function' && 'warnings' in env ? (env as Env) : readEnv(env as EnvSource);
}

/**
 * Resolve a provider name into a spec. The name is a preset, a `[providers.NAME]` profile, or
 * `mock:FILE` / `replay:FILE`; without one: RUNSPEC_PROVIDER, then [llm] provider, then `openai`.
 * Precedence per value: flag > environment (RUNSPEC_MODEL, RUNSPEC_BASE_URL) > profile > [llm] > preset.
 * [llm] model and base_url apply only to the provider [llm] names (so `--compare ollama,openai` does
 * not send one provider's model to the other); its sampling settings apply to every provider.
 * @example resolveProviderSpec('ollama', { config, env: process.env }).baseUrl === 'http://localhost:11434/v1'
 */
export function resolveProviderSpec(name: string | undefined, opts: ResolveProviderOptions): ProviderSpec {
  const env = toEnv(opts.env);
  const llm = opts.config.llm ?? {};
  const flags = opts.flags ?? {};
  const requested = firstSet(name?.trim() || undefined, env.get('RUNSPEC_PROVIDER'), llm.provider, 'openai').value;
  const colon = requested.indexOf(':');
  const prefix = colon > 0 ? requested.slice(0, colon) : requested;
  const inlineScript = colon > 0 && (prefix === 'mock' || prefix === 'replay') ? requested.slice(colon + 1) : undefined;
  const base = inlineScript !== undefined ? prefix : requested;

  const profile = opts.config.providers?.[base];
  const preset = profile ? PROVIDER_PRESETS[profile.kind] : PROVIDER_PRESETS[base];
  if (!preset) {
    const known = [...Object.keys(PROVIDER_PRESETS), ...Object.keys(opts.config.providers ?? {})].join(', ');
    throw new ConfigError('CONFIG', `unknown provider "${base}": expected a preset or a [providers.${base}] profile in runspec.toml (known: ${known})`, {
      hint: `add [providers.${base}] with kind = "openai" and base_url = "..." to runspec.toml, or use one of: ${known}`,
    });
  }
  const kind = profile?.kind ?? preset.kind;
  const llmApplies = llm.provider === undefined ? name === undefined : llm.provider === base;
  // A profile with its own base_url is a different server: the preset's key variable does not follow it.
  const apiKeyEnv = profile ? (profile.api_key_env ?? (profile.base_url ? undefined : preset.apiKeyEnv)) : preset.apiKeyEnv;
  const scriptPath = inlineScript ?? profile?.script;

  const baseUrl = firstSet(flags.baseUrl, env.url('RUNSPEC_BASE_URL'), profile?.base_url ?? (llmApplies ? llm.base_url : undefined), preset.baseUrl);
  const model = firstSet(flags.model, env.get('RUNSPEC_MODEL'), profile?.model ?? (llmApplies ? llm.model : undefined), undefined);
  const spec: ProviderSpec = {
    name: base,
    kind,
    baseUrl: baseUrl.value,
    model: model.value,
    sources: { baseUrl: baseUrl.source, model: model.source },
    apiKeyEnv,
    script: scriptPath ? (isAbsolute(scriptPath) ? scriptPath : resolve(opts.projectDir ?? '.', scriptPath)) : undefined,
    temperature: firstSet(flags.temperature, undefined, profile?.temperature ?? llm.temperature, undefined).value,
    maxTokens: firstSet(flags.maxTokens, undefined, profile?.max_tokens ?? llm.max_tokens, undefined).value,
    // Sent only when set (a flag or [llm]): reasoning_effort on a non-reasoning model is a 400.
    reasoningEffort: firstSet(flags.reasoningEffort, undefined, profile?.reasoning_effort ?? llm.reasoning_effort, undefined).value,
    contextWindow: firstSet(flags.contextWindow, undefined, profile?.context_window ?? llm.context_window, undefined).value,
    timeoutMs: firstSet(flags.timeoutMs, env.int('RUNSPEC_TIMEOUT_MS'), profile?.timeout_ms ?? llm.timeout_ms, undefined).value,
    retries: attemptsSetting(flags.retries, opts.config).value,
  };
  if ((kind === 'mock' || kind === 'replay') && !spec.script) {
    const what = kind === 'mock' ? 'a mock script' : 'a recording';
    throw new ConfigError('CONFIG', `provider "${base}" needs ${what}: none given`, {
      hint: `use --provider ${kind}:FILE, or set script = "FILE" on a [providers.NAME] profile with kind = "${kind}"`,
    });
  }
  return spec;
}
