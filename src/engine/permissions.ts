import type { Case, PermissionAction } from '../types/case.js';
import type { Runnable, ToolCategory } from '../types/toolset.js';

// Tool permissions by category (replio): read / list / web allowed, edit / bash / mcp denied; a case's
// tool_permission merges over them and tools_deny appends name-level denials. The engine is headless
// with auto = allow, so "ask" runs without prompting. turnstone's HeadlessSession auto-approves every
// tool, so turnstone cases start from all-allowed (their expected_actions edit files and run bash).

export const DEFAULT_TOOL_PERMISSIONS: Readonly<Record<ToolCategory, PermissionAction>> = {
  read: 'allow',
  list: 'allow',
  web: 'allow',
  edit: 'deny',
  bash: 'deny',
  mcp: 'deny',
};

const ALL_ALLOWED: Readonly<Record<ToolCategory, PermissionAction>> = {
  read: 'allow',
  list: 'allow',
  web: 'allow',
  edit: 'allow',
  bash: 'allow',
  mcp: 'allow',
};

export interface ToolPermissions {
  byCategory: Record<ToolCategory, PermissionAction>;
  /** tool_permission entries keyed by a tool name rather than a category. */
  byTool: Record<string, PermissionAction>;
  deny: Set<string>;
}

/** The permissions a case runs with. */
export function permissionsFor(c: Pick<Case, 'dialect' | 'settings'>): ToolPermissions {
  const byCategory = { ...(c.dialect === 'turnstone' ? ALL_ALLOWED : DEFAULT_TOOL_PERMISSIONS) };
  const byTool: Record<string, PermissionAction> = {};
  for (const [key, action] of Object.entries(c.settings.toolPermission ?? {})) {
    if (key in byCategory) byCategory[key as ToolCategory] = action;
    else byTool[key] = action;
  }
  return { byCategory, byTool, deny: new Set(c.settings.toolsDeny ?? []) };
}

/** undefined when the call may run, else the reason it may not. */
export function deniedReason(perms: ToolPermissions, runnable: Pick<Runnable, 'name' | 'category'>): string | undefined {
  if (perms.deny.has(runnable.name)) return `${runnable.name} is denied for this case (tools_deny)`;
  const action = perms.byTool[runnable.name] ?? perms.byCategory[runnable.category];
  if (perms.byTool[runnable.name] === 'deny') return `${runnable.name} is denied for this case (tool_permission)`;
  if (action === 'deny') {
    const article = /^[aeiou]/.test(runnable.category) ? 'an' : 'a';
    return `${runnable.name} is ${article} ${runnable.category} tool and ${runnable.category} tools are denied for this case (tool_permission)`;
  }
  return undefined;
}
