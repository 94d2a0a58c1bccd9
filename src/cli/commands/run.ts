import type { Command } from 'commander';
import type { RunProgress } from '../../app/run-suite.js';
import { capHeapForLargeFiles, capHeapGrowth } from './_heap.js';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, suiteLabelOf, type RunFlags } from './_run-options.js';
import { parseProviderList } from './compare.js';

/** Options given explicitly on this command line (not defaults). */
function explicitFlags(cmd: Command, flags: RunFlags): RunFlags {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) if (cmd.getOptionValueSource(k) === 'cli') out[k] = v;
  return out as RunFlags;
}

/** `run`: the suite on one provider (or several with --compare). */
export async function runAction(ctx: CliContext, targets: string[], flagsIn: RunFlags, cmd: Command): Promise<number> {
  // On --resume the log header supplies the rest; only what was typed now overrides it.
  const flags = flagsIn.resume ? { ...explicitFlags(cmd, flagsIn), resume: flagsIn.resume } : flagsIn;
  const compare = flags.compare ? parseProviderList(flags.compare, '--compare') : undefined;
  return runTargets(ctx, targets, flags, { suiteLabel: suiteLabelOf(targets), ...(compare ? { compare } : {}) });
}

/** Samples from which a run trades a little time for memory (below it the heap stays small anyway). */
const LARGE_RUN_SAMPLES = 20_000;

/** The progress hooks, plus the cap once the number of samples is known (for discovered suites). */
function withHeapCap(progress: RunProgress | undefined): RunProgress {
  return {
    start(total, label) {
      if (total >= LARGE_RUN_SAMPLES) capHeapGrowth();
      progress?.start(total, label);
    },
    update: (done, caseId) => progress?.update(done, caseId),
    stop: () => progress?.stop(),
  };
}

/**
 * Run the targets' cases through `runEvalSuite`, print the report and return the exit code. `run` and
 * `schedule run` share it.
 */
export async function runTargets(ctx: CliContext, targets: string[], flags: RunFlags, opts: { suiteLabel: string; agentName?: string; compare?: string[] }): Promise<number> {
  // The engine, providers and telemetry load only when a command runs (start-up stays light).
  const { runEvalSuite } = await import('../../app/run-suite.js');
  const { printOutcome, progressBar, withInterrupt } = await import('./_run-io.js');
  capHeapForLargeFiles(ctx.cwd, targets);
  const progress = withHeapCap(progressBar(ctx));
  const outcome = await withInterrupt(ctx, (signal) =>
    runEvalSuite(ctx, {
      targets,
      flags,
      ...(flags.resume && targets.length === 0 ? {} : { suiteLabel: opts.suiteLabel }),
      ...(opts.agentName ? { agentName: opts.agentName } : {}),
      ...(opts.compare ? { compare: opts.compare } : {}),
      signal,
      ...(progress ? { progress } : {}),
    }),
  );
  return printOutcome(ctx, opts.compare ? 'compare' : 'run', outcome, flags.output);
}

export const runCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('run')
      .description('Run eval cases against a model and score them')
      .argument('[targets...]', 'suite names or fixture files (default: the project\'s own cases, or the bundled demo cases when it has none)');
    addSelectionOptions(cmd);
    addModelOptions(cmd);
    addExecutionOptions(cmd);
    cmd
      .option('--resume <log>', 'finish a crashed or interrupted run from its .jsonl log, skipping finished cases')
      .option('--compare <p1,p2>', 'run the suite once per provider and compare pass rates')
      .addHelpText(
        'after',
        '\nExit codes: 0 every case meets the threshold, 1 some case does not, 2 bad input or usage\n' +
          '(a stale recording too), 3 infrastructure: a case whose every sample errored, or an interrupted run\n' +
          '(Ctrl-C keeps finished cases in the .jsonl log; finish with --resume).\n',
      )
      .action(action(getContext, setExit, (ctx, targets: string[], flags: RunFlags, c: Command) => runAction(ctx, targets, flags, c)));
  },
};
