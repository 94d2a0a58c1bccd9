import type { Autonomy } from '../types/case.js';
import type { Runnable, Subcommand, Toolset } from '../types/toolset.js';
import { argsToJsonSchema } from './json-schema.js';
import { allArgs, commandParamName, hasHosts, hostParamName, hostsOf, leafCommandPaths } from './lookup.js';

// The JSON Schemas and descriptions the model sees for one runnable, shared by the layouts and the
// discovery answers (describe_tool returns exactly what a dedup tool would be).

const MAX_LISTED = 20;

/** Description of the host slot: a host, or a group to fan out to (the run_runnable wording). */
export function hostSelectorSchema(toolset: Toolset, hosts: readonly string[]): Record<string, unknown> {
  const groups = Object.keys(toolset.groups);
  // Big fleets: name the first few, so the description stays a description and not an inventory.
  const list = (names: readonly string[]): string =>
    names.length > MAX_LISTED ? `${names.slice(0, MAX_LISTED).join(', ')}, and ${names.length - MAX_LISTED} more` : names.join(', ');
  const hostList = hosts.length > 0 ? ` (${list(hosts)})` : '';
  const groupText = groups.length > 0 ? ` OR a host group name (${list(groups)}) to fan out to every host in that group at once` : '';
  return { type: 'string', description: `Which host to run on${hostList}${groupText}.` };
}

/** The top-level subcommand slot: a space-joined string, or an array for a nested path. */
export function commandSelectorSchema(runnable: Runnable): Record<string, unknown> {
  const paths = leafCommandPaths(runnable);
  return {
    anyOf: [
      { type: 'string', enum: paths },
      { type: 'array', items: { type: 'string' }, minItems: 1 },
    ],
    description: `Subcommand to run: one of ${paths.map((p) => `"${p}"`).join(', ')}. A nested path may also be an array (["remote", "add"]).`,
  };
}

function autonomyOf(parent: Autonomy, node: Subcommand): Autonomy {
  return node.autonomy ?? parent;
}

/** One line per subcommand path: `add [confirm]: Add a job (args: schedule*, command*)`. */
export function subcommandSummary(runnable: Runnable): string[] {
  const lines: string[] = [];
  const visit = (subs: Subcommand[] | undefined, prefix: string[], parent: Autonomy): void => {
    for (const s of subs ?? []) {
      const path = [...prefix, s.name];
      const level = autonomyOf(parent, s);
      const args = s.args.map((a) => a.name + (a.required ? '*' : ''));
      const desc = s.description ? `: ${s.description}` : '';
      lines.push(`${path.join(' ')} [${level}]${desc}${args.length > 0 ? ` (args: ${args.join(', ')})` : ''}`);
      visit(s.subcommands, path, level);
    }
  };
  visit(runnable.subcommands, [], runnable.autonomy);
  return lines;
}

/** The description of a runnable's tool, with its subcommands and how the host slot is named. */
export function runnableToolDescription(toolset: Toolset, runnable: Runnable, opts: { selector: boolean }): string {
  const parts = [runnable.description];
  const cmd = commandParamName(runnable);
  const summary = subcommandSummary(runnable);
  if (cmd && summary.length > 0) {
    parts.push(`Subcommands (pass the verb in \`${cmd}\`${runnable.requireCommand ? ', required' : ''}; * = required arg): ${summary.join('; ')}.`);
  }
  if (opts.selector && hasHosts(toolset)) {
    const hp = hostParamName(runnable);
    if (hp !== 'host') parts.push(`\`${hp}\` selects the fleet host to run on; \`host\` is this tool's own argument.`);
  }
  return parts.filter((p) => p !== '').join('\n');
}

/**
 * Parameters of a runnable's tool in the dedup / per_host layouts: the host selector (dedup only, when
 * the toolset has hosts), the subcommand selector (when the runnable has subcommands), and the args of
 * the whole subcommand tree. With subcommands, args are required per verb, so none is marked required.
 */
export function runnableToolParameters(toolset: Toolset, runnable: Runnable, opts: { selector: boolean }): Record<string, unknown> {
  const hasSubs = (runnable.subcommands?.length ?? 0) > 0;
  if (runnable.inputSchema && !hasSubs) return writtenSchema(toolset, runnable, opts);
  const base = argsToJsonSchema(hasSubs ? allArgs(runnable) : runnable.args, { requiredOk: !hasSubs });
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (opts.selector && hasHosts(toolset)) {
    const hp = hostParamName(runnable);
    properties[hp] = hostSelectorSchema(toolset, hostsOf(toolset, runnable));
    required.push(hp);
  }
  const cp = commandParamName(runnable);
  if (cp) {
    properties[cp] = commandSelectorSchema(runnable);
    if (runnable.requireCommand) required.push(cp);
  }
  Object.assign(properties, base.properties as Record<string, unknown>);
  required.push(...((base.required as string[] | undefined) ?? []));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * A schema as its author wrote it (OpenAI tools file, MCP inputSchema), with only the host selector
 * added in front when the layout needs one; `additionalProperties: false` and the rest stay.
 */
function writtenSchema(toolset: Toolset, runnable: Runnable, opts: { selector: boolean }): Record<string, unknown> {
  const schema = structuredClone(runnable.inputSchema!);
  if (schema.type === undefined) schema.type = 'object';
  if (!(opts.selector && hasHosts(toolset))) return schema;
  const hp = hostParamName(runnable);
  const own = typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};
  schema.properties = { [hp]: hostSelectorSchema(toolset, hostsOf(toolset, runnable)), ...own };
  schema.required = [hp, ...(Array.isArray(schema.required) ? (schema.required as unknown[]) : [])];
  return schema;
}
