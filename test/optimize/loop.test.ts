import { describe, expect, it } from 'vitest';
import { runOptimization, type OptimizerModel } from '../../src/optimize/index.js';
import type { Case, CaseResult } from '../../src/types/index.js';

const cases: Case[] = [
  {
    id: 'edit-not-write',
    dialect: 'turnstone',
    tags: [],
    source: { file: 't.json', source: 'file' },
    prompt: 'fix the typo in a.py',
    files: {},
    mode: 'trajectory',
    turnstone: { actions: [{ tool: 'read_file' }, { tool: 'edit_file' }], matchMode: 'ordered_subset' },
    settings: {},
  },
];

function result(pass: boolean, score = pass ? 1 : 0.5): CaseResult {
  return {
    caseId: 'edit-not-write',
    dialect: 'turnstone',
    tags: [],
    samples: [],
    passRate: pass ? 1 : 0,
    passRateLow: 0,
    passRateHigh: 1,
    passAtK: pass ? 1 : 0,
    passHatK: pass ? 1 : 0,
    passK: [],
    avgScore: score,
    threshold: 1,
    meetsThreshold: pass,
    errored: false,
  };
}

/** A scripted optimiser model: answers in order and records what it was asked. */
function scripted(answers: string[]): OptimizerModel & { calls: Array<{ system: string; user: string }> } {
  const calls: Array<{ system: string; user: string }> = [];
  return {
    calls,
    async complete(system, user) {
      calls.push({ system, user });
      const a = answers.shift();
      if (a === undefined) throw new Error('script exhausted');
      return a;
    },
  };
}

describe('runOptimization', () => {
  it('stops as soon as every case passes and records the prompt diff', async () => {
    const model = scripted(['<think>they write instead of edit</think>\nAlways call edit_file to change a file.']);
    const seen: string[] = [];
    const out = await runOptimization({
      cases,
      initialPrompt: 'Be helpful.',
      evaluate: async (prompt) => {
        seen.push(prompt);
        return [result(prompt.includes('edit_file'))];
      },
      model,
    });
    expect(out.stopReason).toBe('all_pass');
    expect(seen).toEqual(['Be helpful.', 'Always call edit_file to change a file.']);
    expect(out.iterations[1]!.promptDiff).toContain('+Always call edit_file to change a file.');
    expect(out.iterations[0]!.promptDiff).toBeNull();
    expect(model.calls[0]!.user).toContain('expected tools: read_file, edit_file');
  });

  it('evaluates once with optimize=false', async () => {
    const model = scripted([]);
    const out = await runOptimization({ cases, initialPrompt: 'p', optimize: false, evaluate: async () => [result(false)], model });
    expect(out.stopReason).toBe('no_optimize');
    expect(out.iterations).toHaveLength(1);
    expect(model.calls).toHaveLength(0);
  });

  it('stops when the optimiser returns the prompt unchanged', async () => {
    const out = await runOptimization({ cases, initialPrompt: 'same', evaluate: async () => [result(false)], model: scripted(['```\nsame\n```']) });
    expect(out.stopReason).toBe('unchanged');
    expect(out.iterations).toHaveLength(1);
  });

  it('treats a proposal that differs only in whitespace as unchanged', async () => {
    const out = await runOptimization({
      cases,
      initialPrompt: 'Read first.\nThen edit.',
      evaluate: async () => [result(false)],
      model: scripted(['Read first.  Then\n\nedit.\n']),
    });
    expect(out.stopReason).toBe('unchanged');
  });

  it('sends a proposal over 130% of the prompt back once, then stops with over_length', async () => {
    const model = scripted(['x'.repeat(1301), 'y'.repeat(1400)]);
    const out = await runOptimization({ cases, initialPrompt: 'p'.repeat(1000), evaluate: async () => [result(false)], model });
    expect(out.stopReason).toBe('over_length');
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.user).toContain('Your rewrite was 1301 characters; the limit is 1300 characters');
  });

  it('accepts the shortened retry', async () => {
    const model = scripted(['x'.repeat(1301), 'q'.repeat(1200)]);
    const out = await runOptimization({ cases, initialPrompt: 'p'.repeat(1000), maxIterations: 2, evaluate: async () => [result(false)], model });
    expect(out.iterations.map((i) => i.prompt.length)).toEqual([1000, 1200]);
  });

  it('runs the observer after the third iteration and resets to the best prompt', async () => {
    const scores: Record<string, number> = { p0: 0.2, p1: 0.9, p2: 0.1, p3: 0.3 };
    const model = scripted(['p1', 'p2', 'Rewritten optimiser rules.', 'p3']);
    const out = await runOptimization({
      cases,
      initialPrompt: 'p0',
      maxIterations: 4,
      evaluate: async (prompt) => [result(false, scores[prompt])],
      model,
    });
    expect(out.stopReason).toBe('max_iterations');
    expect(out.iterations.map((i) => i.prompt)).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(out.iterations[2]!.observed).toBe(true);
    // The observer's rewrite becomes the optimiser system prompt of the next proposal...
    expect(model.calls[3]!.system).toBe('Rewritten optimiser rules.');
    // ...and the proposal starts from the best prompt so far (p1), not the last one (p2).
    expect(model.calls[3]!.user).toMatch(/# Current prompt\np1\n/);
    expect(out.best.prompt).toBe('p1');
  });

  it('rejects a degenerate observer rewrite that is more than twice as long', async () => {
    const model = scripted(['p1', 'p2', 'x'.repeat(10_000), 'p3']);
    const out = await runOptimization({ cases, initialPrompt: 'p0', maxIterations: 4, evaluate: async () => [result(false)], model });
    expect(out.iterations[2]!.observed).toBe(false);
    expect(model.calls[3]!.system).toBe(out.iterations[0]!.optimizerSystem);
  });
});
