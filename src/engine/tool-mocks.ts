import { toArgExpectation } from '../fixtures/normalise.js';
import { describeArgFailures, matchArgs } from '../scoring/arg-match.js';
import type { Case } from '../types/case.js';
import type { MockResult, ToolMockRule, Toolset } from '../types/toolset.js';

// Answers tool calls from `tool_mocks` (syntax: core/tool-mocks.ts). A case's mocks win over its
// toolset's, tool by tool. Sequences count per run, so every sample starts from entry 0.

/** Per-run state: how many calls each rule has answered. */
export interface MockCounters {
  used: Map<string, number>;
}

export function newMockCounters(): MockCounters {
  return { used: new Map() };
}

/** The rules for `tool`, or undefined when neither the case nor the toolset mocks it. */
export function mockRulesFor(c: Pick<Case, 'toolMocks'>, toolset: Pick<Toolset, 'mocks'>, tool: string): ToolMockRule[] | undefined {
  return c.toolMocks?.[tool] ?? toolset.mocks?.[tool];
}

/**
 * The canned answer to one call: the first rule whose `when` matches the arguments; a sequence hands
 * out its entries in order and then repeats the last. No rule matching is an error result naming why.
 * @example answerMock(rules, 'get_weather', { city: 'Paris' }, counters) // { result: 'Rain' }
 */
export function answerMock(rules: ToolMockRule[], tool: string, args: Record<string, unknown>, counters: MockCounters): MockResult & { matched: boolean } {
  const misses: string[] = [];
  for (const [i, rule] of rules.entries()) {
    if (rule.when) {
      const expected = Object.fromEntries(Object.entries(rule.when).map(([k, v]) => [k, toArgExpectation(v)]));
      const m = matchArgs(expected, args);
      if (!m.ok) {
        misses.push(describeArgFailures(m.failures));
        continue;
      }
    }
    const key = `${tool}\u0000${i}`;
    const n = counters.used.get(key) ?? 0;
    counters.used.set(key, n + 1);
    const r = rule.results[Math.min(n, rule.results.length - 1)];
    if (r) return { ...r, matched: true };
  }
  return {
    result: `Error: no mock of ${tool} matches these arguments${misses.length > 0 ? ` (${misses.slice(0, 3).join(' | ')})` : ''}`,
    isError: true,
    matched: false,
  };
}
