import type { Autonomy } from '../types/case.js';
import type { Runnable, Subcommand, Toolset } from '../types/toolset.js';
import { argsToJsonSchema } from './json-schema.js';
import { allArgs, hostsOf, matchName } from './lookup.js';
import { didYouMean } from '../core/did-you-mean.js';
import { runnableToolDescription, runnableToolParameters } from './tool-schema.js';

// The read-only discovery tools of the search layout answer from the toolset itself, so a search-mode
// agent can really find and inspect a runnable before it calls run_runnable.

/** One search_runnables result row. */
export interface SearchRow {
  name: string;
  description: string;
  score: number;
  /** Arg names that matched a query word. */
  matched_args: string[];
  /** Subcommand paths, when the runnable has subcommands. */
  subcommands?: string[];
}

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== '');
}

function commandPaths(subs: Subcommand[] | undefined, prefix: string[] = []): string[] {
  return (subs ?? []).flatMap((s) => [[...prefix, s.name].join(' '), ...commandPaths(s.subcommands, [...prefix, s.name])]);
}

/**
 * Rank the visible runnables for a free-text query. Each distinct query word scores, per runnable:
 * +3 when it equals a word of the name (or group), else +2 when the name contains it (words of 3+
 * letters); +2 when it equals a word of a subcommand name; +2 when it equals a word of an arg name
 * (the arg is reported in `matched_args`); +1 when it is a word of the description. Rows with score 0
 * are dropped; ties sort by name. An empty query lists every visible runnable with score 0.
 *
 * @example searchRunnables(fleet, 'restart nginx service')[0].name // 'restart-service'
 */
export function searchRunnables(toolset: Toolset, query: string, limit = 10): SearchRow[] {
  const words = [...new Set(tokens(query))];
  const max = Math.max(1, Math.min(50, Math.floor(limit)));
  const rows: SearchRow[] = [];
  for (const r of toolset.runnables) {
    if (r.hidden) continue;
    const nameWords = new Set([...tokens(r.name), ...tokens(r.group ?? '')]);
    const subWords = new Set(commandPaths(r.subcommands).flatMap(tokens));
    const descWords = new Set(tokens(r.description));
    const args = allArgs(r);
    let score = 0;
    const matched = new Set<string>();
    for (const w of words) {
      if (nameWords.has(w)) score += 3;
      else if (w.length >= 3 && r.name.toLowerCase().includes(w)) score += 2;
      if (subWords.has(w)) score += 2;
      for (const a of args) {
        if (tokens(a.name).includes(w)) {
          score += 2;
          matched.add(a.name);
        }
      }
      if (descWords.has(w)) score += 1;
    }
    if (score === 0 && words.length > 0) continue;
    const row: SearchRow = { name: r.name, description: r.description, score, matched_args: [...matched] };
    const paths = commandPaths(r.subcommands);
    if (paths.length > 0) row.subcommands = paths;
    rows.push(row);
  }
  rows.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return rows.slice(0, max);
}

interface SubcommandDescription {
  name: string;
  path: string;
  description?: string;
  autonomy: Autonomy;
  require_command: boolean;
  parameters: Record<string, unknown>;
  subcommands?: SubcommandDescription[];
}

function describeSubs(subs: Subcommand[] | undefined, prefix: string[], parent: Autonomy, required: boolean): SubcommandDescription[] | undefined {
  if (!subs || subs.length === 0) return undefined;
  return subs.map((s) => {
    const path = [...prefix, s.name];
    const level = s.autonomy ?? parent;
    const req = s.requireCommand ?? required;
    const out: SubcommandDescription = {
      name: s.name,
      path: path.join(' '),
      ...(s.description ? { description: s.description } : {}),
      autonomy: level,
      require_command: req && (s.subcommands?.length ?? 0) > 0,
      parameters: argsToJsonSchema(s.args),
    };
    const inner = describeSubs(s.subcommands, path, level, req);
    if (inner) out.subcommands = inner;
    return out;
  });
}

/** The describe_runnable answer: schema, hosts, autonomy, and the subcommand tree with each verb's own autonomy. */
export function describeRunnable(toolset: Toolset, runnable: Runnable): Record<string, unknown> {
  const subs = describeSubs(runnable.subcommands, [], runnable.autonomy, runnable.requireCommand === true);
  return {
    name: runnable.name,
    description: runnable.description,
    ...(runnable.group ? { group: runnable.group } : {}),
    category: runnable.category,
    autonomy: runnable.autonomy,
    require_command: runnable.requireCommand === true,
    hosts: hostsOf(toolset, runnable),
    parameters: argsToJsonSchema(runnable.args),
    ...(subs ? { subcommands: subs } : {}),
    escalations: allArgs(runnable)
      .filter((a) => a.escalate)
      .map((a) => ({ arg: a.name, level: a.escalate!.level, ...(a.escalate!.when !== undefined ? { when: a.escalate!.when } : {}) })),
  };
}

/** The describe_tool answer: the tool as a dedup layout offers it (name, description, parameters) plus autonomy. */
export function describeTool(toolset: Toolset, runnable: Runnable): Record<string, unknown> {
  const subs = describeSubs(runnable.subcommands, [], runnable.autonomy, runnable.requireCommand === true);
  return {
    name: runnable.name,
    description: runnableToolDescription(toolset, runnable, { selector: true }),
    parameters: runnableToolParameters(toolset, runnable, { selector: true }),
    autonomy: runnable.autonomy,
    ...(subs ? { subcommands: subs } : {}),
  };
}

/** Look a runnable up for a describe call; an error text (with a "did you mean") when unknown or hidden. */
export function findForDescribe(toolset: Toolset, id: unknown): Runnable | string {
  if (typeof id !== 'string' || id.trim() === '') return 'Error: pass the runnable name (from search_runnables) as a string';
  const m = matchName(toolset, id, 'search');
  if (!m.runnable || m.runnable.hidden) {
    const visible = toolset.runnables.filter((r) => !r.hidden).map((r) => r.name);
    return `Error: unknown runnable "${id}"${didYouMean(m.bare, visible)}`;
  }
  return m.runnable;
}
