// Installable from git: `npm install git+file://<bare clone>` of this checkout's HEAD into an empty project.
// npm clones it, installs its dev dependencies and runs `prepare` (the build), so the installed package has
// a dist/ and an executable bin. HEAD is what is tested: commit before running this. It lives in the
// integration tier: installing every dev dependency to build is the longest install we run (about a minute).
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { runInstalled } from '../packed/_cli.js';
import { emptyProject, install, npmCacheDir, tempRoot } from '../packed/_install.js';

const cache = npmCacheDir();
const root = tempRoot('runspec-git-install-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm install git+file://', () => {
  it('builds on prepare: the installed bin runs --help and list', { timeout: 600_000 }, async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const bareRepo = join(root, 'runspec-eval.git');
    execFileSync('git', ['init', '--quiet', '--bare', bareRepo], { stdio: 'pipe' });
    execFileSync('git', ['push', '--quiet', bareRepo, `${head}:refs/heads/main`], { cwd: REPO_ROOT, stdio: 'pipe' });
    execFileSync('git', ['symbolic-ref', 'HEAD', 'refs/heads/main'], { cwd: bareRepo, stdio: 'pipe' });
    const project = emptyProject(root, 'consumer');
    await install(project, [`git+file://${bareRepo}#${head}`], cache);
    const pkgDir = join(project, 'node_modules', 'runspec-eval');
    expect(existsSync(join(pkgDir, 'dist', 'index.js'))).toBe(true);
    expect(statSync(join(pkgDir, 'dist', 'cli', 'main.js')).mode & 0o111).not.toBe(0);
    const help = await runInstalled(project, ['--help']);
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: runspec-eval/);
    const list = await runInstalled(project, ['list']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/fleet/);
  });
});
