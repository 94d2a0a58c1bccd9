import type { ToolCall } from '../types/run.js';
import type { ResolvedCall, Runnable, ToolDefinition, ToolMode, Toolset } from '../types/toolset.js';
import { describeRunnable, describeTool, findForDescribe, searchRunnables } from './discovery.js';
import { canonicalHost, commandParamName, commandPath, hasHosts, hostParamName, hostsOf, matchName, QUALIFIER_SEPARATOR } from './lookup.js';
import { hostSelectorSchema, runnableToolDescription, runnableToolParameters } from './tool-schema.js';
import { isRecord } from '../core/is-record.js';

/** What a call is aimed at, in layout-neutral terms. */
export interface CallTarget {
  runnable: string;
  /** A host or a host group name. */
  host?: string;
  /** Subcommand path, space-joined. */
  command?: string;
  args?: Record<string, unknown>;
}

/**
 * One way of laying a toolset out as tools for the model (the `tool_mode` setting), with its inverse.
 * `tools()` is what the model sees; `resolve()` maps any observed call back onto the toolset and never
 * throws; `renderCall()` builds the call the model would make for a target, so
 * `resolve(renderCall(t))` recovers `t`.
 */
export interface Layout {
  readonly mode: ToolMode;
  readonly toolset: Toolset;
  tools(): ToolDefinition[];
  /**
   * Map an observed call back onto the toolset. A discovery call (search layout only) comes back with
   * `discovery: true`, `known: true` and the discovery tool's name as `runnable`; an unknown name with
   * `known: false` and the best-guess bare name.
   */
  resolve(call: ToolCall): ResolvedCall;
  isDiscovery(name: string): boolean;
  /** The text answer of a discovery tool (JSON), or an `Error: ...` line for a bad call. */
  answerDiscovery(call: ToolCall): string;
  renderCall(target: CallTarget, id?: string): ToolCall;
}

export const DISCOVERY_TOOLS = ['search_runnables', 'describe_runnable', 'describe_tool'] as const;
/** Search-layout runners: the runnable to run is named inside the call. */
export const RUN_TOOLS: ReadonlySet<string> = new Set(['run_runnable', 'use_tool']);

/** A model-sent value as text; objects as JSON (String() throws on `{"toString": null}`, which JSON can carry). */
function plainText(x: unknown): string {
  if (typeof x === 'string') return x;
  if (x === null || x === undefined || typeof x !== 'object') return String(x);
  return JSON.stringify(x) ?? '';
}

function hostValue(toolset: Toolset, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = (Array.isArray(v) ? v.map(plainText).join(',') : plainText(v)).trim();
  if (s === '') return undefined;
  return canonicalHost(toolset, s) ?? s;
}

function commandValue(v: unknown): string | undefined {
  const p = commandPath(v);
  return p.length > 0 ? p.join(' ') : undefined;
}

function renderCommand(command: string | undefined): string | string[] | undefined {
  const p = commandPath(command);
  if (p.length === 0) return undefined;
  return p.length === 1 ? p[0] : p;
}

/** The keys of a search-layout run call that are not the runnable's own arguments. */
const SEARCH_CALL_KEYS = new Set(['id', 'name', 'runnable', 'tool', 'host', 'command', 'args']);

/**
 * What a search-layout run call (`run_runnable`, `use_tool`) names, read one way for the layout and for the
 * name-only resolver (toolset/resolve.ts): the runnable id (`use_tool` takes `name` first, `run_runnable`
 * `id`; `runnable` and `tool` as models also write them), host and command as sent, and the arguments (nested
 * `args`, an object or JSON text; else every other top-level key, as the best guess of what the model meant).
 * @example readSearchCall({ id: 'c', name: 'run_runnable', arguments: { id: 'systemctl', args: { unit: 'nginx' } } }).id // 'systemctl'
 */
export function readSearchCall(call: ToolCall): { id: string; host: unknown; command: unknown; args: Record<string, unknown> } {
  const input = isRecord(call.arguments) ? call.arguments : {};
  const idRaw = call.name === 'use_tool' ? (input.name ?? input.id) : (input.id ?? input.name ?? input.runnable ?? input.tool);
  let args = nestedArgs(input.args);
  if (args === undefined) {
    args = {};
    for (const [k, v] of Object.entries(input)) if (!SEARCH_CALL_KEYS.has(k)) args[k] = v;
  }
  return { id: typeof idRaw === 'string' ? idRaw.trim() : '', host: input.host, command: input.command, args };
}

function nestedArgs(v: unknown): Record<string, unknown> | undefined {
  if (isRecord(v)) return { ...v };
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      if (isRecord(parsed)) return parsed;
    } catch {
      // not JSON: fall through
    }
  }
  return undefined;
}

function searchTools(toolset: Toolset): ToolDefinition[] {
  const withHosts = hasHosts(toolset);
  const runParams = (idKey: 'id' | 'name', idText: string): Record<string, unknown> => {
    const properties: Record<string, unknown> = { [idKey]: { type: 'string', description: idText } };
    if (withHosts) properties.host = hostSelectorSchema(toolset, toolset.hosts);
    properties.command = {
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
      description: 'Subcommand (verb) for runnables that have them, e.g. "add" or ["remote", "add"]; see describe_runnable.',
    };
    properties.args = { type: 'object', description: "The runnable's own arguments, as describe_runnable lists them.", additionalProperties: true };
    return { type: 'object', properties, required: withHosts ? [idKey, 'host'] : [idKey] };
  };
  return [
    {
      name: 'search_runnables',
      description: 'Search the available runnables by keywords; returns ranked rows (name, description, matched args). Read-only.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Keywords, e.g. "restart service"' },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Maximum rows (default 10)' },
        },
        required: ['query'],
      },
    },
    {
      name: 'describe_runnable',
      description: 'Describe one runnable: its arguments, subcommands, hosts and autonomy. Read-only.',
      parameters: { type: 'object', properties: { id: { type: 'string', description: 'Runnable name from search_runnables' } }, required: ['id'] },
    },
    {
      name: 'describe_tool',
      description: 'Show the full tool schema of one runnable as use_tool takes it. Read-only.',
      parameters: { type: 'object', properties: { name: { type: 'string', description: 'Runnable name from search_runnables' } }, required: ['name'] },
    },
    {
      name: 'run_runnable',
      description: 'Run a runnable found with search_runnables. Put its arguments under `args`, the subcommand in `command`.',
      parameters: runParams('id', 'Runnable name (the name column of search_runnables)'),
    },
    {
      name: 'use_tool',
      description: 'Call a runnable by tool name (as describe_tool shows it), with its arguments under `args`.',
      parameters: runParams('name', 'Runnable name'),
    },
  ];
}

/**
 * Build the layout for a tool mode.
 *
 * - `dedup`: one tool per visible runnable, named for the runnable, with an injected host selector
 *   (`host`, or `_host` when the runnable declares its own `host`) that accepts a host or a host
 *   group; subcommands ride a top-level `command` (`_command` when the runnable has an arg named
 *   `command`). A toolset without hosts gets no selector.
 * - `per_host`: one `host__name` tool per host the runnable is available on; the host comes from the
 *   prefix. A toolset without hosts offers plain names. `resolve` also accepts a host group as prefix.
 * - `search`: search_runnables / describe_runnable / describe_tool (discovery, answered from the
 *   toolset) and run_runnable / use_tool with `id` / `name`, top-level `host` and `command`, and the
 *   args nested under `args`.
 *
 * Names qualified with `__`: in per_host mode a prefix that is a host (or host group) is the host,
 * even when a runnable group has the same name; otherwise it is a legacy group qualifier
 * (`console__which`) that narrows the match to that group. See {@link matchName}.
 */
export function createLayout(mode: ToolMode, toolset: Toolset): Layout {
  const visible = (): Runnable[] => toolset.runnables.filter((r) => !r.hidden);

  // The selector names of a runnable, worked out once per runnable (each call used to rebuild its arg list).
  const paramNames = new Map<Runnable, { host: string; command: string | undefined }>();
  const paramNamesOf = (r: Runnable): { host: string; command: string | undefined } => {
    let names = paramNames.get(r);
    if (!names) {
      names = { host: hostParamName(r), command: commandParamName(r) };
      paramNames.set(r, names);
    }
    return names;
  };

  function resolveDirect(call: ToolCall, asMode: ToolMode): ResolvedCall {
    const input = isRecord(call.arguments) ? call.arguments : {};
    const m = matchName(toolset, call.name, asMode);
    // The call's own arguments unless a selector is left out, so the verdict's observed args are the call's
    // (results-encode's sameArgs then holds at `===`, without a deep compare). Nothing writes to either.
    let args: Record<string, unknown> = input;
    let host = m.host;
    const r = m.runnable;
    const names = r ? paramNamesOf(r) : undefined;
    // Selectors are left out by a copy without them, not deleted: a deleted key turns the arguments object
    // into a slow dictionary, and it is compared and serialised several times over.
    if (asMode !== 'per_host' && hasHosts(toolset)) {
      const hp = names ? names.host : 'host';
      if (hp in args) {
        host = hostValue(toolset, args[hp]) ?? host;
        const { [hp]: _host, ...rest } = args;
        args = rest;
      }
    }
    const cp = names ? names.command : 'command';
    let command: string | undefined;
    if (cp !== undefined && cp in args) {
      command = commandValue(args[cp]);
      const { [cp]: _command, ...rest } = args;
      args = rest;
    }
    return {
      runnable: m.bare,
      known: r !== undefined,
      discovery: false,
      ...(host !== undefined ? { host } : {}),
      ...(command !== undefined ? { command } : {}),
      args,
      layout: mode,
      ...(m.group !== undefined ? { group: m.group } : {}),
      calledName: call.name,
    };
  }

  function resolveSearch(call: ToolCall): ResolvedCall {
    const input = readSearchCall(call);
    const id = input.id;
    const m = id === '' ? { bare: '' } : matchName(toolset, id, 'search');
    const args = input.args;
    const host = hostValue(toolset, input.host) ?? ('host' in m ? m.host : undefined);
    const command = commandValue(input.command);
    return {
      runnable: m.bare,
      known: 'runnable' in m && m.runnable !== undefined,
      discovery: false,
      ...(host !== undefined ? { host } : {}),
      ...(command !== undefined ? { command } : {}),
      args,
      layout: 'search',
      ...('group' in m && m.group !== undefined ? { group: m.group } : {}),
      calledName: call.name,
    };
  }

  function buildTools(): ToolDefinition[] {
    if (mode === 'search') return searchTools(toolset);
    if (mode === 'dedup' || !hasHosts(toolset)) {
      return visible().map((r) => ({
        name: r.name,
        description: runnableToolDescription(toolset, r, { selector: mode === 'dedup' }),
        parameters: runnableToolParameters(toolset, r, { selector: mode === 'dedup' }),
      }));
    }
    const out: ToolDefinition[] = [];
    for (const r of visible()) {
      const description = runnableToolDescription(toolset, r, { selector: false });
      const parameters = runnableToolParameters(toolset, r, { selector: false });
      for (const h of hostsOf(toolset, r)) {
        out.push({ name: `${h}${QUALIFIER_SEPARATOR}${r.name}`, description: `[on ${h}] ${description}`, parameters });
      }
    }
    return out;
  }

  // The tool list is the same for every case and sample: build it once (the wire encoding of the
  // providers is cached on this array too).
  let toolList: ToolDefinition[] | undefined;
  const layout: Layout = {
    mode,
    toolset,
    tools() {
      return (toolList ??= buildTools());
    },
    isDiscovery(name) {
      return mode === 'search' && (DISCOVERY_TOOLS as readonly string[]).includes(name);
    },
    resolve(call) {
      if (layout.isDiscovery(call.name)) {
        return {
          runnable: call.name,
          known: true,
          discovery: true,
          args: isRecord(call.arguments) ? { ...call.arguments } : {},
          layout: mode,
          calledName: call.name,
        };
      }
      if (mode === 'search' && RUN_TOOLS.has(call.name)) return resolveSearch(call);
      // A direct call in search mode was not offered, but resolve it the dedup way as the best guess.
      return resolveDirect(call, mode === 'search' ? 'dedup' : mode);
    },
    answerDiscovery(call) {
      const input = isRecord(call.arguments) ? call.arguments : {};
      switch (call.name) {
        case 'search_runnables': {
          const query = typeof input.query === 'string' ? input.query : '';
          const limit = typeof input.limit === 'number' ? input.limit : typeof input.limit === 'string' ? Number(input.limit) || 10 : 10;
          return JSON.stringify({ query, results: searchRunnables(toolset, query, limit) });
        }
        case 'describe_runnable': {
          const r = findForDescribe(toolset, input.id ?? input.name);
          return typeof r === 'string' ? r : JSON.stringify(describeRunnable(toolset, r));
        }
        case 'describe_tool': {
          const r = findForDescribe(toolset, input.name ?? input.id);
          return typeof r === 'string' ? r : JSON.stringify(describeTool(toolset, r));
        }
        default:
          return `Error: ${call.name} is not a discovery tool`;
      }
    },
    renderCall(target, id = 'call_0') {
      const args = { ...(target.args ?? {}) };
      const command = renderCommand(target.command);
      if (mode === 'search') {
        const a: Record<string, unknown> = { id: target.runnable };
        if (target.host !== undefined) a.host = target.host;
        if (command !== undefined) a.command = command;
        a.args = args;
        return { id, name: 'run_runnable', arguments: a };
      }
      const r = matchName(toolset, target.runnable, 'dedup').runnable;
      const out: Record<string, unknown> = {};
      let name = target.runnable;
      if (target.host !== undefined && hasHosts(toolset)) {
        if (mode === 'per_host') name = `${target.host}${QUALIFIER_SEPARATOR}${target.runnable}`;
        else out[r ? hostParamName(r) : 'host'] = target.host;
      }
      if (command !== undefined) out[(r && commandParamName(r)) ?? 'command'] = command;
      Object.assign(out, args);
      return { id, name, arguments: out };
    },
  };
  return layout;
}

// Layouts are pure functions of (mode, toolset): each is built once per toolset and mode and kept as
// long as the toolset is (a WeakMap, so a dropped toolset takes its layouts with it).
const layouts = new WeakMap<Toolset, Map<ToolMode, Layout>>();

/** The layout of `toolset` under `mode`, built on first use and shared by every later caller. */
export function layoutFor(toolset: Toolset, mode: ToolMode): Layout {
  let byMode = layouts.get(toolset);
  if (!byMode) layouts.set(toolset, (byMode = new Map()));
  let layout = byMode.get(mode);
  if (!layout) byMode.set(mode, (layout = createLayout(mode, toolset)));
  return layout;
}
