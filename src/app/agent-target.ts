// `--target NAME`: the named target of runspec.toml, opened for one run. A `model` target is a provider
// with its own model, toolset and system prompt (our agent loop); an agent target (module, http, command)
// brings its own loop, and the run scores the spans it emits (engine/targets/).
import { resolve } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { didYouMean } from '../core/did-you-mean.js';
import type { ConfigFile } from '../config/file.js';
import type { AgentTargetConfig, TargetConfig } from '../config/targets.js';
import type { Case } from '../types/case.js';
import type { Toolset } from '../types/toolset.js';
import type { Provider } from '../providers/types.js';
import { scoreAgentRun } from '../engine/targets/score.js';
import { openModuleTarget } from '../engine/targets/module.js';
import { openHttpTarget } from '../engine/targets/http.js';
import { openCommandTarget } from '../engine/targets/command.js';
import type { AgentTarget } from '../engine/targets/types.js';
import type { CaseTelemetrySink, RunCaseFn, SuiteScoring } from '../engine/suite-runner.js';
import type { CapturedTrace } from '../telemetry/agent-trace.js';
import type { Telemetry as RunTelemetry } from '../telemetry/telemetry.js';
import { aggregateCase } from '../scoring/samples.js';
import type { AgentTracing } from './agent-tracing.js';
import type { AppContext } from './context.js';

/** @default 500 */
export const DEFAULT_QUIET_MS = 500;
/** @default 30000 */
export const DEFAULT_TRACE_TIMEOUT_MS = 30_000;

/** The target named by `--target`, from `[targets.NAME]`; a name that is not there is a usage error. */
export function targetConfigOf(config: ConfigFile, name: string): TargetConfig {
  const t = config.targets?.[name];
  if (t) return t;
  const names = Object.keys(config.targets ?? {});
  throw new UsageError(
    'USAGE',
    `--target ${name}: no [targets.${name}] in runspec.toml${names.length ? ` (targets: ${names.join(', ')})` : ''}${didYouMean(name, names)}`,
    {
      hint: 'add [targets.NAME] with kind = "model", "module", "http" or "command" (docs/targets.md)',
    },
  );
}

export function isAgentTarget(t: TargetConfig): t is AgentTargetConfig {
  return t.kind !== 'model';
}

/** An agent target opened for a run: what the suite runner needs in place of a provider. */
export interface OpenedAgentTarget {
  name: string;
  kind: AgentTarget['kind'];
  target: AgentTarget;
  runCase: RunCaseFn;
  scoring: SuiteScoring;
  /** Stands in for the provider (results meta, labels); never asked to chat. */
  provider: Provider;
  otlpEndpoint: string;
  /** Keep each case's collected spans for telemetry (agentTelemetrySink takes them). */
  keepCaptured(): void;
  /** A case's collected spans, once. */
  takeCaptured(traceId: string): CapturedTrace['spans'] | undefined;
  close(): Promise<void>;
}

/**
 * The suite runner's telemetry sink on an agent target: each case's own trace (the agent's spans as they
 * arrived, our case root carrying the verdict), not a re-rendered Run. A sample without collected spans
 * (none kept, or the telemetry has no agent export) is rendered as on a model target.
 */
export function agentTelemetrySink(telemetry: RunTelemetry, agent: Pick<OpenedAgentTarget, 'takeCaptured'>): CaseTelemetrySink {
  return {
    emitCase(input) {
      const ids = input.run.agent ? input.run.trace : undefined;
      const spans = ids?.rootSpanId !== undefined ? agent.takeCaptured(ids.traceId) : undefined;
      if (!ids?.rootSpanId || !spans || !telemetry.emitAgentCase) return telemetry.emitCase(input);
      return telemetry.emitAgentCase(input, { traceId: ids.traceId, rootSpanId: ids.rootSpanId, spans });
    },
  };
}

export interface OpenAgentOptions {
  name: string;
  config: AgentTargetConfig;
  cases: readonly Case[];
  /** Flags: `--quiet-ms`, `--trace-timeout` (ms). */
  quietMs?: number;
  traceTimeoutMs?: number;
  toolsetFor?: (c: Case) => Toolset | undefined;
}

/**
 * Open an agent target: start the run's span collection, load the module (or read the template), check
 * every case, and build the per-sample function. Status lines (the receiver's address) go to `ctx.err`.
 */
export async function openAgentTarget(ctx: Pick<AppContext, 'projectDir' | 'env' | 'err' | 'warn'>, o: OpenAgentOptions): Promise<OpenedAgentTarget> {
  const cfg = o.config;
  const quietMs = o.quietMs ?? cfg.quiet_ms ?? DEFAULT_QUIET_MS;
  const traceTimeoutMs = o.traceTimeoutMs ?? cfg.trace_timeout_ms ?? DEFAULT_TRACE_TIMEOUT_MS;
  const defaults: AgentTarget['defaults'] = {};
  if (cfg.system !== undefined) defaults.system = cfg.system;
  if (cfg.vars !== undefined) defaults.vars = cfg.vars;
  // The OpenTelemetry SDK and API load only when an agent target runs (the package root and a run on a
  // model stay without them).
  const { startAgentTracing } = await import('./agent-tracing.js');
  const { agentRunCase } = await import('../engine/targets/run.js');
  const tracing: AgentTracing = await startAgentTracing(cfg.receiver_port !== undefined ? { port: cfg.receiver_port } : {});
  try {
    const target = await openKind(ctx, o, tracing, { defaults, quietMs, traceTimeoutMs });
    target.prepare?.(o.cases);
    const runCase = agentRunCase(target, tracing, { timeoutMs: cfg.timeout_ms });
    const scoring: SuiteScoring = {
      // Agents bring their own tools: calls are checked against a toolset only when the target names one.
      scoreRun: (c, run, opts) => scoreAgentRun(c, run, cfg.toolset ? opts : { validateArgs: false }),
      aggregateCase,
    };
    const provider: Provider = {
      name: o.name,
      system: cfg.kind,
      chat: () => Promise.reject(new Error(`target ${o.name} is a ${cfg.kind} target: it has no chat model`)),
      close: async () => {},
    };
    return {
      name: o.name,
      kind: cfg.kind,
      target,
      runCase,
      scoring,
      provider,
      otlpEndpoint: tracing.otlpEndpoint,
      keepCaptured: () => tracing.keepCaptured(),
      takeCaptured: (traceId) => tracing.takeCaptured(traceId),
      async close() {
        await target.close?.();
        await tracing.close();
      },
    };
  } catch (err) {
    await tracing.close();
    throw err;
  }
}

async function openKind(
  ctx: Pick<AppContext, 'projectDir' | 'env' | 'err' | 'warn'>,
  o: OpenAgentOptions,
  tracing: AgentTracing,
  common: { defaults: AgentTarget['defaults']; quietMs: number; traceTimeoutMs: number },
): Promise<AgentTarget> {
  const cfg = o.config;
  const receiverLine = `target ${o.name} (${cfg.kind}): the run receives the agent's traces at OTEL_EXPORTER_OTLP_ENDPOINT=${tracing.otlpEndpoint}`;
  switch (cfg.kind) {
    case 'module': {
      // The run's provider is registered before the module loads: instrumentation that takes its tracer at
      // import (AI SDK 7's registerTelemetry(new OpenTelemetry())) gets the run's, even through another copy
      // of @opentelemetry/api (a proxy tracer of another copy is never handed the provider registered later).
      const registered = tracing.registerGlobals();
      // Exporters read OTEL_EXPORTER_OTLP_ENDPOINT when they are made, which for a module that registers
      // its own provider is at import: the variable points at the run's receiver for that moment only.
      const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, traces: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT };
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = tracing.otlpEndpoint;
      delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      let opened: { value: AgentTarget; ownProvider: boolean; diagErrors: string[] };
      try {
        opened = await tracing.watchRegistrations(() =>
          openModuleTarget({
            name: o.name,
            module: cfg.module,
            ...(cfg.export !== undefined ? { exportName: cfg.export } : {}),
            projectDir: ctx.projectDir,
            env: ctx.env,
            tracing,
            ...common,
            ...(o.toolsetFor ? { toolsetFor: o.toolsetFor } : {}),
          }),
        );
      } finally {
        restoreEnv('OTEL_EXPORTER_OTLP_ENDPOINT', saved.endpoint);
        restoreEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', saved.traces);
      }
      for (const e of opened.diagErrors) ctx.warn(`target ${o.name} (module): OpenTelemetry diag error while importing the module: ${e}`);
      if (!registered) {
        ctx.err(
          `target ${o.name} (module): a global tracer provider was registered before the run's; the module's spans reach the run only if it exports them to ${tracing.otlpEndpoint} (ctx.otlpEndpoint) and flushes before it returns`,
        );
      } else if (opened.ownProvider) {
        ctx.err(
          `target ${o.name} (module): the module registers its own global tracer provider; the run's stays registered, so what its instrumentation records through the global API is captured in process, and spans of its own provider reach the run only if it exports them to ${tracing.otlpEndpoint} (OTEL_EXPORTER_OTLP_ENDPOINT while it was imported, or ctx.otlpEndpoint) and flushes before it returns`,
        );
      }
      return opened.value;
    }
    case 'http':
      ctx.err(receiverLine);
      return openHttpTarget({
        name: o.name,
        url: cfg.url,
        ...(cfg.template !== undefined ? { template: cfg.template } : {}),
        ...(cfg.response_tool_calls !== undefined ? { responseToolCalls: cfg.response_tool_calls } : {}),
        ...(cfg.max_response_bytes !== undefined ? { maxResponseBytes: cfg.max_response_bytes } : {}),
        ...(cfg.timeout_ms !== undefined ? { timeoutMs: cfg.timeout_ms } : {}),
        tls: {
          ...(cfg.ca_file !== undefined ? { caFile: resolve(ctx.projectDir, cfg.ca_file) } : {}),
          ...(cfg.cert_file !== undefined ? { certFile: resolve(ctx.projectDir, cfg.cert_file) } : {}),
          ...(cfg.key_file !== undefined ? { keyFile: resolve(ctx.projectDir, cfg.key_file) } : {}),
        },
        projectDir: ctx.projectDir,
        env: ctx.env,
        ...common,
      });
    case 'command':
      ctx.err(receiverLine);
      return openCommandTarget({
        name: o.name,
        command: cfg.command,
        ...(cfg.prompt !== undefined ? { prompt: cfg.prompt } : {}),
        ...(cfg.prompt_env !== undefined ? { promptEnv: cfg.prompt_env } : {}),
        ...(cfg.cwd !== undefined ? { cwd: cfg.cwd } : {}),
        projectDir: ctx.projectDir,
        env: ctx.env,
        otlpEndpoint: tracing.otlpEndpoint,
        ...common,
      });
    default:
      throw new ConfigError('CONFIG', `runspec.toml: targets.${o.name}.kind: unknown kind`);
  }
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
