import { redactUrlsInText } from '../../core/redact-url.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { readEnv } from '../../config/env.js';
import { loadConfigFile } from '../../config/file.js';
import { resolveProviderSpec } from '../../config/providers.js';
import { firstSet, type Setting } from '../../config/setting.js';
import { resolveTelemetryConfig } from '../../config/telemetry.js';

interface ConfigFlags {
  provider?: string;
  output: 'table' | 'json';
}

type Row = { key: string; value: string; source: string };

/** Print what a run would use and where each value came from. Secret values are never printed. */
function configAction(ctx: CliContext, flags: ConfigFlags): number {
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

  const providerName = firstSet(flags.provider, env.get('RUNSPEC_PROVIDER'), config.llm?.provider, 'openai');
  add('provider', providerName);
  const spec = resolveProviderSpec(providerName.value, { config, env, flags: {} });
  add('provider.kind', { value: spec.kind, source: 'default' });
  const profile = config.providers?.[providerName.value];
  const llm = config.llm?.provider === providerName.value || config.llm?.provider === undefined ? config.llm : undefined;
  const sourceOf = (envName: string, fromFile: unknown): string => (env.get(envName) ? 'env' : fromFile !== undefined ? 'file' : 'default');
  add('provider.base_url', { value: spec.baseUrl, source: sourceOf('RUNSPEC_BASE_URL', profile?.base_url ?? llm?.base_url) });
  add('provider.model', { value: spec.model ?? '(first of GET /models)', source: sourceOf('RUNSPEC_MODEL', profile?.model ?? llm?.model) });
  if (spec.apiKeyEnv) add('provider.api_key', { value: `${spec.apiKeyEnv} (${env.get(spec.apiKeyEnv) ? 'set' : 'not set'})`, source: 'env' });
  add('tool_mode', firstSet(undefined, env.get('RUNSPEC_TOOL_MODE'), config.llm?.tool_mode, 'dedup'));
  add('concurrency', firstSet(undefined, env.int('RUNSPEC_CONCURRENCY'), config.llm?.concurrency, 4));
  add('max_requests', firstSet(undefined, env.int('RUNSPEC_MAX_REQUESTS'), config.llm?.max_requests, 8));
  const toolsetFile = config.toolset?.file ?? (config.toolset?.mcp ? `mcp:${config.toolset.mcp}` : undefined);
  add('toolset (runspec cases)', firstSet(undefined, env.get('RUNSPEC_TOOLSET'), toolsetFile, 'builtin:fleet'));
  add('toolset (replio, turnstone)', { value: 'builtin:workspace', source: 'default' });

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
  if (t.annotations && t.annotationsUrl) add('telemetry.annotations_url', { value: t.annotationsUrl, source: config.telemetry?.annotations_url ? 'file' : 'default' });
  add('telemetry.api_key', { value: `${t.apiKeyEnv} (${t.apiKey ? 'set' : 'not set'})`, source: 'env' });
  add('telemetry.service_name', { value: t.serviceName, source: ctx.env.OTEL_SERVICE_NAME ? 'env' : 'default' });
  if (t.project) add('telemetry.project', { value: t.project, source: 'file' });
  add('telemetry.timeout_ms', { value: t.timeoutMs, source: t.sources.timeoutMs });
  if (t.langsmith) {
    add('telemetry.langsmith.feedback', { value: true, source: 'file' });
    add('telemetry.langsmith.endpoint', { value: t.langsmith.endpoint, source: ctx.env.LANGSMITH_ENDPOINT ? 'env' : config.telemetry?.langsmith?.endpoint ? 'file' : 'default' });
    add('telemetry.langsmith.api_key', { value: `${config.telemetry?.langsmith?.api_key_env ?? 'LANGSMITH_API_KEY'} (${t.langsmith.apiKey ? 'set' : 'not set'})`, source: 'env' });
    add('telemetry.langsmith.max_wait_ms', { value: t.langsmith.maxWaitMs, source: config.telemetry?.langsmith?.max_wait_ms ? 'file' : 'default' });
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
      .option('--output <format>', 'table or json', 'table')
      .action(action(getContext, setExit, (ctx, flags: ConfigFlags) => configAction(ctx, flags)));
  },
};
