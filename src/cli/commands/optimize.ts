import { chooseCommandSandbox } from '../../engine/sandbox/select.js';
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../errors.js';
import { runSuite } from '../../engine/suite-runner.js';
import { writeResultsDocument } from '../../report/results-docs.js';
import { buildResultsDocument } from '../../report/results.js';
import { DEFAULT_AGENT_PROMPT } from '../../optimize/prompts.js';
import { runOptimization, type IterationRecord, type OptimizerModel } from '../../optimize/loop.js';
import type { Provider } from '../../providers/types.js';
import { VERSION } from '../../core/version.js';
import { buildProvider, loadProject, loadToolsets, newRunId, providerName, selectRunCases } from '../../app/run-suite.js';
import { addModelOptions, addSelectionOptions, cwdPath, type RunFlags } from './_run-options.js';

interface OptimizeFlags extends RunFlags {
  prompt?: string;
  nRuns?: number;
  maxIter: number;
  optimize: boolean;
  reasoningEffort?: 'low' | 'medium' | 'high';
  verbose?: boolean;
}

const positiveInt = (v: string): number => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`expected a positive integer (got ${JSON.stringify(v)})`);
  return Number(v);
};

/** The optimiser and the observer talk to the same model as the agent, without tools. */
function optimizerModel(provider: Provider, flags: OptimizeFlags): OptimizerModel {
  return {
    async complete(system, user) {
      const res = await provider.chat({
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        tools: [],
        ...(flags.reasoningEffort ? { reasoningEffort: flags.reasoningEffort } : {}),
      });
      return res.text ?? '';
    },
  };
}

async function optimizeAction(ctx: CliContext, targets: string[], flags: OptimizeFlags): Promise<number> {
  const project = loadProject(ctx);
  const { cases } = await selectRunCases(ctx, project, targets, flags);
  if (cases.length === 0) throw new UsageError('USAGE', 'optimize: no cases selected', { hint: 'name a suite or a fixture file' });
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  const name = providerName(flags, project);
  const provider = buildProvider(ctx, project, name, flags);
  let initialPrompt = DEFAULT_AGENT_PROMPT;
  if (flags.prompt) {
    try {
      initialPrompt = readFileSync(cwdPath(ctx, flags.prompt), 'utf8');
    } catch {
      throw new UsageError('USAGE', `--prompt: cannot read ${cwdPath(ctx, flags.prompt)}`);
    }
  }
  const out = cwdPath(ctx, flags.out ?? 'eval_results.json');
  const runId = newRunId();
  const started = new Date().toISOString();
  const meta = {
    run_id: runId,
    tool: 'runspec-eval',
    version: VERSION,
    started,
    provider: name,
    model: provider.model ?? flags.model ?? null,
    base_url: provider.baseUrl ?? null,
    test_suite: targets.join(',') || '(all)',
    ...(flags.nRuns !== undefined ? { n_runs_default: flags.nRuns } : {}),
  };
  const persist = (all: IterationRecord[]): void => {
    const doc = buildResultsDocument({
      meta,
      iterations: all.map((it) => ({
        iteration: it.iteration,
        timestamp: it.timestamp,
        prompt: it.prompt,
        promptDiff: it.promptDiff,
        optimizerSystem: it.optimizerSystem,
        caseResults: it.caseResults,
      })),
    });
    writeResultsDocument(out, doc);
  };
  const { sandbox, warning: sandboxWarning } = await chooseCommandSandbox(
    { configured: project.config.trajectory?.sandbox, bwrap: project.env.get('RUNSPEC_BWRAP'), searchPath: project.env.get('PATH') },
    cases.some((c) => c.mode === 'trajectory'),
  );
  if (sandboxWarning) ctx.warn(sandboxWarning);
  try {
    const result = await runOptimization({
      cases,
      initialPrompt,
      maxIterations: flags.maxIter,
      optimize: flags.optimize,
      model: optimizerModel(provider, flags),
      evaluate: async (prompt, iteration) => {
        const run = await runSuite({
          cases,
          provider,
          toolsetFor: (c) => toolsets.get(c.id)!,
          samples: flags.nRuns,
          systemPrompt: prompt,
          sandbox,
          runId: `${runId}-i${iteration}`,
          onWarning: (w) => ctx.warn(w),
        });
        return run.results;
      },
      onIteration: (record, all) => {
        persist(all);
        ctx.err(`iteration ${record.iteration}: pass rate ${record.passRate.toFixed(2)}, avg score ${record.avgScore.toFixed(2)}${record.observed ? ' (observer revised the optimiser)' : ''}`);
        if (flags.verbose) for (const r of record.caseResults) ctx.err(`  ${r.caseId}: ${r.passRate.toFixed(2)}`);
      },
    });
    persist(result.iterations);
    ctx.out(`stopped: ${result.stopReason} after ${result.iterations.length} iteration(s); best: iteration ${result.best.iteration}, pass rate ${result.best.passRate.toFixed(2)}`);
    ctx.out(`results: ${out}`);
    const last = result.iterations[result.iterations.length - 1]!;
    if (last.caseResults.length > 0 && last.caseResults.every((r) => r.errored && r.samples.every((s) => s.status === 'errored'))) return 3;
    return result.best.allPass ? 0 : 1;
  } finally {
    await provider.close().catch(() => {});
  }
}

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
      .option('--n-runs <n>', 'runs per case (a case\'s own n_runs wins; else the suite default, else 3)', positiveInt)
      .option('--max-iter <n>', 'maximum optimisation iterations', positiveInt, 5)
      .option('--no-optimize', 'evaluate only (a single iteration)')
      .option('--reasoning-effort <level>', 'low, medium or high (sent to the optimiser calls)')
      .option('--out <file>', 'results file, rewritten after every iteration', 'eval_results.json')
      .option('-v, --verbose', 'per-case pass rates after every iteration')
      .addHelpText(
        'after',
        '\nEvery iteration runs each case n times with the current prompt, saves the results file, and stops when\n' +
          'every case passes. Otherwise the optimiser model proposes a new prompt; after every third iteration an\n' +
          'observer rewrites the optimiser\'s own system prompt and the prompt is reset to the best iteration.\n' +
          'Exit codes: 0 every case passed in the best iteration, 1 not, 2 bad input, 3 the model was unreachable.\n',
      )
      .action(action(getContext, setExit, (ctx, targets: string[], flags: OptimizeFlags) => optimizeAction(ctx, targets, flags)));
  },
};
