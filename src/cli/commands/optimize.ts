import { InvalidArgumentError } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import type { OptimizeFlags } from '../../app/optimize.js';
import { addModelOptions, addSelectionOptions } from './_run-options.js';

/** `optimize`: parse, call `optimizeSuite` (app/optimize.ts), print, exit. */
async function optimizeAction(ctx: CliContext, targets: string[], flags: OptimizeFlags): Promise<number> {
  const { optimizeSuite } = await import('../../app/optimize.js');
  const { result, resultsFile, exitCode } = await optimizeSuite(ctx, targets, flags);
  ctx.out(
    `stopped: ${result.stopReason} after ${result.iterations.length} iteration(s); best: iteration ${result.best.iteration}, pass rate ${result.best.passRate.toFixed(2)}`,
  );
  ctx.out(`results: ${resultsFile}`);
  return exitCode;
}

const positiveInt = (v: string): number => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`expected a positive integer (got ${JSON.stringify(v)})`);
  return Number(v);
};

export const optimizeCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('optimize')
      .description('Evaluate cases and let the model rewrite the developer prompt until they pass (optimiser + observer)')
      .argument('[targets...]', 'suite names or fixture files (turnstone suites are the usual input)');
    addSelectionOptions(cmd);
    addModelOptions(cmd);
    cmd
      .option('--toolset <spec>', 'toolset for every case (default: builtin:workspace for trajectory cases)')
      .option('--prompt <file>', 'initial developer prompt (default: the built-in agent prompt)')
      .option('--n-runs <n>', "runs per case (a case's own n_runs wins; else the suite default, else 3)", positiveInt)
      .option('--max-iter <n>', 'maximum optimisation iterations', positiveInt, 5)
      .option('--no-optimize', 'evaluate only (a single iteration)')
      .option('--out <file>', 'results file, rewritten after every iteration', 'eval_results.json')
      .option('-v, --verbose', 'per-turn log (model calls, tool arguments and results) and per-case pass rates after every iteration')
      .addHelpText(
        'after',
        '\nEvery iteration runs each case n times with the current prompt, saves the results file, and stops when\n' +
          'every case passes. Otherwise the optimiser model proposes a new prompt; after every third iteration an\n' +
          "observer rewrites the optimiser's own system prompt and the prompt is reset to the best iteration.\n" +
          'Exit codes: 0 every case passed in the best iteration, 1 not, 2 bad input, 3 the model was unreachable.\n',
      )
      .action(action(getContext, setExit, (ctx, targets: string[], flags: OptimizeFlags) => optimizeAction(ctx, targets, flags)));
  },
};
