// A module target: the team's agent as a function `(input, ctx) => output`, called in this process. Its
// own instrumentation (AI SDK telemetry, OpenInference, plain OpenTelemetry) emits through the global
// tracer provider the run registers, and the case's root span is the active context while it runs, so
// concurrent cases' spans stay apart. `.ts` files load through the optional `tsx` package.
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, UsageError } from '../../errors.js';
import type { Case } from '../../types/case.js';
import type { Toolset } from '../../types/toolset.js';
import { answerMock, mockRulesFor, newMockCounters } from '../tool-mocks.js';
import type { AgentContext, AgentInput, AgentTarget, TargetTracing } from './types.js';

/** The function a module target exports. */
export type AgentFunction = (input: AgentInput, ctx: AgentContext) => unknown;

export interface ModuleTargetOptions {
  name: string;
  /** Path as written in runspec.toml (relative to the project). */
  module: string;
  /** @default "default" */
  exportName?: string;
  projectDir: string;
  tracing: TargetTracing;
  defaults: AgentTarget['defaults'];
  quietMs: number;
  traceTimeoutMs: number;
  /** The run's environment, handed to the function as `ctx.env`. */
  env: Readonly<Record<string, string | undefined>>;
  /** The case's toolset, for `ctx.mockTool` (a case's own tool_mocks win). */
  toolsetFor?: (c: Case) => Toolset | undefined;
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts']);
// Computed, so the bundle does not need tsx and the type check does not need its types.
const TSX_API = 'tsx/esm/api';

/** Import the module file: .js/.mjs/.cjs natively, .ts through tsx's API when it is installed. */
async function importModule(file: string, where: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TS_EXTENSIONS.has(extname(file))) return (await import(url)) as Record<string, unknown>;
  let tsx: { tsImport(specifier: string, parent: string): Promise<unknown> };
  try {
    tsx = (await import(TSX_API)) as typeof tsx;
  } catch {
    throw new UsageError('USAGE', `${where}: a .ts module needs the optional package tsx`, {
      hint: 'npm install --save-dev tsx (or point module at the compiled .js file)',
    });
  }
  return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
}

/**
 * Load a module target's function.
 * @example const t = await openModuleTarget({ name: 'bot', module: 'agent.mjs', projectDir, tracing, defaults: {}, quietMs: 100, traceTimeoutMs: 30_000 });
 */
export async function openModuleTarget(o: ModuleTargetOptions): Promise<AgentTarget> {
  const where = `runspec.toml: targets.${o.name}.module`;
  const file = resolve(o.projectDir, o.module);
  if (!existsSync(file))
    throw new ConfigError('CONFIG', `${where}: ${o.module} does not exist (resolved to ${file})`, {
      hint: 'give the path of the module relative to the project',
    });
  const ext = extname(file);
  if (!['.js', '.mjs', '.cjs', ...TS_EXTENSIONS].includes(ext)) {
    throw new ConfigError('CONFIG', `${where}: expected a .js, .mjs, .cjs or .ts file (got ${ext || 'no extension'})`);
  }
  const mod = await importModule(file, where);
  const exportName = o.exportName ?? 'default';
  let fn = mod[exportName];
  // A CommonJS module's `module.exports = { agent }` arrives as the default export.
  if (typeof fn !== 'function' && exportName !== 'default' && typeof mod.default === 'object' && mod.default !== null)
    fn = (mod.default as Record<string, unknown>)[exportName];
  if (typeof fn !== 'function') {
    const names = Object.keys(mod).join(', ') || '(none)';
    throw new ConfigError('CONFIG', `${where}: ${o.module} exports no function "${exportName}" (exports: ${names})`, {
      hint: 'export default async function (input, ctx) { ... }, or set export = "NAME"',
    });
  }
  const agent = fn as AgentFunction;
  return {
    name: o.name,
    kind: 'module',
    defaults: o.defaults,
    quietMs: o.quietMs,
    traceTimeoutMs: o.traceTimeoutMs,
    async invoke({ case: c, sample, input, traceparent, signal }) {
      const counters = newMockCounters();
      const toolset = o.toolsetFor?.(c);
      const ctx: AgentContext = {
        signal,
        case: c,
        sample,
        tracer: o.tracing.tracer,
        tracerProvider: o.tracing.tracerProvider,
        traceparent,
        otlpEndpoint: o.tracing.otlpEndpoint,
        env: o.env,
        mockTool(name, args) {
          const rules = mockRulesFor(c, toolset ?? {}, name);
          if (!rules) return undefined;
          const { matched: _matched, ...result } = answerMock(rules, name, args, counters);
          return result;
        },
      };
      // The abort ends the wait even when the function ignores its signal.
      const output = await Promise.race([
        Promise.resolve().then(() => agent(input, ctx)),
        new Promise<never>((_resolve, reject) => {
          if (signal.aborted) reject(new Error('aborted'));
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      ]);
      return { output };
    },
  };
}
