import { resolve } from 'node:path';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import type { FixtureProblem } from '../../toolset/validate-fixtures.js';
import type { Case } from '../../types/case.js';
import { commaList } from './_comma-list.js';

interface ValidateOptions {
  toolset?: string;
  suite?: string[];
  bundled: boolean;
  timeoutMs?: string;
}

function formatProblem(p: FixtureProblem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}` : ''}: case ${p.caseId}: ${p.field}: ${p.message}`;
}

async function validate(ctx: CliContext, paths: string[], o: ValidateOptions): Promise<number> {
  // The loaders, the toolsets and zod load when the command runs: `validate --help` starts fast.
  const { loadConfigFile } = await import('../../config/file.js');
  const { readEnv } = await import('../../config/env.js');
  const { discoverFixtures, loadCasesFromPaths, mergeSuites } = await import('../../fixtures/discover.js');
  const { selectCases } = await import('../../fixtures/select.js');
  const { loadToolset } = await import('../../toolset/load.js');
  const { validateFixtures } = await import('../../toolset/validate-fixtures.js');
  const { toolsetSetting, toolsetSpecOf } = await import('../../config/settings.js');
  // One rule for which toolset a case runs against, shared with run/record/replay.
  const { ownToolsetOf } = await import('../../app/run-suite.js');
  const onWarning = (msg: string): void => ctx.warn(msg);
  const config = loadConfigFile(ctx.projectDir);
  const env = readEnv(ctx.env);
  const all =
    paths.length > 0
      ? mergeSuites(
          loadCasesFromPaths(
            paths.map((p) => resolve(ctx.cwd, p)),
            { onWarning },
          ),
        ).cases
      : (await discoverFixtures({ projectDir: ctx.projectDir, env: ctx.env, includeBundled: o.bundled, onWarning })).cases;
  let cases = selectCases(all, { suites: o.suite });
  // `--toolset FILE` over the discovered catalog checks the cases that toolset is for: the decision cases
  // ([toolset] applies to them). Trajectory cases run on the workspace tools unless their files are named.
  let leftOut = 0;
  if (o.toolset && paths.length === 0) {
    const decision = cases.filter((c) => c.mode === 'decision');
    leftOut = cases.length - decision.length;
    cases = decision;
  }
  const problems: FixtureProblem[] = [];
  if (cases.length === 0) {
    ctx.warn('no fixtures to validate');
    return 0;
  }
  const bySpec = new Map<string, Case[]>();
  const own: Case[] = [];
  for (const c of cases) {
    const ts = ownToolsetOf(c, o.toolset, env);
    if (ts) {
      problems.push(...validateFixtures([c], ts));
      own.push(c);
      continue;
    }
    const spec = toolsetSpecOf(toolsetSetting(o.toolset, env, config), c);
    bySpec.set(spec, [...(bySpec.get(spec) ?? []), c]);
  }
  const timeoutMs = o.timeoutMs !== undefined ? Number(o.timeoutMs) : undefined;
  const summary: string[] = own.length ? [`${own.length} case${own.length === 1 ? '' : 's'} against their own tools`] : [];
  for (const [spec, group] of bySpec) {
    const toolset = await loadToolset(spec, { projectDir: ctx.projectDir, env: ctx.env, ...(timeoutMs && timeoutMs > 0 ? { timeoutMs } : {}) });
    problems.push(...validateFixtures(group, toolset));
    summary.push(`${group.length} case${group.length === 1 ? '' : 's'} against ${spec} (${toolset.runnables.length} tools)`);
  }
  for (const p of problems) ctx.out(formatProblem(p));
  const verdict = problems.length === 0 ? 'ok' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  const note =
    leftOut > 0
      ? ` (${leftOut} trajectory case${leftOut === 1 ? '' : 's'} left out: they run on builtin:workspace; name their files to check them against ${o.toolset})`
      : '';
  ctx.out(`validate: ${summary.join(', ')}: ${verdict}${note}`);
  return problems.length === 0 ? 0 : 2;
}

export const validateCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('validate')
      .description('Ground tier: check that fixtures only name tools, verbs and args the toolset has (no model, no key)')
      .argument('[paths...]', 'fixture files or directories (default: the discovered catalog)')
      .option('--toolset <spec>', 'toolset file (.toml/.json, or an OpenAI tools array), builtin:fleet, builtin:workspace, mcp:<command> or mcp:http(s)://...')
      .option('--suite <names>', 'only these suites (comma-separated or repeated)', commaList)
      .option('--no-bundled', 'leave out the bundled catalog when discovering')
      .option('--timeout-ms <ms>', 'MCP connect + list limit (default 30000)')
      .addHelpText(
        'after',
        `
Checked: runspec expect_tool, expect_command, expect_args keys, expect_host, forbid_tools; replio
expected and verifier tools and arg names; turnstone expected_actions tools and arg keys.
Each problem prints as  file:line: case <id>: <field>: <message>  with a "did you mean".
Exit 0 when clean, 2 on any problem.

With --toolset and no paths, the discovered decision (runspec) cases are checked against it; trajectory
cases are left out (counted) unless their files are named.
Toolset per case when --toolset is absent: $RUNSPEC_TOOLSET, else (for runspec cases) runspec.toml
[toolset] file / mcp, else runspec cases against builtin:fleet and replio / turnstone cases against
builtin:workspace (the tools the trajectory engine executes).

Examples:
  runspec-eval validate
  runspec-eval validate --toolset tools.json evals/smoke.toml
  runspec-eval validate --toolset "mcp:npx -y @modelcontextprotocol/server-filesystem ." evals/`,
      )
      .action(action(getContext, setExit, (ctx, paths: string[], o: ValidateOptions) => validate(ctx, paths, o)));
  },
};
