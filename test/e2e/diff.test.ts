import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, restartSuite, tempProject } from './_helpers.js';

const IDS = ['c1', 'c2', 'c3', 'c4'];

/** A mock script: the cases in `wrong` restart the wrong service (a failing verdict). */
function script(wrong: string[]): string {
  return JSON.stringify({
    cases: Object.fromEntries(
      IDS.map((id, i) => [
        id,
        [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: wrong.includes(id) ? 'other' : `svc${i}` } }] }],
      ]),
    ),
  });
}

describe('diff and run --baseline', { timeout: 120_000 }, () => {
  const project = tempProject();
  beforeAll(async () => {
    project.write('evals/many.toml', restartSuite(IDS));
    project.write('base.json.mock', script(['c4']));
    project.write('head.json.mock', script(['c2']));
    const base = await run(['run', 'evals/many.toml', '--provider', 'mock', '--script', 'base.json.mock', '--no-telemetry', '--out', 'results/base.json']);
    const head = await run(['run', 'evals/many.toml', '--provider', 'mock', '--script', 'head.json.mock', '--no-telemetry', '--out', 'head.json']);
    expect([base.exitCode, head.exitCode]).toEqual([1, 1]);
  });
  afterAll(() => project.cleanup());
  const run = (args: string[]) => runCli(['--path', project.dir, ...args], { env: cliEnv(project.dir), cwd: project.dir, spawn: true });

  it('reports the flipped cases in both directions and exits 1 on a regression', async () => {
    const cli = await run(['diff', 'results/base.json', 'head.json']);
    expect(cli.exitCode).toBe(1);
    expect(cli.stdout).toMatch(/1 regressed, 1 fixed, 0 new, 0 removed, 2 unchanged/);
    expect(cli.stdout).toMatch(/c2\s+pass → fail\s+100%\s+0% ✗\s+−100 pts\s+pass 1→0, wrong_args 0→1/);
    expect(cli.stdout).toMatch(/c4\s+fail → pass/);
    expect(cli.stdout).toContain('regressed: c2');
  });

  it('exits 0 when the head only fixes cases, and with --fail-on none', async () => {
    const fixedOnly = await run(['diff', 'head.json', 'results/base.json', '--output', 'json']);
    // head → base: c2 is fixed, c4 regresses.
    expect(fixedOnly.exitCode).toBe(1);
    const d = JSON.parse(fixedOnly.stdout) as { regressions: string[]; counts: Record<string, number> };
    expect(d.regressions).toEqual(['c4']);
    const none = await run(['diff', 'results/base.json', 'head.json', '--fail-on', 'none']);
    expect(none.exitCode).toBe(0);
    const same = await run(['diff', 'head.json', 'head.json', '--output', 'md']);
    expect(same.exitCode).toBe(0);
    expect(same.stdout).toContain('**0 regressed, 0 fixed, 0 new, 0 removed, 4 unchanged');
    expect(same.stdout).toContain('No case changed.');
  });

  it('run --baseline and ci diff refuse a --fail-on they do not know as diff does: one line naming the flag, exit 2', async () => {
    for (const [args, flag] of [
      [
        [
          'run',
          'evals/many.toml',
          '--provider',
          'mock',
          '--script',
          'head.json.mock',
          '--no-telemetry',
          '--baseline',
          'results/base.json',
          '--fail-on',
          'some',
        ],
        '--fail-on',
      ],
      [['ci', 'diff', '--head', 'head.json', '--base', 'results/base.json', '--fail-on', 'some'], 'ci diff --fail-on'],
    ] as const) {
      const cli = await run([...args]);
      expect(cli.exitCode, cli.stderr).toBe(2);
      expect(cli.stderr.trim().split('\n')[0]).toContain(`${flag}: expected one of any, significant, none (got "some")`);
      expect(cli.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('--fail-on significant counts a flip only when the 95% intervals are apart', async () => {
    // One sample each: 1/1 and 0/1 have overlapping Wilson intervals, so the flip may be noise.
    const one = await run(['diff', 'results/base.json', 'head.json', '--fail-on', 'significant']);
    expect(one.exitCode).toBe(0);
    const base10 = await run([
      'run',
      'evals/many.toml',
      '--provider',
      'mock',
      '--script',
      'base.json.mock',
      '--no-telemetry',
      '--samples',
      '10',
      '--out',
      'b10.json',
    ]);
    const head10 = await run([
      'run',
      'evals/many.toml',
      '--provider',
      'mock',
      '--script',
      'head.json.mock',
      '--no-telemetry',
      '--samples',
      '10',
      '--out',
      'h10.json',
    ]);
    expect([base10.exitCode, head10.exitCode]).toEqual([1, 1]);
    const ten = await run(['diff', 'b10.json', 'h10.json', '--fail-on', 'significant']);
    expect(ten.exitCode).toBe(1);
    expect(ten.stdout).toMatch(/c2\s+pass → fail\s+100%\s+0% ✗\s+−100 pts \*/);
  });

  it('takes the newest results file of a directory as the baseline and writes Markdown', async () => {
    const cli = await run(['diff', 'results', 'head.json', '--output', 'md', '--out', 'diff.md']);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toContain(`diff: ${join(project.dir, 'diff.md')}`);
  });

  it('refuses a bad format, a bad --fail-on and a missing file with exit 2 and one line', async () => {
    for (const args of [
      ['--output', 'xml'],
      ['--fail-on', 'some'],
    ]) {
      const cli = await run(['diff', 'results/base.json', 'head.json', ...args]);
      expect(cli.exitCode).toBe(2);
      expect(cli.stderr.trim().split('\n')[0]).toMatch(/^error: diff --(output|fail-on): expected one of/);
    }
    const missing = await run(['diff', 'nope.json', 'head.json']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('nope.json: no such results file or directory');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it('run --baseline prints the diff after the run and exits 1 when a case regressed', async () => {
    const cli = await run([
      'run',
      'evals/many.toml',
      '--provider',
      'mock',
      '--script',
      'head.json.mock',
      '--no-telemetry',
      '--out',
      'again.json',
      '--baseline',
      'results/base.json',
    ]);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toMatch(/1 regressed, 1 fixed/);
    expect(cli.stderr).toContain('regressed: c2');
    const ok = await run([
      'run',
      'evals/many.toml',
      '--provider',
      'mock',
      '--script',
      'head.json.mock',
      '--no-telemetry',
      '--out',
      'again2.json',
      '--baseline',
      'head.json',
      '--output',
      'json',
    ]);
    // Still 1: the run itself has a failing case; the diff adds nothing; stdout stays the JSON document.
    expect(ok.exitCode).toBe(1);
    expect(() => JSON.parse(ok.stdout) as unknown).not.toThrow();
    expect(ok.stderr).toContain('no regression');
  });
});
