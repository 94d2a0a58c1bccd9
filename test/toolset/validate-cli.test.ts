import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

// `validate` as a user runs it (main() in-process) in a fresh project, HOME pointed away from any real
// global fixtures.

const dir = mkdtempSync(join(tmpdir(), 'validate-cli-'));
const home = join(dir, 'home');
const project = join(dir, 'project');
const fleetSuite = join(REPO_ROOT, 'fixtures/runspec/fleet.toml');
const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };

/** 1-based line of the `[[eval]]` table holding the line that contains `needle` (the fixture loader's case line). */
function lineOf(file: string, needle: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  let i = lines.findIndex((l) => l.includes(needle));
  while (i > 0 && !lines[i]!.startsWith('[[eval]]')) i--;
  return i + 1;
}

beforeAll(() => {
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  // The fleet, with one runnable and one arg renamed: every fixture naming the old names must fail.
  const renamed = readFileSync(join(REPO_ROOT, 'fixtures/toolsets/fleet.toml'), 'utf8')
    .replace('name        = "restart-service"', 'name        = "service-restart"')
    .replace('args.replicas   =', 'args.replica_count =');
  writeFileSync(join(project, 'renamed.toml'), renamed);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runspec-eval validate', { timeout: 90_000 }, () => {
  it('passes the bundled catalog against the default toolsets (exit 0)', async () => {
    const cli = await runCli(['--path', project, 'validate'], { env });
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toMatch(/against builtin:fleet .*: ok\n$/);
    expect(cli.stdout).toMatch(/against builtin:workspace/);
    expect(cli.exitCode).toBe(0);
  });

  it('fails a renamed tool and a renamed arg with file:line and a did-you-mean (exit 2)', async () => {
    const cli = await runCli(['--path', project, 'validate', '--toolset', 'renamed.toml', fleetSuite], { env });
    expect(cli.exitCode).toBe(2);
    const restartLine = lineOf(fleetSuite, 'id          = "restart-nginx-targeted"');
    expect(cli.stdout).toContain(
      `${fleetSuite}:${restartLine}: case restart-nginx-targeted: expect_tool: unknown tool "restart-service" on toolset fleet; did you mean "service-restart"?`,
    );
    const scaleLine = lineOf(fleetSuite, 'id          = "scale-with-coercion"');
    expect(cli.stdout).toContain(
      `${fleetSuite}:${scaleLine}: case scale-with-coercion: expect_args.replicas: unknown arg "replicas" of scale-deployment; did you mean "replica_count"?`,
    );
    expect(cli.stdout).toContain('case status-not-restart: forbid_tools[0]: unknown tool "restart-service"');
    expect(cli.stdout).toMatch(/validate: \d+ cases against renamed\.toml \(14 tools\): \d+ problems\n$/);
  });

  it('takes the toolset from runspec.toml [toolset] file when --toolset is absent', async () => {
    const proj = join(dir, 'configured');
    mkdirSync(join(proj, '.runspec', 'eval'), { recursive: true });
    writeFileSync(join(proj, 'runspec.toml'), '[toolset]\nfile = "../project/renamed.toml"\n');
    const cli = await runCli(['--path', proj, 'validate', '--no-bundled', fleetSuite], { env });
    expect(cli.exitCode).toBe(2);
    expect(cli.stdout).toContain('did you mean "service-restart"?');
  });

  it('checks replio fixtures against the workspace tools by default', async () => {
    const fixture = join(dir, 'typo.json');
    writeFileSync(fixture, JSON.stringify({ id: 'typo', task: 'read it', expected: ['file_reed'] }, null, 2));
    const cli = await runCli(['validate', fixture], { env, cwd: project });
    expect(cli.exitCode).toBe(2);
    expect(cli.stdout).toMatch(/typo\.json(:\d+)?: case typo: expected\[0\]: unknown tool "file_reed" on toolset workspace; did you mean "file_read"\?/);
  });

  it('reports a broken toolset file as bad input (exit 2)', async () => {
    writeFileSync(join(project, 'broken.toml'), '[[runnable]]\nname = "x"\ncategory = "shell"\n');
    const cli = await runCli(['--path', project, 'validate', '--toolset', 'broken.toml', fleetSuite], { env });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/^error: .*broken\.toml:3: runnable\[0\]\.category: expected one of read, list, web, edit, bash, mcp \(got "shell"\)\nhint: /);
  });
});
