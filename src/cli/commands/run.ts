import type { Command } from 'commander';
import type { RunProgress } from '../../app/run-suite.js';
import { RUN_HEAP_GROWING_PERCENT, capHeapForLargeFiles, capHeapGrowth } from './_heap.js';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, suiteLabelOf, type RunFlags } from './_run-options.js';
import { parseProviderList } from './compare.js';
import { cwdPath } from './_run-options.js';
import { UsageError } from '../../errors.js';
import { parseFailOn } from '../../report/fail-on.js';

/** Options given explicitly on this command line (not defaults). */
function explicitFlags(cmd: Command, flags: RunFlags): RunFlags {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) if (cmd.getOptionValueSource(k) === 'cli') out[k] = v;
  return out as RunFlags;
}

/** `run`: the suite on one provider (or several with --compare). */
export async function runAction(ctx: CliContext, targets: string[], flagsAll: RunFlags & BaselineFlags, cmd: Command): Promise<number> {
  const { baseline, failOn = 'any', ...flagsIn } = flagsAll;
  if (baseline !== undefined && flagsIn.compare)
    throw new UsageError('USAGE', '--baseline: cannot be combined with --compare', {
      hint: "diff each provider's results file with `runspec-eval diff BASE HEAD`",
    });
  const failWhen = parseFailOn(failOn, '--fail-on');
  // On --resume the log header supplies the rest; only what was typed now overrides it.
  const flags = flagsIn.resume ? { ...explicitFlags(cmd, flagsIn), resume: flagsIn.resume } : flagsIn;
  const compare = flags.compare ? parseProviderList(flags.compare, '--compare') : undefined;
  const finished: { file?: string } = {};
  const code = await runTargets(ctx, targets, flags, { suiteLabel: suiteLabelOf(targets), ...(compare ? { compare } : {}), finished });
  if (baseline === undefined || finished.file === undefined) return code;
  // The diff goes to stderr: stdout keeps the report (which may be JSON a pipe reads).
  const { diffResultFiles } = await import('../../app/diff.js');
  const { renderDiff } = await import('../../report/diff.js');
  const { diff, exitCode } = diffResultFiles({ base: cwdPath(ctx, baseline), head: finished.file, failOn: failWhen });
  ctx.err(renderDiff(diff, 'table').trimEnd());
  return code === 0 ? exitCode : code;
}

interface BaselineFlags {
  baseline?: string;
  failOn?: string;
}

/** Samples from which a run trades a little time for memory (below it the heap stays small anyway). */
const LARGE_RUN_SAMPLES = 20_000;

/** The progress hooks, plus the cap once the number of samples is known (for discovered suites). */
function withHeapCap(progress: RunProgress | undefined): RunProgress {
  return {
    start(total, label) {
      if (total >= LARGE_RUN_SAMPLES) capHeapGrowth(RUN_HEAP_GROWING_PERCENT);
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
export async function runTargets(
  ctx: CliContext,
  targets: string[],
  flags: RunFlags,
  opts: { suiteLabel: string; agentName?: string; compare?: string[]; finished?: { file?: string } },
): Promise<number> {
  // The engine, providers and telemetry load only when a command runs (start-up stays light).
  const { runEvalSuite } = await import('../../app/run-suite.js');
  const { printOutcome, progressBar, withInterrupt } = await import('./_run-io.js');
  capHeapForLargeFiles(ctx.cwd, targets, RUN_HEAP_GROWING_PERCENT);
  const progress = withHeapCap(await progressBar(ctx));
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
  const only = outcome.runs.length === 1 ? outcome.runs[0]!.result : undefined;
  if (opts.finished && only && !only.interrupted) opts.finished.file = only.finalFile;
  return printOutcome(ctx, opts.compare ? 'compare' : 'run', outcome, flags.output);
}

export const runCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('run')
      .description('Run eval cases against a model and score them')
      .argument('[targets...]', "suite names or fixture files (default: the project's own cases, or the bundled demo cases when it has none)");
    addSelectionOptions(cmd);
    addModelOptions(cmd);
    addExecutionOptions(cmd);
    cmd
      .option('--resume <log>', 'finish a crashed or interrupted run from its .jsonl log, skipping finished cases')
      .option('--compare <p1,p2>', 'run the suite once per provider and compare pass rates')
      .option('--baseline <file>', 'after the run, print its diff against this results JSON (or the newest in a directory); exit 1 on a regression')
      .option('--fail-on <when>', 'with --baseline, what counts as a regression: any, significant (95% intervals apart), none', 'any')
      .addHelpText(
        'after',
        '\nExit codes: 0 every case meets the threshold, 1 some case does not, 2 bad input or usage\n' +
          '(a stale recording too), 3 infrastructure: a case whose every sample errored, or an interrupted run\n' +
          '(Ctrl-C keeps finished cases in the .jsonl log; finish with --resume).\n',
      )
      .action(action(getContext, setExit, (ctx, targets: string[], flags: RunFlags, c: Command) => runAction(ctx, targets, flags, c)));
  },
};
