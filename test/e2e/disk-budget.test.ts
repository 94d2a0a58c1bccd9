import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// The disk budget of a case, set by flag or runspec.toml: a command writing past it is stopped and the
// case fails with `disk budget exceeded` (one command used to write ~856 MB to the host unchecked).

const project = tempProject('runspec-diskbudget-');
afterAll(() => project.cleanup());
project.write(
  'suite.json',
  JSON.stringify({ defaults: { n_runs: 1 }, cases: [{ id: 'writer', user_prompt: 'Write a lot.', setup: { files: { 'a.txt': 'a' } }, expected_actions: [{ tool: 'bash' }] }] }),
);
project.write(
  'mock.json',
  JSON.stringify({ cases: { writer: [{ toolCalls: [{ name: 'bash', arguments: { command: 'for i in 1 2 3 4 5 6 7 8; do head -c 67108864 /dev/zero > f$i; done; echo finished' } }] }, { text: 'done' }] } }),
);

const run = (args: string[], out: string) =>
  runCli(['--path', project.dir, 'run', 'suite.json', '--provider', 'mock:mock.json', '--out', `out/${out}.json`, '--no-telemetry', '--unsafe-host-commands', ...args], {
    env: cliEnv(project.dir),
    cwd: project.dir,
    spawn: true,
  });

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

  it('refuses a budget that is not a positive whole number of MiB', async () => {
    const cli = await run(['--disk-budget-mib', '0'], 'zero');
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain('--disk-budget-mib');
  });
});
