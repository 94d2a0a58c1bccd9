// Optimising a suite's developer prompt end to end: evaluate the cases, let the optimiser (and every
// third round the observer) rewrite the prompt, keep the best iteration, and rewrite the results file
// after every iteration. The CLI's `optimize` parses flags, calls `optimizeSuite`, prints and exits.

import { readFileSync } from 'node:fs';
import { chooseCommandSandbox } from '../engine/sandbox/select.js';
import { ProviderError, UsageError } from '../errors.js';
import { safeText } from '../core/safe-text.js';
import { runSuite } from '../engine/suite-runner.js';
import type { TurnEvent } from '../engine/run-case.js';
import { formatTurnEvent } from '../engine/turn-log.js';
import { writeResultsDocument } from '../report/results-docs.js';
import { ensureOutputDir } from '../report/out-path.js';
import { buildResultsDocument } from '../report/results.js';
import { DEFAULT_AGENT_PROMPT } from '../optimize/prompts.js';
import { runOptimization, type IterationRecord, type OptimizeResult, type OptimizerModel } from '../optimize/loop.js';
import type { Provider } from '../providers/types.js';
import { VERSION } from '../core/version.js';
import { cwdPath, type AppContext } from './context.js';
import type { RunFlags } from './run-options.js';
import {
  buildProvider,
  flushProviderRetries,
  providerReachabilityOf,
  sandboxChoice,
  loadProject,
  loadToolsets,
  newRunId,
  providerName,
  selectRunCases,
} from './run-suite.js';

/** Options of `optimizeSuite`: the run flags plus the loop's own. */
export interface OptimizeFlags extends RunFlags {
  /** Initial developer prompt file. @default the built-in agent prompt */
  prompt?: string;
  nRuns?: number;
  maxIter: number;
  /** false: evaluate once, no rewriting. */
  optimize: boolean;
  /** A per-turn log and per-case pass rates after every iteration (status lines). */
  verbose?: boolean;
}

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

export interface OptimizeOutcome {
  result: OptimizeResult;
  /** The results file, rewritten after every iteration. */
  resultsFile: string;
  /** 0 every case passed in the best iteration, 1 not, 3 the model was unreachable (every sample errored). */
  exitCode: number;
}

/** Optimise the targets' prompt end to end; status lines (one per iteration) go to `ctx.err`. */
export async function optimizeSuite(ctx: AppContext, targets: string[], flags: OptimizeFlags): Promise<OptimizeOutcome> {
  const project = loadProject(ctx);
  const { cases } = await selectRunCases(ctx, project, targets, flags);
  if (cases.length === 0) throw new UsageError('USAGE', 'optimize: no cases selected', { hint: 'name a suite or a fixture file' });
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  const name = providerName(flags, project);
  const provider = buildProvider(ctx, project, name, flags);
  // The provider is closed and its retry counts printed however optimize ends (bad --prompt or --out included).
  try {
    let initialPrompt = DEFAULT_AGENT_PROMPT;
    if (flags.prompt) {
      try {
        initialPrompt = readFileSync(cwdPath(ctx, flags.prompt), 'utf8');
      } catch {
        throw new UsageError('USAGE', `--prompt: cannot read ${cwdPath(ctx, flags.prompt)}`);
      }
    }
    const out = cwdPath(ctx, flags.out ?? 'eval_results.json');
    ensureOutputDir(out, '--out');
    const runId = newRunId();
    const started = new Date().toISOString();
    // turnstone's meta.n_runs_default: --n-runs, else the suite's defaults.n_runs, else 3.
    const suiteDefault = cases.find((c) => c.settings.suiteSamples !== undefined)?.settings.suiteSamples;
    const meta = () => ({
      run_id: runId,
      tool: 'runspec-eval',
      version: VERSION,
      started,
      provider: name,
      // Read at every save: an auto-detected model is known once the first request has gone out.
      model: provider.model ?? flags.model ?? null,
      base_url: provider.baseUrl ?? null,
      test_suite: targets.join(',') || '(all)',
      n_runs_default: flags.nRuns ?? suiteDefault ?? 3,
    });
    const persist = (all: IterationRecord[]): void => {
      const doc = buildResultsDocument({
        meta: meta(),
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
      sandboxChoice(project, flags),
      cases.some((c) => c.mode === 'trajectory'),
    );
    if (sandboxWarning) ctx.warn(sandboxWarning);
    const reachability = providerReachabilityOf(ctx);
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
          mcpServers: { projectDir: ctx.projectDir, env: project.env.raw },
          // turnstone-eval -v: per-turn logging (API calls, tool args, results).
          ...(flags.verbose ? { onTurn: (e: TurnEvent) => ctx.err(formatTurnEvent(e)) } : {}),
          sandbox,
          runId: `${runId}-i${iteration}`,
          onWarning: (w) => ctx.warn(w),
          ...(reachability ? { reachability } : {}),
        });
        if (run.stopped?.cause === 'unreachable') {
          // As `run` stops: one line for the cause, exit 3; the iterations so far are saved in --out.
          throw new ProviderError(
            'PROVIDER',
            `optimize stopped in iteration ${iteration}: every request in flight failed to connect for ${(run.stopped.windowMs / 1000).toFixed(1)} s (${safeText(run.stopped.reason)})`,
          );
        }
        return run.results;
      },
      onIteration: (record, all) => {
        persist(all);
        ctx.err(
          `iteration ${record.iteration}: pass rate ${record.passRate.toFixed(2)}, avg score ${record.avgScore.toFixed(2)}${record.observed ? ' (observer revised the optimiser)' : ''}`,
        );
        if (flags.verbose) for (const r of record.caseResults) ctx.err(`  ${r.caseId}: ${r.passRate.toFixed(2)}`);
      },
    });
    persist(result.iterations);
    const last = result.iterations[result.iterations.length - 1]!;
    const unreachable = last.caseResults.length > 0 && last.caseResults.every((r) => r.errored && r.samples.every((s) => s.status === 'errored'));
    return { result, resultsFile: out, exitCode: unreachable ? 3 : result.best.allPass ? 0 : 1 };
  } finally {
    await provider.close().catch(() => {});
    flushProviderRetries(ctx);
  }
}
