import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { isolatedEnv } from './_cli.js';
import { emptyProject, install } from './_install.js';

// A user's project that runs its eval cases as vitest tests through `runspec-eval/vitest`: the packed tarball
// and vitest installed from the npm cache, a TOML case file and inline cases against the mock provider,
// vitest's JUnit reporter beside our results document, and a watch run that reruns when the case file changes.
// vitest itself runs as a separate process, as users run it.

const { tarball, cache, root } = inject('packed');
const dir = emptyProject(root, 'vitest-sample');
const VITEST = join(dir, 'node_modules/vitest/vitest.mjs');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const project = { dir };

beforeAll(async () => {
  await install(dir, [tarball, `vitest@${pkg.devDependencies.vitest}`], cache);
  const src = join(REPO_ROOT, 'test/packed/vitest-project');
  mkdirSync(join(dir, 'evals'));
  cpSync(join(src, 'fleet.toml'), join(dir, 'evals/fleet.toml'));
  for (const f of ['mock.json', 'vitest.config.mjs', 'evals.test.mjs']) cpSync(join(src, f), join(dir, f));
}, 600_000);

const env = (): NodeJS.ProcessEnv => isolatedEnv({ CI: '1' });

function vitest(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [VITEST, ...args], { cwd: project.dir, env: env() });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('close', (code) => done({ code, out }));
  });
}

describe('runspec-eval/vitest in a user project', { timeout: 180_000 }, () => {
  it('runs one test per case, fails the case below its threshold with the verdict, and writes JUnit and our results alike', async () => {
    const r = await vitest(['run']);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(
      /status-api: pass rate 0% of 1 judged samples, below threshold 1\s+sample 0: wrong_tool: expected service-status, got restart-service/,
    );
    expect(r.out).toMatch(/Tests\s+1 failed \| 3 passed \(4\)/);
    const junit = readFileSync(join(project.dir, 'junit.xml'), 'utf8');
    const junitCases = [...junit.matchAll(/<testcase classname="[^"]*" name="([^"]*)"[^>]*>\s*(<failure)?/g)].map((m) => ({
      name: m[1]!.split(' &gt; ').pop()!,
      failed: !!m[2],
    }));
    const doc = JSON.parse(readFileSync(join(project.dir, 'results.json'), 'utf8')) as {
      iterations: Array<{ cases: Record<string, { meets_threshold: boolean }> }>;
    };
    const ours = Object.entries(doc.iterations[0]!.cases).map(([name, c]) => ({ name, failed: !c.meets_threshold }));
    // Every eval case is a JUnit test case with the same outcome (the matcher test is vitest's own).
    for (const c of ours) expect(junitCases).toContainEqual(c);
    expect(ours.map((c) => c.name).sort()).toEqual(['inline-ok', 'restart-nginx', 'status-api']);
    // The results document is the CLI's: report renders it.
    const report = await new Promise<string>((done) => {
      const child = spawn(join(dir, 'node_modules/.bin/runspec-eval'), ['report', 'results.json', '--output', 'md'], { cwd: project.dir, env: env() });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.on('close', () => done(out));
    });
    expect(report).toContain('status-api');
  });

  it('reruns in --watch when a case file changes', async () => {
    const child = spawn(process.execPath, [VITEST, '--watch'], { cwd: project.dir, env: env() });
    let out = '';
    const waiting = new Set<() => void>();
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      for (const check of waiting) check();
    });
    const seen = (re: RegExp, deadlineMs: number): Promise<void> =>
      new Promise((done, fail) => {
        const check = (): void => {
          if (!re.test(out)) return;
          clearTimeout(timer);
          waiting.delete(check);
          done();
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          fail(new Error(`no ${re} within ${deadlineMs} ms:\n${out}`));
        }, deadlineMs);
        waiting.add(check);
        check();
      });
    try {
      await seen(/Watching for file changes/, 120_000);
      const file = join(project.dir, 'evals/fleet.toml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('expect_tool = "service-status"', 'expect_tool = "restart-service"'));
      // The case now expects what the model does: its test passes on the rerun (the matcher test, which
      // asserted the old verdict, fails: the rerun really ran the new case file).
      await seen(/RERUN[\s\S]*✓ status-api[\s\S]*Tests\s+1 failed \| 3 passed \(4\)/, 120_000);
      expect(out).toMatch(/RERUN/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
