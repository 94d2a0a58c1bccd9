import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { addExecutionOptions, addSelectionOptions, type RunFlags } from './_run-options.js';

/** `replay`: the keyless, deterministic tier. A stale recording (a tool or prompt changed) exits 2. */
export async function replayAction(ctx: CliContext, targets: string[], flags: RunFlags): Promise<number> {
  const { runEvalSuite } = await import('../../app/run-suite.js');
  const { printOutcome, progressBar, withInterrupt } = await import('./_run-io.js');
  const progress = await progressBar(ctx);
  const outcome = await withInterrupt(ctx, (signal) =>
    runEvalSuite(ctx, { targets, flags: { ...flags, provider: 'replay' }, signal, ...(progress ? { progress } : {}) }),
  );
  return printOutcome(ctx, 'replay', outcome, flags.output);
}

export const replayCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('replay')
      .description('Replay tier: rerun cases from a recording, deterministic and keyless')
      .argument('[targets...]', "suite names or fixture files (default: the project's own cases, or the bundled demo cases when it has none)");
    addSelectionOptions(cmd);
    addExecutionOptions(cmd, { script: false });
    cmd
      .requiredOption('--script <file>', 'recording written by `runspec-eval record --out`')
      .addHelpText('after', '\nExit codes: 0 pass, 1 some case below --threshold, 2 bad input or a stale recording (re-record it), 3 interrupted.\n')
      .action(action(getContext, setExit, (ctx, targets: string[], flags: RunFlags, _c: Command) => replayAction(ctx, targets, flags)));
  },
};
