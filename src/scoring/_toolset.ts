// What scoring asks of the toolset module: autonomy, preflight problems, and expected-name matching.
import { effectiveAutonomy } from '../toolset/autonomy.js';
import { matchName, splitQualified } from '../toolset/lookup.js';
import { validateCallArgs, type ArgProblem } from '../toolset/validate-args.js';
import type { Autonomy } from '../types/case.js';
import type { ResolvedCall, Toolset } from '../types/toolset.js';

export function toolsetAutonomy(toolset: Toolset, call: ResolvedCall): Autonomy | undefined {
  // An OpenAI tools array says nothing about permissions: no level, rather than `confirm` for every tool.
  if (toolset.noAutonomy) return undefined;
  return effectiveAutonomy(toolset, call);
}

export function toolsetProblems(toolset: Toolset, call: ResolvedCall): ArgProblem[] {
  return validateCallArgs(toolset, call);
}

/**
 * Whether an expected (or forbidden) tool name denotes the observed call's runnable. The name is the
 * bare runnable name; a legacy `group__name` still resolves, and its qualifier narrows the match to
 * that group.
 */
export function expectedToolMatches(expected: string, call: ResolvedCall, toolset?: Toolset): boolean {
  const want = expected.trim();
  if (want === call.calledName) return true;
  if (toolset) {
    const target = matchName(toolset, want, 'dedup');
    if (target.runnable) {
      if (call.runnable !== target.runnable.name) return false;
      return call.group === undefined || target.runnable.group === undefined || call.group.toLowerCase() === target.runnable.group.toLowerCase();
    }
  }
  const { qualifier, bare } = splitQualified(want);
  if (call.runnable !== bare && call.runnable !== want) return false;
  if (qualifier === undefined || call.runnable === want) return true;
  const group = call.group ?? toolset?.runnables.find((r) => r.name === call.runnable)?.group;
  return group === undefined || group.toLowerCase() === qualifier.toLowerCase();
}
