import type { Autonomy } from '../types/case.js';
import type { ArgSpec, ResolvedCall, Toolset } from '../types/toolset.js';
import { argSetFor, commandPath, maxAutonomy, walkCommand } from './lookup.js';
import { coerceArgValue, runnableOf } from './validate-args.js';
import { tolerantEquals } from '../core/equality.js';

/** Whether a call's value for `spec` triggers the arg's autonomy escalation. */
function escalates(spec: ArgSpec, value: unknown): boolean {
  if (!spec.escalate || value === undefined || value === null) return false;
  const coerced = coerceArgValue(spec, value);
  const v = coerced.ok ? coerced.value : value;
  if (spec.escalate.when !== undefined) return tolerantEquals(spec.escalate.when, v);
  return v !== false && v !== null;
}

/**
 * The level a call would gate at, without running it (the live loop's `_effective_tool_autonomy`).
 *
 * The chosen subcommand leaf's own autonomy, inherited from the nearest ancestor that sets one (the
 * runnable's level at the root); a path that goes past the known subcommands stops at the deepest
 * match. Then every arg of the chosen arg set with an `escalate` rule that the call triggers raises the
 * level; the most restrictive wins (autonomous < confirm < manual). Undefined for unknown runnables and
 * discovery calls.
 *
 * @example effectiveAutonomy(fleet, { runnable: 'cron', command: 'remove', ... }) // 'confirm'
 */
export function effectiveAutonomy(toolset: Toolset, call: ResolvedCall): Autonomy | undefined {
  if (call.discovery) return undefined;
  const runnable = runnableOf(toolset, call);
  if (!runnable) return undefined;
  const { chain } = walkCommand(runnable, commandPath(call.command));
  let level: Autonomy = runnable.autonomy;
  for (const node of chain) if (node.autonomy) level = node.autonomy;
  for (const spec of argSetFor(runnable, chain)) {
    if (escalates(spec, call.args[spec.name])) level = maxAutonomy(level, spec.escalate!.level);
  }
  return level;
}
