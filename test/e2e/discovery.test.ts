import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listSuites } from '../../src/console/_suites.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { tempProject } from './_helpers.js';

// `run` without targets used to run the 21 bundled demo cases even in a project with its own cases in
// evals/ (found only when named; no setting for case directories; the console could not see them). Now:
// the project's own cases (local, global, plugin, [fixtures] dirs) when it has any; the bundled demo cases
// when it has none, with --bundled, or when named. Through the built CLI.

const BUNDLED_CASES = 21;
const CASE = (id: string, svc: string): string => `[[eval]]\nid = "${id}"\nprompt = "restart ${svc} on web-01"\nexpect_tool = "restart-service"\n`;
const SCRIPT = JSON.stringify({ default: [{ text: 'done' }] });

function ranIds(dir: string, out: string): string[] {
  const doc = JSON.parse(readFileSync(join(dir, out), 'utf8')) as { iterations: Array<{ cases: Record<string, unknown> }> };
  return Object.keys(doc.iterations[0]!.cases).sort();
}

describe('which cases `run` runs without targets', { timeout: 120_000 }, () => {
  const empty = tempProject('runspec-disc-empty-');
  const own = tempProject('runspec-disc-own-');
  afterAll(() => {
    empty.cleanup();
    own.cleanup();
  });
  const env = isolatedEnv();
  // A global case (in the fake HOME's config dir) and a project with [fixtures] dirs = ["evals"].
  mkdirSync(join(env.XDG_CONFIG_HOME, 'runspec-eval', 'eval'), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME, 'runspec-eval', 'eval', 'g.toml'), CASE('from-global', 'svc9'));
  own.write('runspec.toml', '[fixtures]\ndirs = ["evals"]\n');
  own.write('evals/ops/restart.toml', CASE('from-evals-dir', 'svc1'));
  own.write('.runspec/eval/local.toml', CASE('from-local', 'svc2'));
  for (const p of [empty, own]) p.write('script.json', SCRIPT);
  const run = (dir: string, out: string, extra: string[] = [], home = env) =>
    runCli(['--path', dir, 'run', ...extra, '--provider', 'mock', '--script', 'script.json', '--no-telemetry', '--out', out], {
      cwd: dir,
      env: { ...home, NO_COLOR: '1' },
      spawn: true,
    });

  it('runs the bundled demo cases in a project that has none of its own', async () => {
    const r = await run(empty.dir, 'r.json', [], isolatedEnv());
    expect(r.stderr).not.toMatch(/^error: (?!.*every sample failed)/m);
    expect(ranIds(empty.dir, 'r.json')).toHaveLength(BUNDLED_CASES);
  });

  it("runs only the project's own cases (local, global, [fixtures] dirs) when it has any", async () => {
    const r = await run(own.dir, 'own.json');
    expect(r.exitCode, r.stderr).not.toBe(2);
    expect(ranIds(own.dir, 'own.json')).toEqual(['from-evals-dir', 'from-global', 'from-local']);
  });

  it('adds the bundled cases with --bundled, and runs a bundled suite when it is named', async () => {
    await run(own.dir, 'all.json', ['--bundled']);
    expect(ranIds(own.dir, 'all.json')).toHaveLength(BUNDLED_CASES + 3);
    await run(own.dir, 'fleet.json', ['fleet']);
    const fleet = ranIds(own.dir, 'fleet.json');
    expect(fleet).toContain('restart-nginx-targeted');
    expect(fleet).not.toContain('from-local');
  });

  it('lists every source, the bundled cases with theirs', async () => {
    const r = await runCli(['--path', own.dir, 'list'], { cwd: own.dir, env, spawn: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^restart-nginx-targeted\s+fleet\s+runspec\s+decision\s+bundled/m);
    expect(r.stdout).toMatch(/^from-evals-dir\s+restart\s+runspec\s+decision\s+local/m);
    expect(r.stdout).toMatch(/^from-global\s+g\s+runspec\s+decision\s+global/m);
  });

  it('the console lists the configured directories too', async () => {
    const suites = await listSuites({ projectDir: own.dir, env });
    expect(suites.find((s) => s.name === 'restart')).toMatchObject({ source: 'local', cases: 1 });
  });

  it('warns about a configured directory that does not exist', async () => {
    const p = tempProject('runspec-disc-missing-');
    try {
      p.write('runspec.toml', '[fixtures]\ndirs = ["nope"]\n');
      const r = await runCli(['--path', p.dir, 'list'], { cwd: p.dir, env: isolatedEnv(), spawn: true });
      expect(r.stderr).toContain('runspec.toml [fixtures] dirs: nope does not exist');
    } finally {
      p.cleanup();
    }
  });
});
