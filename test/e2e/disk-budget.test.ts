import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// The disk budget of a case, set by flag or runspec.toml: a command writing past it is stopped and the
// case fails with `disk budget exceeded` (one command used to write ~856 MB to the host unchecked).
// These runs force the watchdog (RUNSPEC_DISK_BUDGET_MODE=watchdog), so the size check is what stops the
// command on every machine: as root the default would mount a tmpfs per worktree instead (that path is
// test/integration/disk-budget-tmpfs.test.ts).

const project = tempProject('runspec-diskbudget-');
afterAll(() => project.cleanup());
project.write(
  'suite.json',
  JSON.stringify({
    defaults: { n_runs: 1 },
    cases: [{ id: 'writer', user_prompt: 'Write a lot.', setup: { files: { 'a.txt': 'a' } }, expected_actions: [{ tool: 'bash' }] }],
  }),
);
project.write(
  'mock.json',
  JSON.stringify({
    cases: {
      writer: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'for i in 1 2 3 4 5 6 7 8; do head -c 67108864 /dev/zero > f$i; done; echo finished' } }] },
        { text: 'done' },
      ],
    },
  }),
);

const run = (args: string[], out: string) =>
  runCli(
    [
      '--path',
      project.dir,
      'run',
      'suite.json',
      '--provider',
      'mock:mock.json',
      '--out',
      `out/${out}.json`,
      '--no-telemetry',
      '--unsafe-host-commands',
      ...args,
    ],
    {
      env: cliEnv(project.dir, { RUNSPEC_DISK_BUDGET_MODE: 'watchdog' }),
      cwd: project.dir,
      spawn: true,
    },
  );

const entryOf = (out: string) => JSON.parse(readFileSync(join(project.dir, `out/${out}.json`), 'utf8')).iterations[0].cases.writer.runs[0];

describe('disk budget', { timeout: 120_000 }, () => {
  it.each([
    { name: '--disk-budget-mib', args: ['--disk-budget-mib', '16'], toml: '', out: 'flag' },
    { name: '[trajectory] disk_budget_mib', args: [], toml: '[trajectory]\ndisk_budget_mib = 16\n', out: 'file' },
  ])('fails a case whose command writes past $name', async ({ args, toml, out }) => {
    project.write('runspec.toml', toml);
    const cli = await run(args, out);
    // An errored sample, as any run that could not finish: exit 3, the reason on stderr and in the results.
    expect(cli.exitCode, cli.stderr).toBe(3);
    expect(cli.stderr).toContain('disk budget exceeded');
    const entry = entryOf(out);
    expect(entry.run_status).toBe('error');
    expect(entry.error).toMatchObject({ code: 'DISK_BUDGET' });
    expect(entry.tool_log[0].result).toMatch(/^Error: disk budget exceeded/);
    expect(entry.tool_log[0].result).not.toContain('finished');
  });

  it('leaves the same case alone under the default budget (1 GiB)', async () => {
    project.write('runspec.toml', '');
    const cli = await run([], 'default');
    expect(entryOf('default').run_status, cli.stderr).toBe('ok');
  });

  it('takes the mode from --disk-budget-mode too, and refuses one it does not know', async () => {
    project.write('runspec.toml', '');
    const cli = await run(['--disk-budget-mib', '16', '--disk-budget-mode', 'watchdog'], 'mode-flag');
    expect(cli.exitCode, cli.stderr).toBe(3);
    expect(entryOf('mode-flag').error).toMatchObject({ code: 'DISK_BUDGET' });
    const bad = await run(['--disk-budget-mode', 'tmpfs'], 'mode-bad');
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--disk-budget-mode/);
  });

  it('config shows the mode and where it came from', async () => {
    project.write('runspec.toml', '[trajectory]\ndisk_budget_mode = "watchdog"\n');
    const row = async (env: Record<string, string>) => {
      const cli = await runCli(['--path', project.dir, 'config'], { env: cliEnv(project.dir, env), cwd: project.dir });
      expect(cli.exitCode, cli.stderr).toBe(0);
      return cli.stdout.split('\n').find((l) => l.includes('trajectory.disk_budget_mode'));
    };
    expect(await row({})).toMatch(/trajectory\.disk_budget_mode\s+watchdog\s+\(file\)$/);
    expect(await row({ RUNSPEC_DISK_BUDGET_MODE: 'auto' })).toMatch(/trajectory\.disk_budget_mode\s+auto\s+\(env\)$/);
    project.write('runspec.toml', '');
    expect(await row({})).toMatch(/trajectory\.disk_budget_mode\s+auto\s+\(default\)$/);
  });

  it('refuses a budget that is not a positive whole number of MiB', async () => {
    const cli = await run(['--disk-budget-mib', '0'], 'zero');
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain('--disk-budget-mib');
  });
});
