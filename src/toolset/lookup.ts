import type { Autonomy } from '../types/case.js';
import type { ArgSpec, Runnable, Subcommand, ToolMode, Toolset } from '../types/toolset.js';
import { AUTONOMY_LEVELS } from '../core/vocabulary.js';
import { canonicalJson } from '../core/canonical-json.js';

// Name lookup shared by the layouts, the validators and the ground tier, so that a fixture, a rendered
// call and an observed call all resolve a name the same way.

/** Separator of per_host (`host__name`) and legacy group-qualified (`group__name`) tool names. */
export const QUALIFIER_SEPARATOR = '__';

/**
 * A tool name split at its first `__` into a qualifier (a host, host group or legacy runnable group) and
 * the rest; a name without one (or with nothing on either side) is all `bare`.
 * @example splitQualified('web__systemctl') // { qualifier: 'web', bare: 'systemctl' }
 */
export function splitQualified(name: string): { qualifier?: string; bare: string } {
  const at = name.indexOf(QUALIFIER_SEPARATOR);
  if (at <= 0 || at + QUALIFIER_SEPARATOR.length >= name.length) return { bare: name };
  return { qualifier: name.slice(0, at), bare: name.slice(at + QUALIFIER_SEPARATOR.length) };
}

const AUTONOMY_RANK = Object.fromEntries(AUTONOMY_LEVELS.map((level, i) => [level, i])) as Record<Autonomy, number>;

/** The more restrictive of two autonomy levels (autonomous < confirm < manual). */
export function maxAutonomy(a: Autonomy, b: Autonomy): Autonomy {
  return AUTONOMY_RANK[b] > AUTONOMY_RANK[a] ? b : a;
}

/** Result of mapping a (possibly qualified) tool name onto the toolset. */
export interface NameMatch {
  /** The runnable, when the name resolves. */
  runnable?: Runnable;
  /** Best-guess bare name (the runnable's own name when found, else the name without qualifiers). */
  bare: string;
  /** Host or host group from a per_host prefix, in the toolset's spelling. */
  host?: string;
  /** Legacy group qualifier as written. */
  group?: string;
}

/** The toolset's spelling of a host or host group name (case-insensitive), or undefined. */
export function canonicalHost(toolset: Toolset, name: string): string | undefined {
  const want = name.trim().toLowerCase();
  if (want === '') return undefined;
  for (const h of toolset.hosts) if (h.toLowerCase() === want) return h;
  for (const g of Object.keys(toolset.groups)) if (g.toLowerCase() === want) return g;
  return undefined;
}

function runnableGroupsMatching(toolset: Toolset, qualifier: string): Runnable[] {
  const q = qualifier.toLowerCase();
  return toolset.runnables.filter((r) => r.group !== undefined && r.group.toLowerCase() === q);
}

/**
 * Resolve a group-qualified id. The qualifier narrows the match to runnables of that group; the rest is
 * either the runnable's name or its name without the `group_` prefix that grouped runnables carry
 * (`filesystem__read-text-file` → `filesystem_read-text-file`).
 */
function matchQualified(toolset: Toolset, group: string, rest: string): Runnable | undefined {
  const members = runnableGroupsMatching(toolset, group);
  return members.find((r) => r.name === rest) ?? members.find((r) => r.name === `${r.group}_${rest}`) ?? members.find((r) => r.name === `${r.group}-${rest}`);
}

/**
 * Map a tool name onto a runnable.
 *
 * Rules (in order): an exact runnable name wins; otherwise the name is split at the first `__`.
 * In `per_host` mode a prefix that names a host or host group is the host (hosts win over runnable
 * groups of the same name); the rest may itself be a legacy `group__name`. Otherwise the prefix is a
 * legacy group qualifier that narrows the match to that group (a wrong group resolves to nothing). In
 * `dedup` / `search` mode a prefix that is no runnable group but a host is read as a host, as a
 * best guess for calls recorded under `per_host`. In `per_host` mode an unknown prefix on a known
 * runnable is kept as the (unknown) host.
 */
export function matchName(toolset: Toolset, rawName: string, mode: ToolMode = 'dedup'): NameMatch {
  const name = rawName.trim();
  const exact = toolset.runnables.find((r) => r.name === name);
  if (exact) return { runnable: exact, bare: exact.name };
  const { qualifier: prefix, bare: rest } = splitQualified(name);
  if (prefix === undefined) return { bare: name };
  const host = canonicalHost(toolset, prefix);
  const isGroup = runnableGroupsMatching(toolset, prefix).length > 0;
  if (host !== undefined && (mode === 'per_host' || !isGroup)) {
    const inner = matchName(toolset, rest, 'dedup');
    return { ...inner, host };
  }
  if (isGroup) {
    const r = matchQualified(toolset, prefix, rest);
    return r ? { runnable: r, bare: r.name, group: prefix } : { bare: rest, group: prefix };
  }
  if (mode === 'per_host') {
    // An unknown host prefix on a known runnable is a wrong host, not a wrong tool.
    const inner = matchName(toolset, rest, 'dedup');
    if (inner.runnable) return { ...inner, host: prefix };
  }
  return { bare: name };
}

/** Walk a subcommand path; returns the matched chain and any unmatched remainder. */
export function walkCommand(runnable: Runnable, path: readonly string[]): { chain: Subcommand[]; rest: string[] } {
  const chain: Subcommand[] = [];
  let level = runnable.subcommands ?? [];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const next = level.find((s) => s.name === seg) ?? level.find((s) => s.name.toLowerCase() === seg.toLowerCase());
    if (!next) return { chain, rest: path.slice(i) };
    chain.push(next);
    level = next.subcommands ?? [];
  }
  return { chain, rest: [] };
}

/** Split a command value (a space-joined string or an array) into path segments. */
export function commandPath(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => segmentText(v).trim().split(/\s+/)).filter((s) => s !== '');
}

/** `String(v)`, or canonical JSON for model JSON that String() cannot convert (`{"toString": false}`). */
function segmentText(v: unknown): string {
  try {
    return String(v);
  } catch {
    return canonicalJson(v);
  }
}

/** Every subcommand path of a runnable (inner nodes included), space-joined, depth-first. */
export function allCommandPaths(runnable: Runnable): string[] {
  const out: string[] = [];
  const visit = (subs: Subcommand[] | undefined, prefix: string[]): void => {
    for (const s of subs ?? []) {
      const p = [...prefix, s.name];
      out.push(p.join(' '));
      visit(s.subcommands, p);
    }
  };
  visit(runnable.subcommands, []);
  return out;
}

/** Leaf subcommand paths (the verbs a call can pick), space-joined. */
export function leafCommandPaths(runnable: Runnable): string[] {
  const out: string[] = [];
  const visit = (subs: Subcommand[] | undefined, prefix: string[], required: boolean): void => {
    for (const s of subs ?? []) {
      const p = [...prefix, s.name];
      const req = s.requireCommand ?? required;
      if (s.subcommands && s.subcommands.length > 0) {
        if (!req) out.push(p.join(' '));
        visit(s.subcommands, p, req);
      } else out.push(p.join(' '));
    }
  };
  visit(runnable.subcommands, [], runnable.requireCommand === true);
  return out;
}

/**
 * The arg set of a chosen subcommand path: the runnable's own args plus the args of each subcommand on
 * the path (outer options stay valid below, like `git -C dir remote add`). A later definition of the
 * same name wins.
 */
export function argSetFor(runnable: Runnable, chain: readonly Subcommand[]): ArgSpec[] {
  const byName = new Map<string, ArgSpec>();
  for (const a of runnable.args) byName.set(a.name, a);
  for (const s of chain) for (const a of s.args) byName.set(a.name, a);
  return [...byName.values()];
}

/** Every arg declared anywhere in a runnable's tree (first definition of a name wins). */
export function allArgs(runnable: Runnable): ArgSpec[] {
  const byName = new Map<string, ArgSpec>();
  const add = (args: ArgSpec[]): void => {
    for (const a of args) if (!byName.has(a.name)) byName.set(a.name, a);
  };
  add(runnable.args);
  const visit = (subs: Subcommand[] | undefined): void => {
    for (const s of subs ?? []) {
      add(s.args);
      visit(s.subcommands);
    }
  };
  visit(runnable.subcommands);
  return [...byName.values()];
}

function hasSubcommands(runnable: Runnable): boolean {
  return (runnable.subcommands?.length ?? 0) > 0;
}

/** Whether the toolset has hosts to target (no hosts: no selector, no per_host prefixes). */
export function hasHosts(toolset: Toolset): boolean {
  return toolset.hosts.length > 0 || Object.keys(toolset.groups).length > 0;
}

function freeName(base: string, taken: ReadonlySet<string>): string {
  let name = base;
  for (let i = 0; i < 16 && taken.has(name); i++) name = '_' + name;
  return name;
}

/**
 * Name of the injected host selector: `host`, or `_host` when the runnable declares its own `host`
 * arg (more underscores if that is taken too).
 */
export function hostParamName(runnable: Runnable): string {
  const taken = new Set(allArgs(runnable).map((a) => a.name));
  if (runnable.ownHostArg) taken.add('host');
  return freeName('host', taken);
}

/**
 * Name of the top-level subcommand selector: `command`, or `_command` when the runnable declares an arg
 * named `command` (the fleet's `cron add` does), or undefined when the runnable has no subcommands.
 */
export function commandParamName(runnable: Runnable): string | undefined {
  if (!hasSubcommands(runnable)) return undefined;
  return freeName('command', new Set(allArgs(runnable).map((a) => a.name)));
}

/** Hosts a runnable is available on (all hosts when it does not say). */
export function hostsOf(toolset: Toolset, runnable: Runnable): string[] {
  return runnable.hosts ?? toolset.hosts;
}
