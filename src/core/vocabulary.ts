// The closed vocabularies that flags, file schemas, renderers and validators all list. Each list is the
// one definition; a type elsewhere that names the same values is checked against it at compile time.

import type { ToolMode } from '../types/index.js';

/** Tool layouts a model can be shown: one tool per runnable, one per host, or a search tool. */
export const TOOL_MODES = ['dedup', 'per_host', 'search'] as const satisfies readonly ToolMode[];

/** `true` when `value` names a tool layout. */
export function isToolMode(value: unknown): value is ToolMode {
  return typeof value === 'string' && (TOOL_MODES as readonly string[]).includes(value);
}
