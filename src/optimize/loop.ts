import { createTwoFilesPatch } from 'diff';
import type { Case } from '../types/case.js';
import type { CaseResult } from '../types/verdict.js';
import { cleanModelText } from './_text.js';
import { OBSERVER_SYSTEM, OPTIMIZER_SYSTEM } from './prompts.js';

/** The model the optimiser and the observer talk to. The CLI adapts a Provider to it. */
export interface OptimizerModel {
  complete(system: string, user: string): Promise<string>;
}

export interface IterationRecord {
  iteration: number;
  prompt: string;
  /** Unified diff against the previous iteration's prompt; null on the first. */
  promptDiff: string | null;
  optimizerSystem: string;
  timestamp: string;
  caseResults: CaseResult[];
  passRate: number;
  avgScore: number;
  allPass: boolean;
  /** The observer rewrote the optimiser's system prompt after this iteration. */
  observed: boolean;
}

export type StopReason = 'all_pass' | 'max_iterations' | 'unchanged' | 'no_optimize' | 'over_length';

export interface OptimizeOptions {
  cases: Case[];
  initialPrompt: string;
  /** Maximum iterations (default 5). */
  maxIterations?: number;
  /** false = evaluate once (turnstone --no-optimize). */
  optimize?: boolean;
  /** Run every case with this developer prompt and return the aggregated results. */
  evaluate(prompt: string, iteration: number): Promise<CaseResult[]>;
  model: OptimizerModel;
  /** Called after each iteration, before the next proposal (persist results here). */
  onIteration?(record: IterationRecord, all: IterationRecord[]): Promise<void> | void;
  /** The observer runs after iterations 2, 5, 8, ... (every `observerEvery`, default 3). */
  observerEvery?: number;
  /** The observer's output is rejected when longer than this factor of its input (default 2.0). */
  observerMaxGrowth?: number;
  /**
   * A proposed prompt longer than this factor of the prompt it rewrites is sent back once to be
   * shortened, then rejected (the seed's 130 % rule, enforced rather than only asked for; a prompt may
   * always grow by 200 characters). @default 1.3
   */
  proposalMaxGrowth?: number;
  now?: () => Date;
}

export interface OptimizeResult {
  iterations: IterationRecord[];
  best: IterationRecord;
  stopReason: StopReason;
}

/**
 * The turnstone optimisation loop: evaluate, stop when every case passes, otherwise let the optimiser model
 * rewrite the prompt; every third iteration an observer rewrites the optimiser's own system prompt and the
 * prompt is reset to the best iteration so far.
 */
export async function runOptimization(opts: OptimizeOptions): Promise<OptimizeResult> {
  const maxIterations = opts.optimize === false ? 1 : Math.max(1, opts.maxIterations ?? 5);
  const observerEvery = opts.observerEvery ?? 3;
  const now = opts.now ?? (() => new Date());
  const iterations: IterationRecord[] = [];
  let prompt = opts.initialPrompt;
  let previous: string | null = null;
  let optimizerSystem = OPTIMIZER_SYSTEM;

  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const caseResults = await opts.evaluate(prompt, iteration);
    const record: IterationRecord = {
      iteration,
      prompt,
      promptDiff: previous === null ? null : createTwoFilesPatch('prompt', 'prompt', previous, prompt, `iteration ${iteration - 1}`, `iteration ${iteration}`),
      optimizerSystem,
      timestamp: now().toISOString(),
      caseResults,
      ...rates(caseResults),
      observed: false,
    };
    iterations.push(record);
    if (record.allPass) {
      await opts.onIteration?.(record, iterations);
      return { iterations, best: bestOf(iterations), stopReason: 'all_pass' };
    }
    if (iteration === maxIterations - 1) {
      await opts.onIteration?.(record, iterations);
      break;
    }
    let base = prompt;
    if (iteration % observerEvery === observerEvery - 1) {
      const revised = await observe(opts, optimizerSystem, iterations);
      if (revised) {
        optimizerSystem = revised;
        record.observed = true;
      }
      base = bestOf(iterations).prompt;
    }
    await opts.onIteration?.(record, iterations);
    const message = proposalMessage(opts.cases, base, record, iterations);
    let proposed = cleanModelText(await opts.model.complete(optimizerSystem, message));
    // At least 200 characters of room, so a one-line starting prompt can become a real one.
    const limit = Math.max(Math.floor(base.length * (opts.proposalMaxGrowth ?? 1.3)), base.length + 200);
    if (proposed.length > limit) {
      const again = `${message}\n\nYour rewrite was ${proposed.length} characters; the limit is ${limit} characters. Shorten it and answer with the prompt only.`;
      proposed = cleanModelText(await opts.model.complete(optimizerSystem, again));
      if (proposed.length > limit) return { iterations, best: bestOf(iterations), stopReason: 'over_length' };
    }
    // Whitespace and line-break differences are not a new prompt.
    if (proposed === '' || sameText(proposed, base)) {
      return { iterations, best: bestOf(iterations), stopReason: 'unchanged' };
    }
    previous = prompt;
    prompt = proposed;
  }
  return { iterations, best: bestOf(iterations), stopReason: opts.optimize === false ? 'no_optimize' : 'max_iterations' };
}

function sameText(a: string, b: string): boolean {
  const norm = (s: string): string => s.trim().replace(/\s+/g, ' ');
  return norm(a) === norm(b);
}

function rates(results: CaseResult[]): { passRate: number; avgScore: number; allPass: boolean } {
  if (results.length === 0) return { passRate: 0, avgScore: 0, allPass: false };
  const passRate = results.reduce((s, r) => s + r.passRate, 0) / results.length;
  const avgScore = results.reduce((s, r) => s + (r.avgScore ?? r.passRate), 0) / results.length;
  return { passRate, avgScore, allPass: results.every((r) => r.passRate === 1 && !r.errored) };
}

/** Best = highest pass rate, then highest average score, then the earliest. */
export function bestOf(iterations: IterationRecord[]): IterationRecord {
  return iterations.reduce((best, it) => (it.passRate > best.passRate || (it.passRate === best.passRate && it.avgScore > best.avgScore) ? it : best));
}

function expectedTools(c: Case): string[] {
  if (c.turnstone) return c.turnstone.actions.map((a) => a.tool);
  if (c.replio?.expected) return c.replio.expected;
  if (c.runspec?.noRun) return ['(no tool call: ask or answer)'];
  return c.runspec?.tool ? [c.runspec.tool.join(' | ')] : [];
}

function actualSequences(r: CaseResult): string[] {
  return r.samples.map((s) =>
    s.status === 'scored'
      ? `[${s.verdict.calls.map((c) => c.name).join(', ')}] ${s.verdict.pass ? 'pass' : `fail (${s.verdict.category}: ${s.verdict.reason})`}`
      : `error: ${s.error.message}`,
  );
}

function proposalMessage(cases: Case[], prompt: string, current: IterationRecord, all: IterationRecord[]): string {
  const byId = new Map(current.caseResults.map((r) => [r.caseId, r]));
  const lines: string[] = ['# Current prompt', prompt, '', '# Test cases and results'];
  for (const c of cases) {
    const r = byId.get(c.id);
    lines.push(
      `## ${c.id}${r ? ` — pass rate ${r.passRate.toFixed(2)}` : ''}`,
      `user prompt: ${c.prompt}`,
      `expected tools: ${expectedTools(c).join(', ') || '(any)'}`,
    );
    if (r) for (const seq of actualSequences(r)) lines.push(`actual: ${seq}`);
  }
  lines.push('', '# History (last 3 iterations)');
  for (const it of all.slice(-3)) {
    lines.push(`iteration ${it.iteration}: pass rate ${it.passRate.toFixed(2)}, avg score ${it.avgScore.toFixed(2)}, prompt length ${it.prompt.length}`);
  }
  return lines.join('\n');
}

async function observe(opts: OptimizeOptions, optimizerSystem: string, all: IterationRecord[]): Promise<string | undefined> {
  const lines = ['# Optimiser system prompt', optimizerSystem, '', '# Iterations'];
  for (const it of all) {
    lines.push(`## iteration ${it.iteration}: pass rate ${it.passRate.toFixed(2)}, avg score ${it.avgScore.toFixed(2)}, prompt length ${it.prompt.length}`);
    if (it.promptDiff) lines.push(it.promptDiff);
  }
  const revised = cleanModelText(await opts.model.complete(OBSERVER_SYSTEM, lines.join('\n')));
  // A degenerate rewrite (empty, or far longer than what it replaces) is rejected.
  if (revised === '' || revised.length > optimizerSystem.length * (opts.observerMaxGrowth ?? 2)) return undefined;
  return revised;
}
