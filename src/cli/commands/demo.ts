import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { RunspecError } from '../../errors.js';
import type { Toolset } from '../../types/toolset.js';
import { PACKAGE_ROOT } from '../../core/package-root.js';
import { ensureNewline, OUTPUT_FORMATS, type OutputFormat } from './_run-options.js';

export { PACKAGE_ROOT };
/** The bundled recording the demo replays (made by scripts/record-demo.mjs). */
export const DEMO_RECORDING = join(PACKAGE_ROOT, 'fixtures', 'recordings', 'demo.json');
/** Bundled suites the demo runs, one folder per dialect. */
const DEMO_DIRS = ['runspec', 'replio', 'turnstone'];

/** The bundled fixture files of the demo, in a stable order. */
export function demoFixtureFiles(root = PACKAGE_ROOT): string[] {
  const files: string[] = [];
  for (const dir of DEMO_DIRS) {
    const abs = join(root, 'fixtures', dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) continue;
    for (const name of readdirSync(abs).sort()) if (/\.(toml|json)$/.test(name)) files.push(join(abs, name));
  }
  return files;
}

/**
 * `demo`: the bundled suites on the replay provider with the bundled recording. No key, no network;
 * traces go to the embedded default (.runspec/traces/). The recording holds deliberate wrong answers
 * so the report shows failing verdicts; the demo prints "demo: N of M cases pass" and exits 0, since
 * failing cases are what it demonstrates. A stale recording still exits 2 and infrastructure trouble 3.
 */
export async function demoAction(ctx: CliContext, flags: { output?: string; telemetry?: boolean }): Promise<number> {
  const output = (flags.output ?? 'table') as OutputFormat;
  if (!(OUTPUT_FORMATS as readonly string[]).includes(output)) {
    throw new RunspecError('USAGE', `demo --output: expected one of ${OUTPUT_FORMATS.join(', ')} (got ${JSON.stringify(flags.output)})`);
  }
  const { executeRun, loadProject } = await import('../../app/run-suite.js');
  const { renderDocument } = await import('../../report/render.js');
  const { progressBar, reportProblems, withInterrupt } = await import('./_run-io.js');
  const { loadCasesFromPaths } = await import('../../fixtures/discover.js');
  const { loadToolset } = await import('../../toolset/load.js');
  const { createReplayProvider } = await import('../../providers/recording.js');
  const loaded = loadProject(ctx);
  // The recording matches only the bundled setup: keep the project's telemetry settings, ignore the
  // rest of its runspec.toml (toolset, tool mode, system prompt) so the demo never reads as stale.
  const project = { env: loaded.env, config: { telemetry: loaded.config.telemetry } };
  const cases = loadCasesFromPaths(demoFixtureFiles()).flatMap((s) => s.cases);
  const bySpec = new Map<string, Toolset>();
  for (const spec of ['builtin:fleet', 'builtin:workspace']) bySpec.set(spec, await loadToolset(spec, { projectDir: PACKAGE_ROOT, env: loaded.env.raw }));
  const toolsets = new Map(cases.map((c) => [c.id, bySpec.get(c.dialect === 'runspec' ? 'builtin:fleet' : 'builtin:workspace')!]));
  const provider = createReplayProvider({ file: DEMO_RECORDING });
  const progress = await progressBar(ctx);
  const r = await withInterrupt(ctx, (signal) =>
    executeRun(ctx, {
      cases,
      allIds: cases.map((c) => c.id),
      provider,
      providerLabel: 'replay',
      toolsets,
      // Concurrency 1 keeps the demo's trace file in case order.
      flags: { concurrency: 1, toolMode: 'dedup', output, telemetry: flags.telemetry },
      project,
      storedOptions: { demo: true },
      suiteLabel: 'bundled (demo)',
      agentName: 'runspec-eval-demo',
      telemetry: flags.telemetry ?? true,
      signal,
      ...(progress ? { progress } : {}),
    }),
  );
  ctx.stdout.write(ensureNewline(renderDocument(r.doc, output)));
  reportProblems(ctx, r);
  if (r.badInput) {
    ctx.err('hint: a bundled fixture, toolset or engine prompt changed since the demo was recorded; run `npm run demo:record`');
    return 2;
  }
  if (r.interrupted || r.infraFailed.length > 0) return 3;
  const passing = r.results.filter((c) => c.meetsThreshold).length;
  ctx.err(`demo: ${passing} of ${r.results.length} cases pass (the failing ones are deliberate)`);
  ctx.err(`results: ${r.finalFile}`);
  if (r.traces?.kind === 'file')
    ctx.err(
      `traces: ${r.traces.dir} (OTLP JSON lines, one trace per case; score them back with \`runspec-eval score ${relativeOrAbsolute(ctx.cwd, r.traces.dir)}\`)`,
    );
  else if (r.traces) ctx.err(`traces: sent to ${r.traces.url} (OTLP)`);
  else ctx.err('traces: none written (--no-telemetry)');
  return 0;
}

export const demoCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('demo')
      .description('Run the bundled suites on the embedded replay provider (no key, no network)')
      .option('--output <format>', `report format: ${OUTPUT_FORMATS.join(', ')}`)
      .option('--no-telemetry', 'write no traces')
      .addHelpText('after', '\nExit codes: 0 the demo ran (some cases fail on purpose), 2 the bundled recording is stale, 3 infrastructure.\n')
      .action(action(getContext, setExit, (ctx, flags: { output?: string; telemetry?: boolean }) => demoAction(ctx, flags)));
  },
};

/** `dir` relative to `cwd` when it lies below it (shorter to copy), else as is. */
function relativeOrAbsolute(cwd: string, dir: string): string {
  const rel = relative(cwd, dir);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : dir;
}
