// The closed vocabularies that flags, file schemas, renderers and validators all list. Each `as const`
// list here is the one definition of its values; the union type in types/ is checked against it at
// compile time (a value added to one and not the other fails the build).

import type { Autonomy, Dialect, MatchMode } from '../types/case.js';
import type { ToolCategory, ToolMode } from '../types/toolset.js';
import type { VerdictCategory } from '../types/verdict.js';
import { VERDICT_CATEGORIES as CATEGORIES } from '../types/verdict.js';

/** Tool layouts a model can be shown: one tool per runnable (dedup), one per host, or a search tool. */
export const TOOL_MODES = ['dedup', 'per_host', 'search'] as const satisfies readonly ToolMode[];

/** How far a call may go without a human: run it, ask first, or leave it to a person. Ordered, least gated first. */
export const AUTONOMY_LEVELS = ['autonomous', 'confirm', 'manual'] as const satisfies readonly Autonomy[];

/** The fixture dialects: runspec TOML, replio JSON, turnstone JSON. */
export const DIALECTS = ['runspec', 'replio', 'turnstone'] as const satisfies readonly Dialect[];

/** How observed calls match a turnstone case's expected actions. */
export const MATCH_MODES = ['exact', 'ordered_subset', 'subset', 'contains_any'] as const satisfies readonly MatchMode[];

/** What a tool does, for permissions and the workspace toolset. */
export const TOOL_CATEGORIES = ['read', 'list', 'web', 'edit', 'bash', 'mcp'] as const satisfies readonly ToolCategory[];

/** How hard a reasoning model thinks (`--reasoning-effort`, `reasoning_effort`): sent as is to the provider. */
export const REASONING_EFFORTS = ['low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * Every verdict category, in precedence order. Defined beside the `VerdictCategory` type in
 * types/verdict.ts (the type is derived from it); re-exported here with the other lists.
 */
export const VERDICT_CATEGORIES: readonly VerdictCategory[] = CATEGORIES;

// Compile-time exhaustiveness: each union type has no member missing from its list.
type Missing<Union, List extends readonly unknown[]> = Exclude<Union, List[number]>;
const _toolModesComplete: [Missing<ToolMode, typeof TOOL_MODES>] extends [never] ? true : never = true;
const _autonomyComplete: [Missing<Autonomy, typeof AUTONOMY_LEVELS>] extends [never] ? true : never = true;
const _dialectsComplete: [Missing<Dialect, typeof DIALECTS>] extends [never] ? true : never = true;
const _matchModesComplete: [Missing<MatchMode, typeof MATCH_MODES>] extends [never] ? true : never = true;
const _categoriesComplete: [Missing<ToolCategory, typeof TOOL_CATEGORIES>] extends [never] ? true : never = true;
void [_toolModesComplete, _autonomyComplete, _dialectsComplete, _matchModesComplete, _categoriesComplete];

/** `true` when `value` names a tool layout. */
export function isToolMode(value: unknown): value is ToolMode {
  return typeof value === 'string' && (TOOL_MODES as readonly string[]).includes(value);
}

/** `true` when `value` names an autonomy level. */
export function isAutonomy(value: unknown): value is Autonomy {
  return typeof value === 'string' && (AUTONOMY_LEVELS as readonly string[]).includes(value);
}
