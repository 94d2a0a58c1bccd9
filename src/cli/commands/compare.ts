import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../errors.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, ensureNewline, normaliseForLog, type RunFlags } from './_run-options.js';
import type { ExecuteResult, LoadedProject } from './_eval-run.js';
import { resultsPaths } from '../../report/results-file.js';
import type { ComparisonFormat } from '../../report/comparison.js';

/** The formats compare can print (report/comparison.ts COMPARISON_FORMATS; kept here so `run` loads no renderer up front). */
const COMPARISON_FORMATS: readonly ComparisonFormat[] = ['table', 'json', 'md'];

/** Split `p1,p2` into provider names (at least two, no duplicates). */
export function parseProviderList(spec: string, flag: string): string[] {
  const names = spec.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length < 2 || new Set(names).size !== names.length) {
    throw new UsageError('USAGE', `${flag}: expected two or more distinct providers separated by commas (got ${JSON.stringify(spec)})`, {
      hint: 'e.g. --compare ollama,openai',
    });
  }
  return names;
}

/** Worst exit code first: bad input, then infrastructure, then failures. */
function worstExit(codes: number[]): number {
  for (const c of [2, 3, 1]) if (codes.includes(c)) return c;
  return 0;
}

/**
 * Run the same cases once per provider (one after another, so they do not compete for a local
 * model), write one results file per provider, and print the side-by-side comparison.
 */
export async function compareProviders(ctx: CliContext, project: LoadedProject, providers: string[], targets: string[], flags: RunFlags): Promise<number> {
  // Checked before anything runs: a comparison is a table, JSON or Markdown, never a JUnit or HTML report.
  if (flags.output !== undefined && !(COMPARISON_FORMATS as readonly string[]).includes(flags.output)) {
    throw new UsageError('USAGE', `--output ${flags.output}: compare prints the side-by-side summary as ${COMPARISON_FORMATS.join(', ')}`, {
      hint: `each provider's results file is written anyway: render it with \`runspec-eval report RESULTS.json --output ${flags.output}\``,
    });
  }
  const { buildProvider, executeRun, exitCodeOf, loadToolsets, reportProblems, selectRunCases } = await import('./_eval-run.js');
  const { compareResults, renderComparison } = await import('../../report/index.js');
  const { cases, allIds } = await selectRunCases(ctx, project, targets, flags);
  if (cases.length === 0) {
    ctx.err('compare: no cases selected');
    return 2;
  }
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  // Build every provider before running any, so a typo in the second name fails before the first run.
  const built = providers.map((name) => ({ name, provider: buildProvider(ctx, project, name, flags) }));
  const runs: Array<{ label: string; r: ExecuteResult }> = [];
  for (const { name, provider } of built) {
    let finalFile: string | undefined;
    if (flags.out) {
      const base = resultsPaths({ projectDir: ctx.projectDir, runId: 'x', out: flags.out, cwd: ctx.cwd }).finalFile;
      finalFile = base.endsWith('.json') ? `${base.slice(0, -5)}.${safeLabel(name)}.json` : `${base}.${safeLabel(name)}.json`;
    }
    const r = await executeRun(ctx, {
      cases,
      allIds,
      provider,
      providerLabel: name,
      toolsets,
      flags: { ...flags, provider: name },
      project,
      storedOptions: normaliseForLog(ctx, targets, { ...flags, provider: name }),
      finalFile,
      suiteLabel: targets.join(',') || '(all)',
    });
    runs.push({ label: name, r });
    if (!r.interrupted) ctx.err(`results (${name}): ${r.finalFile}`);
    reportProblems(ctx, r);
    if (r.interrupted) break;
  }
  const format = (flags.output ?? 'table') as ComparisonFormat;
  const comparison = compareResults(runs.map(({ label, r }) => ({ label, doc: r.doc })));
  ctx.stdout.write(ensureNewline(renderComparison(comparison, format)));
  return worstExit(runs.map(({ r }) => exitCodeOf(r)));
}

function safeLabel(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export const compareCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('compare')
      .description('Run the same suite once per provider and compare pass rates')
      .argument('<providers>', 'two or more providers, comma-separated (e.g. ollama,openai)')
      .argument('[targets...]', 'suite names or fixture files (default: every discovered case)');
    addSelectionOptions(cmd);
    addModelOptions(cmd, { provider: false });
    addExecutionOptions(cmd, { out: 'results JSON file stem: one <stem>.<provider>.json per provider' });
    cmd.action(
      action(getContext, setExit, async (ctx, providers: string, targets: string[], flags: RunFlags, _c: Command) => {
        const { loadProject } = await import('./_eval-run.js');
        const project = loadProject(ctx);
        return compareProviders(ctx, project, parseProviderList(providers, 'compare'), targets, flags);
      }),
    );
  },
};
