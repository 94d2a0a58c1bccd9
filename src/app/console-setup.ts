// What `ui` starts the console with: the Run tab's defaults as a plain `run` would resolve them (flag-less,
// from the environment and runspec.toml), the provider names to offer, and the trace link template.
import { readEnv } from '../config/env.js';
import { loadConfigFile } from '../config/file.js';
import { PROVIDER_PRESETS, resolveProviderSpec } from '../config/providers.js';
import { resolveRunSettings } from '../config/settings.js';
import { resolveTelemetryConfig } from '../config/telemetry.js';
import type { AppContext } from './context.js';

export interface ConsoleSetup {
  /** The Run tab's starting values: set only where the environment or runspec.toml names them. */
  defaults: { provider?: string; model?: string; telemetry: boolean };
  /** Profiles of runspec.toml, then the presets a user can run (mock and replay need a script). */
  providers: string[];
  /** [telemetry] trace_url (Phoenix / LangSmith link template). */
  traceUrl?: string;
}

/**
 * The console's setup through the same resolvers as `run` (config/settings.ts, config/providers.ts), so
 * the console starts where `run` would.
 * @example const { defaults } = consoleSetup(ctx); defaults.provider
 */
export function consoleSetup(ctx: Pick<AppContext, 'projectDir' | 'env'>): ConsoleSetup {
  const env = readEnv(ctx.env);
  const config = loadConfigFile(ctx.projectDir);
  const { enabled, traceUrl } = resolveTelemetryConfig({ flags: {}, env, file: config.telemetry, projectDir: ctx.projectDir });
  const defaults: ConsoleSetup['defaults'] = { telemetry: enabled };
  const provider = resolveRunSettings({ env, file: config }).provider;
  if (provider.source !== 'default') defaults.provider = provider.value;
  try {
    const spec = resolveProviderSpec(provider.source === 'default' ? undefined : provider.value, { config, env });
    if (spec.model !== undefined && spec.sources?.model !== 'default') defaults.model = spec.model;
  } catch {
    // A provider that does not resolve is reported when a run starts; the form just starts empty.
  }
  // The console reports its own warnings; these were for a run.
  env.warnings.length = 0;
  return {
    defaults,
    providers: [...Object.keys(config.providers ?? {}), ...Object.keys(PROVIDER_PRESETS).filter((p) => p !== 'mock' && p !== 'replay')],
    ...(traceUrl !== undefined ? { traceUrl } : {}),
  };
}
