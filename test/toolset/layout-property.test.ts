import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArgSpec, Runnable, Subcommand, ToolMode, Toolset } from '../../src/types/toolset.js';
import { createLayout, type CallTarget } from '../../src/toolset/index.js';
import { hostsOf } from '../../src/toolset/lookup.js';

// Generated toolsets cover: hosts and host groups (or none at all), runnables that declare their own
// `host` (selector renamed `_host`) or `command` (verb slot renamed `_command`), legacy runnable
// groups, hidden runnables, per-runnable host lists, and nested subcommand trees.

const ARG_NAMES = ['service', 'path', 'count', 'host', 'command', 'name', 'id', 'args', '_host', 'force'];
const SUB_NAMES = ['list', 'add', 'remove', 'remote', 'status'];

const argArb: fc.Arbitrary<ArgSpec[]> = fc
  .uniqueArray(fc.constantFrom(...ARG_NAMES), { maxLength: 3 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.record({ type: fc.constantFrom('string', 'int', 'bool', 'array' as const), required: fc.boolean() }).map((r) => ({ name, ...r }) as ArgSpec),
      ),
    ),
  )
  .map((a) => a as ArgSpec[]);

const subsArb = (depth: number): fc.Arbitrary<Subcommand[]> =>
  fc.uniqueArray(fc.constantFrom(...SUB_NAMES), { maxLength: depth > 0 ? 3 : 0 }).chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .record({
            args: argArb,
            autonomy: fc.option(fc.constantFrom('autonomous', 'confirm', 'manual' as const), { nil: undefined }),
            subcommands: depth > 1 ? fc.option(subsArb(depth - 1), { nil: undefined }) : fc.constant(undefined),
          })
          .map((s) => {
            const sub: Subcommand = { name, args: s.args };
            if (s.autonomy) sub.autonomy = s.autonomy;
            if (s.subcommands && s.subcommands.length > 0) sub.subcommands = s.subcommands;
            return sub;
          }),
      ),
    ),
  ) as fc.Arbitrary<Subcommand[]>;

const toolsetArb: fc.Arbitrary<Toolset> = fc
  .record({
    hostCount: fc.integer({ min: 0, max: 4 }),
    groupPicks: fc.array(fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }), { maxLength: 2 }),
    runnables: fc.uniqueArray(
      fc.record({
        base: fc.stringMatching(/^[a-z][a-z-]{0,8}[a-z]$/).filter((s) => !s.includes('--')),
        group: fc.option(fc.constantFrom('console', 'filesystem'), { nil: undefined }),
        prefixed: fc.boolean(),
        args: argArb,
        subcommands: fc.option(subsArb(2), { nil: undefined }),
        hidden: fc.boolean(),
        ownHostFlag: fc.boolean(),
        restrictHosts: fc.boolean(),
      }),
      { minLength: 1, maxLength: 5, selector: (r) => r.base },
    ),
  })
  .map(({ hostCount, groupPicks, runnables }) => {
    const hosts = Array.from({ length: hostCount }, (_, i) => `h${i}-web`);
    const groups: Record<string, string[]> = {};
    if (hostCount > 0) groupPicks.forEach((picks, i) => (groups[`G${i}`] = [...new Set(picks.map((p) => hosts[p % hostCount]!))]));
    const list: Runnable[] = runnables.map((r) => {
      const out: Runnable = {
        name: r.group && r.prefixed ? `${r.group}_${r.base}` : r.base,
        description: `does ${r.base}`,
        category: 'bash',
        args: r.args,
        autonomy: 'confirm',
        ownHostArg: r.ownHostFlag || r.args.some((a) => a.name === 'host'),
      };
      if (r.group) out.group = r.group;
      if (r.subcommands && r.subcommands.length > 0) out.subcommands = r.subcommands;
      if (r.hidden) out.hidden = true;
      if (r.restrictHosts && hostCount > 0) out.hosts = hosts.slice(0, 1);
      return out;
    });
    return { name: 'gen', runnables: list, hosts, groups, source: 'test' };
  });

function commandPaths(subs: Subcommand[] | undefined, prefix: string[] = []): string[] {
  return (subs ?? []).flatMap((s) => [[...prefix, s.name].join(' '), ...commandPaths(s.subcommands, [...prefix, s.name])]);
}

function allArgs(r: Runnable): ArgSpec[] {
  const out = new Map<string, ArgSpec>();
  const add = (a: ArgSpec[]): void => a.forEach((x) => out.has(x.name) || out.set(x.name, x));
  add(r.args);
  const visit = (subs?: Subcommand[]): void => subs?.forEach((s) => (add(s.args), visit(s.subcommands)));
  visit(r.subcommands);
  return [...out.values()];
}

const valueArb = (a: ArgSpec): fc.Arbitrary<unknown> =>
  a.type === 'int' ? fc.integer() : a.type === 'bool' ? fc.boolean() : a.type === 'array' ? fc.array(fc.string(), { maxLength: 3 }) : fc.string();

/** A toolset and a target on it: a runnable, maybe a host or a host group, maybe a command path, some args. */
const scenarioArb = toolsetArb.chain((toolset) =>
  fc.constantFrom(...toolset.runnables).chain((r) => {
    const targets = [...toolset.hosts, ...Object.keys(toolset.groups)];
    const paths = commandPaths(r.subcommands);
    const args = allArgs(r);
    return fc
      .record({
        host: targets.length > 0 ? fc.option(fc.constantFrom(...targets), { nil: undefined }) : fc.constant(undefined),
        command: paths.length > 0 ? fc.option(fc.constantFrom(...paths), { nil: undefined }) : fc.constant(undefined),
        args: fc.tuple(...args.map((a) => fc.option(valueArb(a), { nil: undefined }))),
      })
      .map(({ host, command, args: values }) => {
        const target: CallTarget = { runnable: r.name, args: {} };
        if (host !== undefined) target.host = host;
        if (command !== undefined) target.command = command;
        args.forEach((a, i) => {
          if (values[i] !== undefined) target.args![a.name] = values[i];
        });
        return { toolset, runnable: r, target };
      });
  }),
);

const MODES: ToolMode[] = ['dedup', 'per_host', 'search'];

describe.each(MODES)('layout %s', (mode) => {
  it('resolve(renderCall(target)) recovers runnable, host, command and args', () => {
    fc.assert(
      fc.property(scenarioArb, ({ toolset, target }) => {
        const layout = createLayout(mode, toolset);
        const call = layout.renderCall(target, 'call_1');
        // The call goes through JSON, as it would over the wire.
        const resolved = layout.resolve(JSON.parse(JSON.stringify(call)));
        expect(resolved.known).toBe(true);
        expect(resolved.discovery).toBe(false);
        expect(resolved.runnable).toBe(target.runnable);
        expect(resolved.host).toBe(target.host);
        expect(resolved.command).toBe(target.command);
        expect(resolved.args).toEqual(target.args);
        expect(resolved.layout).toBe(mode);
        expect(resolved.calledName).toBe(call.name);
      }),
      { numRuns: 200 },
    );
  });

  it('renders calls to tools the layout offers, with only the parameters it declares', () => {
    fc.assert(
      fc.property(scenarioArb, ({ toolset, runnable, target }) => {
        fc.pre(!runnable.hidden);
        if (mode === 'per_host' && toolset.hosts.length > 0) fc.pre(target.host !== undefined && hostsOf(toolset, runnable).includes(target.host));
        const layout = createLayout(mode, toolset);
        const call = layout.renderCall(target);
        const tool = layout.tools().find((t) => t.name === call.name);
        expect(tool, `tool ${call.name}`).toBeDefined();
        const props = Object.keys((tool!.parameters as { properties: Record<string, unknown> }).properties);
        for (const key of Object.keys(call.arguments)) expect(props).toContain(key);
      }),
      { numRuns: 200 },
    );
  });

  it('resolves a legacy group-qualified id, and not under a wrong group', () => {
    fc.assert(
      fc.property(scenarioArb, ({ toolset, runnable, target }) => {
        fc.pre(runnable.group !== undefined);
        const layout = createLayout(mode, toolset);
        const bare = runnable.name.startsWith(`${runnable.group}_`) ? runnable.name.slice(runnable.group!.length + 1) : runnable.name;
        const call = layout.renderCall({ ...target, runnable: `${runnable.group}__${bare}` });
        const resolved = layout.resolve(call);
        expect([resolved.runnable, resolved.known, resolved.group, resolved.host, resolved.command]).toEqual([
          runnable.name,
          true,
          runnable.group,
          target.host,
          target.command,
        ]);
        const other = runnable.group === 'console' ? 'filesystem' : 'console';
        const wrong = layout.resolve(layout.renderCall({ runnable: `${other}__${bare}` }));
        // In per_host mode a prefix that is no runnable group reads as an (unknown) host instead.
        const otherIsGroup = toolset.runnables.some((r) => r.group === other);
        if (mode === 'per_host' && !otherIsGroup) return;
        if (!toolset.runnables.some((r) => r.group === other && (r.name === bare || r.name === `${other}_${bare}`))) expect(wrong.known).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
