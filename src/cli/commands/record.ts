import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, cwdPath, normaliseForLog, type RunFlags } from './_run-options.js';

type RecordFlags = Omit<RunFlags, 'out'> & { out: string; results?: string; merge?: boolean };

/** `record`: the live tier. A real run through the recording wrapper, gated on --threshold. */
export async function recordAction(ctx: CliContext, targets: string[], flags: RecordFlags): Promise<number> {
  const { buildProvider, executeRun, exitCodeOf, loadProject, loadToolsets, providerName, reportProblems, selectRunCases, writeRunReport } = await import('./_eval-run.js');
  const { createRecordingProvider } = await import('../../providers/recording.js');
  const project = loadProject(ctx);
  const { cases, allIds } = await selectRunCases(ctx, project, targets, flags);
  if (cases.length === 0) {
    ctx.err('record: no cases selected');
    return 2;
  }
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  const name = providerName(flags, project);
  const script = cwdPath(ctx, flags.out);
  if (!flags.merge && (flags.fixture || flags.tag || flags.shard)) {
    ctx.warn(`record: only the selected cases are recorded and ${flags.out} is replaced; pass --merge to keep the other cases' entries`);
  }
  const recorder = createRecordingProvider(buildProvider(ctx, project, name, flags), { file: script, merge: !!flags.merge });
  const runFlags: RunFlags = { ...flags, out: flags.results };
  const r = await executeRun(ctx, {
    cases,
    allIds,
    provider: recorder,
    providerLabel: name,
    toolsets,
    flags: runFlags,
    project,
    storedOptions: normaliseForLog(ctx, targets, runFlags),
    suiteLabel: targets.join(',') || '(all)',
  });
  // The recording is written even below the threshold: its diff is what a reviewer looks at.
  if (!r.interrupted) {
    await recorder.save();
    ctx.err(`recording: ${script}`);
    ctx.err(`results: ${r.finalFile}`);
  }
  writeRunReport(ctx, r, flags.output ?? 'table');
  reportProblems(ctx, r);
  return exitCodeOf(r);
}

export const recordCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('record')
      .description('Live tier: run against a real model, gate on --threshold, and write a replay recording')
      .argument('[targets...]', 'suite names or fixture files (default: every discovered case)');
    addSelectionOptions(cmd);
    addModelOptions(cmd);
    addExecutionOptions(cmd, { out: false, script: false });
    cmd
      .requiredOption('--out <script>', 'where to write the recording (JSON) for `replay --script`')
      .option('--results <file>', 'results JSON file (default .runspec/results/<run-id>.json)')
      .option('--merge', 'keep the entries of cases not recorded now (to re-record a few cases)')
      .addHelpText('after', '\nExit codes: 0 every case meets --threshold (default 1.0), 1 some case does not, 2 bad input, 3 provider failure.\n')
      .action(action(getContext, setExit, (ctx, targets: string[], flags: RecordFlags, _c: Command) => recordAction(ctx, targets, flags)));
  },
};
