// Tool-call resolution, the one owner: map an observed tool call (call → runnable, host, subcommand,
// args) back onto the toolset through its layout (built once per toolset and tool mode, layoutFor), the
// engine's resolution when it recorded one, and a name-only best guess without a toolset. The engine,
// scoring, trace rules and trace scoring all resolve through here.
import { layoutFor, readSearchCall, DISCOVERY_TOOLS as DISCOVERY_TOOL_NAMES, RUN_TOOLS } from './layout.js';
import { commandPath, splitQualified } from './lookup.js';
import type { ResolvedCall, ToolMode, Toolset } from '../types/toolset.js';
import type { ToolCall, ToolCallRecord } from '../types/run.js';
import { isRecord } from '../core/is-record.js';

/** Discovery tools of the search layout: never terminal. */
const DISCOVERY_TOOLS: ReadonlySet<string> = new Set(DISCOVERY_TOOL_NAMES);
/** Search-layout runners: the runnable is named inside the call. */
const SEARCH_RUNNERS = RUN_TOOLS;

export interface ResolveContext {
  toolset?: Toolset;
  toolMode?: ToolMode;
  /**
   * Without a toolset a `command` argument cannot be told from a runnable's own arg of that name
   * (a shell tool's command line): it is read as the subcommand, and taken out of the args, only when
   * the case asserts a command.
   */
  commandIsVerb: boolean;
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** A subcommand as the space-joined path ("remote add"); arrays are nested paths. */
export function commandText(value: unknown): string | undefined {
  const parts = commandPath(value);
  return parts.length ? parts.join(' ') : undefined;
}

/** Name-only resolution, for calls scored without a toolset. */
export function resolveWithoutToolset(call: ToolCall, ctx: ResolveContext): ResolvedCall {
  const raw = isRecord(call.arguments) ? call.arguments : {};
  const layout: ToolMode = ctx.toolMode ?? 'dedup';
  if (DISCOVERY_TOOLS.has(call.name)) {
    return { runnable: '', known: false, discovery: true, args: { ...raw }, layout: 'search', calledName: call.name };
  }
  let name = call.name;
  let host: string | undefined;
  let command: string | undefined;
  let args: Record<string, unknown>;
  let resolvedLayout = layout;
  if (SEARCH_RUNNERS.has(call.name)) {
    resolvedLayout = 'search';
    const read = readSearchCall(call);
    name = read.id;
    host = asText(read.host);
    command = commandText(read.command);
    args = read.args;
  } else {
    args = { ...raw };
    const qualified = layout === 'per_host' ? splitQualified(name) : undefined;
    if (qualified?.qualifier !== undefined) {
      host = qualified.qualifier;
      name = qualified.bare;
    } else if (Object.hasOwn(args, '_host')) {
      host = asText(args._host);
      delete args._host;
    } else if (Object.hasOwn(args, 'host')) {
      // Without a toolset `host` may be the selector or the runnable's own arg: read it as both.
      host = asText(args.host);
    }
    if (ctx.commandIsVerb && Object.hasOwn(args, 'command')) {
      command = commandText(args.command);
      delete args.command;
    }
  }
  const { qualifier: group, bare } = splitQualified(name);
  name = bare;
  const resolved: ResolvedCall = { runnable: name, known: false, discovery: false, args, layout: resolvedLayout, calledName: call.name };
  if (host !== undefined) resolved.host = host;
  if (command !== undefined) resolved.command = command;
  if (group !== undefined) resolved.group = group;
  return resolved;
}

/** The engine's resolution when it recorded one, else our own. */
export function resolveRecord(record: ToolCallRecord, ctx: ResolveContext): ResolvedCall {
  if (record.resolved) return record.resolved;
  return resolveCall(record.call, ctx);
}

/** Resolve one observed call: through the toolset's layout when there is a toolset. */
export function resolveCall(call: ToolCall, ctx: ResolveContext): ResolvedCall {
  if (!ctx.toolset) return resolveWithoutToolset(call, ctx);
  let mode = ctx.toolMode ?? 'dedup';
  // A search-layout call seen under another mode (an offline trace that did not say its tool_mode):
  // read it the search way, unless the toolset really has a runnable of that name.
  if (mode !== 'search' && (SEARCH_RUNNERS.has(call.name) || DISCOVERY_TOOLS.has(call.name)) && !ctx.toolset.runnables.some((r) => r.name === call.name)) {
    mode = 'search';
  }
  return layoutFor(ctx.toolset, mode).resolve(call);
}
