import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { parseFailOn, type DiffFailOn } from '../../report/fail-on.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, cwdPath, suiteLabelOf, type RunFlags } from './_run-options.js';
import { runTargets } from './run.js';

const CI_HELP =
  '\nThe steps of the GitHub Action (action.yml): they read GITHUB_API_URL, GITHUB_TOKEN, GITHUB_REPOSITORY,\n' +
  'GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY and GITHUB_OUTPUT when the runner sets them, and run anywhere else.\n';

export const ciCommand: CommandModule = {
  register(program, getContext, setExit) {
    const ci = program
      .command('ci')
      .description('GitHub Action steps: run with CI artifacts, find the baseline, diff against it, comment the diff on the pull request')
      .addHelpText('after', CI_HELP);

    const run = ci
      .command('run')
      .description('Run the suite and write results.json, junit.xml, report.html and summary.md to --dir (the summary also to the job summary)')
      .argument('[targets...]', "suite names or fixture files (default: the project's own cases, or the bundled demo cases when it has none)");
    addSelectionOptions(run);
    addModelOptions(run);
    addExecutionOptions(run, { out: false });
    run
      .option('--dir <dir>', 'where the results and reports go', '.runspec/ci')
      .addHelpText('after', '\nExit codes as `run`: 0 every case meets the threshold, 1 some case does not, 2 bad input, 3 infrastructure.\n')
      .action(
        action(getContext, setExit, async (ctx, targets: string[], flags: RunFlags & { dir: string }, _cmd: Command) => {
          const { dir, ...runFlags } = flags;
          const out = cwdPath(ctx, `${dir}/results.json`);
          const finished: { file?: string } = {};
          const code = await runTargets(ctx, targets, { ...runFlags, out }, { suiteLabel: suiteLabelOf(targets), finished });
          if (finished.file) {
            const { writeCiArtifacts } = await import('../../app/ci.js');
            const written = writeCiArtifacts(ctx, { resultsFile: finished.file, dir: cwdPath(ctx, dir) });
            ctx.err(`ci: ${written.junit}, ${written.html}, ${written.summary}`);
          }
          return code;
        }),
      );

    ci.command('baseline')
      .description("Find the base branch's last successful run of this workflow (outputs found and run-id for actions/download-artifact)")
      .option('--workflow <file>', 'workflow file or id (default: the running workflow, from GITHUB_WORKFLOW_REF)')
      .option('--branch <name>', "base branch (default: the pull request's base)")
      .action(
        action(getContext, setExit, async (ctx, flags: { workflow?: string; branch?: string }) => {
          const { ciBaseline } = await import('../../app/ci.js');
          const r = await ciBaseline(ctx, flags);
          ctx.err(r.line);
          return 0;
        }),
      );

    const FAIL_ON_HELP = 'exit 1 on: any (every pass → fail flip), significant (95% intervals apart), none';

    // `ci diff` and `ci comment` take the same run/baseline options; only their help and action differ.
    type DiffRun = (ctx: CliContext, options: { head: string; base?: string; failOn: DiffFailOn }) => Promise<{ lines: string[]; exitCode: number }>;
    const diffCommand = (name: 'diff' | 'comment', description: string, exitHelp: string, run: DiffRun): void => {
      ci.command(name)
        .description(description)
        .requiredOption('--head <file>', 'results JSON of this run')
        .option('--base <path>', 'baseline results JSON, or a directory of them (missing: no baseline yet)')
        .option('--fail-on <when>', FAIL_ON_HELP, 'any')
        .addHelpText('after', exitHelp)
        .action(
          action(getContext, setExit, async (ctx, flags: { head: string; base?: string; failOn: string }) => {
            const failOn = parseFailOn(flags.failOn, `ci ${name} --fail-on`);
            const r = await run(ctx, { head: cwdPath(ctx, flags.head), ...(flags.base ? { base: cwdPath(ctx, flags.base) } : {}), failOn });
            for (const l of r.lines) ctx.err(l);
            return r.exitCode;
          }),
        );
    };

    diffCommand(
      'diff',
      'Diff the run against the baseline into the job summary; exit 1 when a case regressed (the gate when the action does not comment)',
      '\nExit codes: 0 nothing regressed (or no baseline), 1 a case regressed (see --fail-on), 2 bad input.\n',
      async (ctx, options) => (await import('../../app/ci.js')).ciDiff(ctx, options),
    );
    diffCommand(
      'comment',
      'Diff the run against the baseline and create or update one sticky pull-request comment (and the job summary)',
      "\nExit codes: 0 nothing regressed (or no baseline), 1 a case regressed (see --fail-on), 2 bad input, 3 GitHub unreachable.\nA token that may not comment (a fork's) writes the job summary and a warning instead of failing.\n",
      async (ctx, options) => (await import('../../app/ci.js')).ciComment(ctx, options),
    );
  },
};
