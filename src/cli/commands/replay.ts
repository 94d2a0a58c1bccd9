import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { addExecutionOptions, addSelectionOptions, normaliseForLog, type RunFlags } from './_run-options.js';

/** `replay`: the keyless, deterministic tier. A stale recording (a tool or prompt changed) exits 2. */
export async function replayAction(ctx: CliContext, targets: string[], flags: RunFlags): Promise<number> {
  const { buildProvider, executeRun, exitCodeOf, loadProject, loadToolsets, reportProblems, selectRunCases, writeRunReport } = await import('./_eval-run.js');
  const project = loadProject(ctx);
  const { cases, allIds } = await selectRunCases(ctx, project, targets, flags);
  if (cases.length === 0) {
    ctx.err('replay: no cases selected');
    return 2;
  }
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  const provider = buildProvider(ctx, project, 'replay', flags);
  const r = await executeRun(ctx, {
    cases,
    allIds,
    provider,
    providerLabel: 'replay',
    toolsets,
    flags,
    project,
    storedOptions: normaliseForLog(ctx, targets, { ...flags, provider: 'replay' }),
    suiteLabel: targets.join(',') || '(all)',
  });
  writeRunReport(ctx, r, flags.output ?? 'table');
  if (!r.interrupted) ctx.err(`results: ${r.finalFile}`);
  reportProblems(ctx, r);
  return exitCodeOf(r);
}

export const replayCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('replay')
      .description('Replay tier: rerun cases from a recording, deterministic and keyless')
      .argument('[targets...]', 'suite names or fixture files (default: every discovered case)');
    addSelectionOptions(cmd);
    addExecutionOptions(cmd, { script: false });
    cmd
      .requiredOption('--script <file>', 'recording written by `runspec-eval record --out`')
      .addHelpText('after', '\nExit codes: 0 pass, 1 some case below --threshold, 2 bad input or a stale recording (re-record it), 3 interrupted.\n')
      .action(action(getContext, setExit, (ctx, targets: string[], flags: RunFlags, _c: Command) => replayAction(ctx, targets, flags)));
  },
};
