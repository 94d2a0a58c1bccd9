import { redactUrl, redactUrlsInText } from '../../core/redact.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../errors.js';
import type { Setting } from '../../config/setting.js';

interface ConfigFlags {
  provider?: string;
  target?: string;
  output: 'table' | 'json';
}

type Row = { key: string; value: string; source: string };

/** Print what a run would use and where each value came from. Secret values are never printed. */
async function configAction(ctx: CliContext, flags: ConfigFlags): Promise<number> {
  // The config modules (zod, smol-toml) load when the command runs: `config --help` starts fast.
  const { readEnv } = await import('../../config/env.js');
  const { loadConfigFile } = await import('../../config/file.js');
  const { resolveProviderSpec } = await import('../../config/providers.js');
  const { resolveRunSettings, toolsetSpecOf } = await import('../../config/settings.js');
  const { resolveTelemetryConfig } = await import('../../config/telemetry.js');
  const env = readEnv(ctx.env);
  const file = join(ctx.projectDir, 'runspec.toml');
  const config = loadConfigFile(ctx.projectDir);
  const rows: Row[] = [];
  const add = (key: string, s: Setting<unknown> | { value: unknown; source: string }): void => {
    // URL settings may carry a password or an api-key query value: never printed.
    rows.push({ key, value: s.value === undefined ? '-' : redactUrlsInText(String(s.value)), source: s.source });
  };
  add('project', { value: ctx.projectDir, source: '--path' });
  add('config file', { value: existsSync(file) ? file : '(none)', source: '--path' });

  // The settings every run and scoring command resolves (a bad value throws here as it does there).
  const settings = resolveRunSettings({ flags: flags.provider ? { provider: flags.provider } : {}, env, file: config });
  const providerName = settings.provider;
  add('provider', providerName);
  const spec = resolveProviderSpec(providerName.value, { config, env, flags: {} });
  add('provider.kind', { value: spec.kind, source: 'default' });
  add('provider.base_url', { value: spec.baseUrl, source: spec.sources?.baseUrl ?? 'default' });
  add('provider.model', { value: spec.model ?? '(first of GET /models)', source: spec.sources?.model ?? 'default' });
  if (spec.apiKeyEnv) add('provider.api_key', { value: `${spec.apiKeyEnv} (${env.get(spec.apiKeyEnv) ? 'set' : 'not set'})`, source: 'env' });
  add('attempts', settings.attempts);
  add('max_response_bytes', settings.maxResponseBytes);
  add('trajectory.sandbox', settings.sandbox);
  add('trajectory.disk_budget_mode', settings.diskBudgetMode);
  add('tool_mode', settings.toolMode);
  add('concurrency', settings.concurrency);
  add('max_requests', settings.maxRequests);
  add('stop_after_errors', settings.stopAfterErrors);
  add('unreachable_after_ms', settings.unreachableAfterMs);
  const toolsetSource = settings.toolset.value === undefined ? 'default' : settings.toolset.source;
  add('toolset (runspec cases)', { value: toolsetSpecOf(settings.toolset, { dialect: 'runspec', mode: 'decision' }), source: toolsetSource });
  const trajectory = toolsetSpecOf(settings.toolset, { dialect: 'replio', mode: 'trajectory' });
  add('toolset (replio, turnstone)', { value: trajectory, source: trajectory === 'builtin:workspace' ? 'default' : toolsetSource });

  const t = resolveTelemetryConfig({ flags: {}, env, file: config.telemetry, projectDir: ctx.projectDir });
  add('telemetry.enabled', { value: t.enabled, source: t.sources.enabled });
  if (t.exporter.kind === 'otlp') {
    add('telemetry.endpoint', { value: t.exporter.url, source: t.sources.endpoint });
    add('telemetry.protocol', { value: t.exporter.protocol, source: t.sources.protocol });
    const headers = Object.keys(t.exporter.headers);
    // Header values are credentials (x-api-key, authorization): only their names are shown.
    add('telemetry.headers', { value: headers.length ? headers.map((h) => `${h}=***`).join(', ') : '(none)', source: 'env' });
  } else {
    add('telemetry.endpoint', { value: `(none: OTLP JSON lines under ${t.exporter.dir})`, source: t.sources.endpoint });
  }
  add('telemetry.capture_content', t.captureHashed ? { value: 'hashed', source: 'file' } : { value: t.captureContent, source: t.sources.captureContent });
  if (t.traceUrl !== undefined) add('telemetry.trace_url', { value: t.traceUrl, source: 'file' });
  add('telemetry.annotations', { value: t.annotations, source: t.sources.annotations });
  if (t.annotations && t.annotationsUrl) add('telemetry.annotations_url', { value: t.annotationsUrl, source: t.sources.annotationsUrl });
  add('telemetry.api_key', { value: `${t.apiKeyEnv} (${t.apiKey ? 'set' : 'not set'})`, source: 'env' });
  add('telemetry.service_name', { value: t.serviceName, source: t.sources.serviceName });
  if (t.project) add('telemetry.project', { value: t.project, source: t.sources.project });
  add('telemetry.timeout_ms', { value: t.timeoutMs, source: t.sources.timeoutMs });
  if (t.langsmith) {
    add('telemetry.langsmith.feedback', { value: true, source: t.langsmith.sources.feedback });
    add('telemetry.langsmith.endpoint', { value: t.langsmith.endpoint, source: t.langsmith.sources.endpoint });
    add('telemetry.langsmith.api_key', {
      value: `${config.telemetry?.langsmith?.api_key_env ?? 'LANGSMITH_API_KEY'} (${t.langsmith.apiKey ? 'set' : 'not set'})`,
      source: 'env',
    });
    add('telemetry.langsmith.max_wait_ms', { value: t.langsmith.maxWaitMs, source: t.langsmith.sources.maxWaitMs });
  }

  // What is under test: every [targets.NAME], and the one --target picks.
  for (const [name, t] of Object.entries(config.targets ?? {})) {
    const where =
      t.kind === 'model'
        ? `provider ${t.provider}${t.model ? ` model ${t.model}` : ''}`
        : t.kind === 'module'
          ? t.module
          : t.kind === 'http'
            ? redactUrl(t.url)
            : t.command.join(' ');
    add(`target.${name}`, { value: `${t.kind}: ${where}`, source: 'file' });
  }
  if (flags.target !== undefined) {
    const t = config.targets?.[flags.target];
    if (!t)
      throw new UsageError('USAGE', `--target ${flags.target}: no [targets.${flags.target}] in runspec.toml`, {
        hint: 'see `runspec-eval config` for the targets there are',
      });
    add('target', { value: `${flags.target} (${t.kind})`, source: 'flag' });
  }

  for (const w of env.warnings) ctx.warn(w);
  if (flags.output === 'json') {
    ctx.out(JSON.stringify(Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source }])), null, 2));
  } else {
    const width = Math.max(...rows.map((r) => r.key.length));
    for (const r of rows) ctx.out(`${r.key.padEnd(width)}  ${r.value}  (${r.source})`);
  }
  return 0;
}

export const configCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('config')
      .description('Print the resolved configuration and where each value came from (flag, env, file, default); secrets are never shown')
      .option('--provider <name>', 'resolve this provider preset or profile')
      .option('--target <name>', 'show which [targets.NAME] a run with --target would test')
      .option('--output <format>', 'table or json', 'table')
      .action(action(getContext, setExit, (ctx, flags: ConfigFlags) => configAction(ctx, flags)));
  },
};
