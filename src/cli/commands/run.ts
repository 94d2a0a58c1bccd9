import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { readResultsLog } from '../../report/results-file.js';
import { UsageError } from '../../errors.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, cwdPath, normaliseForLog, suiteLabelOf, type RunFlags } from './_run-options.js';
import { compareProviders, parseProviderList } from './compare.js';

/** Options given explicitly on this command line (not defaults). */
function explicitFlags(cmd: Command, flags: RunFlags): RunFlags {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) if (cmd.getOptionValueSource(k) === 'cli') out[k] = v;
  return out as RunFlags;
}

/** `run`: the suite on one provider (or several with --compare). */
export async function runAction(ctx: CliContext, targetsIn: string[], flagsIn: RunFlags, cmd: Command): Promise<number> {
  let targets = targetsIn;
  let flags = flagsIn;
  let suiteLabel = suiteLabelOf(targets);
  if (flags.resume) {
    if (flags.compare) throw new UsageError('USAGE', '--resume: cannot be combined with --compare', { hint: 'resume each provider\'s log on its own' });
    // The log header keeps the original targets and flags; flags given now win (e.g. a new --concurrency).
    const log = readResultsLog(cwdPath(ctx, flags.resume));
    const stored = log.header.options as { targets?: string[]; flags?: RunFlags; suiteLabel?: string };
    flags = { ...(stored.flags ?? {}), ...explicitFlags(cmd, flags), resume: flags.resume };
    if (targets.length === 0) {
      targets = stored.targets ?? [];
      suiteLabel = stored.suiteLabel ?? suiteLabelOf(targets);
    }
  }
  if (flags.compare) {
    const { loadProject } = await import('./_eval-run.js');
    return compareProviders(ctx, loadProject(ctx), parseProviderList(flags.compare, '--compare'), targets, flags);
  }
  return runTargets(ctx, targets, flags, { suiteLabel });
}

/**
 * Select the targets' cases, run them on the configured provider, print the report and return the exit
 * code. `run` and `schedule run` share it.
 */
export async function runTargets(ctx: CliContext, targets: string[], flags: RunFlags, opts: { suiteLabel: string; agentName?: string }): Promise<number> {
  // The engine, providers and telemetry load only when a command runs (start-up stays light).
  const { buildProvider, executeRun, exitCodeOf, loadProject, loadToolsets, providerName, reportProblems, selectRunCases, writeRunReport } = await import('./_eval-run.js');
  const project = loadProject(ctx);
  const { cases, allIds } = await selectRunCases(ctx, project, targets, flags);
  // An empty shard is fine (few cases, many shards); an empty selection otherwise is a mistake.
  if (cases.length === 0 && !flags.shard) {
    ctx.err('run: no cases selected');
    return 2;
  }
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  const name = providerName(flags, project);
  const provider = buildProvider(ctx, project, name, flags);
  const stored = normaliseForLog(ctx, targets, flags);
  const r = await executeRun(ctx, {
    cases,
    allIds,
    provider,
    providerLabel: name,
    toolsets,
    flags,
    project,
    storedOptions: stored,
    resumeLog: flags.resume,
    suiteLabel: opts.suiteLabel,
    ...(opts.agentName ? { agentName: opts.agentName } : {}),
  });
  writeRunReport(ctx, r, flags.output ?? 'table');
  if (!r.interrupted) ctx.err(`results: ${r.finalFile}`);
  reportProblems(ctx, r);
  return exitCodeOf(r);
}

export const runCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('run')
      .description('Run eval cases against a model and score them')
      .argument('[targets...]', 'suite names or fixture files (default: every discovered case)');
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
