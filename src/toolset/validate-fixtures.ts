import type { ArgExpectation, Case } from '../types/case.js';
import type { ArgSpec, Runnable, Toolset } from '../types/toolset.js';
import { allArgs, allCommandPaths, argSetFor, canonicalHost, commandPath, hasHosts, matchName, walkCommand } from './lookup.js';
import { didYouMean } from '../core/did-you-mean.js';

/** One fixture expectation that names something the toolset does not have. */
export interface FixtureProblem {
  file: string;
  line?: number;
  caseId: string;
  /** Field path in the fixture's own spelling (`expect_args.service`, `expected_actions[0].tool`). */
  field: string;
  message: string;
}

/**
 * The ground tier: check that every name a fixture relies on exists on the toolset, so a renamed
 * runnable or arg fails before any model runs. Checked: runspec `expect_tool` (and that it is not
 * hidden), `expect_command`, `expect_args` keys (against the expected subcommand's arg set, else any
 * arg of the runnable), `expect_host` (when the toolset has hosts), `forbid_tools`; replio `expected`,
 * `verifier.exact` / `must_include` / `avoid` and `verifier.args` tools and arg names; turnstone
 * `expected_actions[i].tool` and its `args` / `args_pattern` keys. Legacy `group__name` ids are
 * accepted when they resolve. Every unknown name comes with a "did you mean" when one is close.
 */
export function validateFixtures(cases: readonly Case[], toolset: Toolset): FixtureProblem[] {
  const problems: FixtureProblem[] = [];
  const names = toolset.runnables.map((r) => r.name);
  const visibleNames = toolset.runnables.filter((r) => !r.hidden).map((r) => r.name);
  const where = `toolset ${toolset.name}`;

  for (const c of cases) {
    const add = (field: string, message: string): void => {
      problems.push({ file: c.source.file, ...(c.source.line !== undefined ? { line: c.source.line } : {}), caseId: c.id, field, message });
    };
    /** Resolve a tool name; reports and returns undefined when unknown (or hidden, for positive expectations). */
    const tool = (name: string, field: string, positive: boolean): Runnable | undefined => {
      const m = matchName(toolset, name, 'dedup');
      if (!m.runnable) {
        const group = m.group !== undefined ? ` in group "${m.group}"` : '';
        add(field, `unknown tool "${name}"${group} on ${where}${didYouMean(m.bare, positive ? visibleNames : names)}`);
        return undefined;
      }
      if (positive && m.runnable.hidden) add(field, `tool "${name}" is hidden on ${where}: the model is never offered it`);
      return m.runnable;
    };
    const argKeys = (runnables: Runnable[], keys: string[], field: string, argSetOf: (r: Runnable) => ArgSpec[]): void => {
      if (runnables.length === 0) return;
      for (const key of keys) {
        if (runnables.some((r) => argSetOf(r).some((a) => a.name === key))) continue;
        const candidates = new Set(runnables.flatMap((r) => argSetOf(r).map((a) => a.name)));
        const owner = runnables.map((r) => r.name).join(' / ');
        add(`${field}.${key}`, `unknown arg "${key}" of ${owner}${didYouMean(key, candidates)}`);
      }
    };
    const keysOf = (args: Record<string, ArgExpectation> | Record<string, string> | undefined): string[] => Object.keys(args ?? {});

    const rs = c.runspec;
    if (rs) {
      const found: Runnable[] = [];
      (rs.tool ?? []).forEach((t, i) => {
        const r = tool(t, (rs.tool?.length ?? 0) > 1 ? `expect_tool[${i}]` : 'expect_tool', true);
        if (r) found.push(r);
      });
      let argSetOf = allArgs;
      if (rs.command !== undefined && found.length > 0) {
        const path = commandPath(rs.command);
        const ok = found.filter((r) => walkCommand(r, path).rest.length === 0 && (r.subcommands?.length ?? 0) > 0);
        if (ok.length === 0) {
          const paths = new Set(found.flatMap(allCommandPaths));
          const has = paths.size > 0 ? `; it has ${[...paths].join(', ')}` : '; it has no subcommands';
          add('expect_command', `unknown subcommand "${rs.command}" of ${found.map((r) => r.name).join(' / ')}${has}${didYouMean(path.join(' '), paths)}`);
        } else {
          argSetOf = (r: Runnable) => argSetFor(r, walkCommand(r, path).chain);
          found.splice(0, found.length, ...ok);
        }
      }
      argKeys(found, keysOf(rs.args), 'expect_args', argSetOf);
      if (rs.host !== undefined && hasHosts(toolset) && canonicalHost(toolset, rs.host) === undefined) {
        const known = [...toolset.hosts, ...Object.keys(toolset.groups)];
        add('expect_host', `unknown host or host group "${rs.host}" on ${where}${didYouMean(rs.host, known)}`);
      }
      (rs.forbidTools ?? []).forEach((t, i) => void tool(t, `forbid_tools[${i}]`, false));
      (rs.calls ?? []).forEach((call, i) => {
        const r = tool(call.tool, `expect_calls[${i}].tool`, true);
        if (r) argKeys([r], Object.keys(call.args), `expect_calls[${i}].args`, allArgs);
      });
    }

    const rp = c.replio;
    if (rp) {
      (rp.expected ?? []).forEach((t, i) => void tool(t, `expected[${i}]`, true));
      const v = rp.verifier;
      if (v) {
        (v.exact ?? []).forEach((t, i) => void tool(t, `verifier.exact[${i}]`, true));
        (v.mustInclude ?? []).forEach((t, i) => void tool(t, `verifier.must_include[${i}]`, true));
        (v.avoid ?? []).forEach((t, i) => void tool(t, `verifier.avoid[${i}]`, false));
        for (const [t, args] of Object.entries(v.args ?? {})) {
          const r = tool(t, `verifier.args.${t}`, true);
          if (r) argKeys([r], keysOf(args), `verifier.args.${t}`, allArgs);
        }
      }
    }

    const ts = c.turnstone;
    if (ts) {
      ts.actions.forEach((a, i) => {
        const r = tool(a.tool, `expected_actions[${i}].tool`, true);
        if (!r) return;
        argKeys([r], keysOf(a.args), `expected_actions[${i}].args`, allArgs);
        argKeys([r], keysOf(a.argsPattern), `expected_actions[${i}].args_pattern`, allArgs);
      });
    }
  }
  return problems;
}
