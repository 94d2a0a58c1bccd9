import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, type RunFlags } from './_run-options.js';

type RecordFlags = Omit<RunFlags, 'out'> & { out: string; results?: string; merge?: boolean };

/** `record`: the live tier. A real run through the recording wrapper, gated on --threshold. */
export async function recordAction(ctx: CliContext, targets: string[], flags: RecordFlags): Promise<number> {
  const { runEvalSuite } = await import('../../app/run-suite.js');
  const { printOutcome, progressBar, withInterrupt } = await import('./_run-io.js');
  const { out: script, results, merge, ...rest } = flags;
  // Checked before the run: the recording is written at its end (under /proc a recursive mkdir used to spin).
  const { ensureOutputDir } = await import('../../report/out-path.js');
  ensureOutputDir(resolve(ctx.cwd, script), '--out');
  const runFlags: RunFlags = { ...rest, ...(results ? { out: results } : {}) };
  const progress = await progressBar(ctx);
  const outcome = await withInterrupt(ctx, (signal) =>
    runEvalSuite(ctx, { targets, flags: runFlags, record: { file: script, merge: !!merge }, signal, ...(progress ? { progress } : {}) }),
  );
  return printOutcome(ctx, 'record', outcome, flags.output);
}

export const recordCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('record')
      .description('Live tier: run against a real model, gate on --threshold, and write a replay recording')
      .argument('[targets...]', "suite names or fixture files (default: the project's own cases, or the bundled demo cases when it has none)");
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
