import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import config, { MOCKING } from '../../vitest.config.js';
import { isInside } from '../../src/core/path-inside.js';
import { isolatedEnv, REPO_ROOT, runCli } from '../helpers/run-cli.js';

// The suite's meaning may not depend on the machine: a global fixture in the developer's
// ~/.config/runspec-eval/eval once made three test files fail.
describe('test isolation', () => {
  const root = realpathSync(inject('runRoot'));

  it('gives this test file its own empty HOME, XDG_CONFIG_HOME and TMPDIR inside the run root', () => {
    for (const dir of [homedir(), tmpdir(), process.env.XDG_CONFIG_HOME!]) expect(isInside(root, realpathSync(dir)), dir).toBe(true);
    expect(readdirSync(process.env.XDG_CONFIG_HOME!)).toEqual([]);
  });

  it('gives every CLI call fresh empty folders of its own', () => {
    const a = isolatedEnv();
    const b = isolatedEnv();
    for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'TMPDIR'] as const) {
      expect(a[key]).not.toBe(b[key]);
      expect(isInside(root, realpathSync(a[key]))).toBe(true);
    }
  });

  it.each([
    { name: 'in process', spawn: false },
    { name: 'as a process', spawn: true },
  ])("keeps a global fixture in the worker's HOME away from the CLI ($name)", async ({ spawn }) => {
    const dir = join(homedir(), '.config', 'runspec-eval', 'eval');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'planted.toml'), '[[eval]]\nid = "planted-global"\nprompt = "x"\nexpect_tool = "y"\n');
    try {
      const seen = await runCli(['list'], { cwd: tmpdir(), spawn });
      expect(seen.exitCode).toBe(0);
      expect(seen.stdout).toContain('bundled');
      expect(seen.stdout).not.toContain('planted-global');
      // The same CLI given that HOME does see it: the check above can fail.
      const told = await runCli(['list'], { cwd: tmpdir(), spawn, env: { HOME: homedir(), XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME } });
      expect(told.stdout).toContain('planted-global');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// `unit` reuses a worker for the next file, and vitest resets mocks and the module cache between
// files only in isolated workers: a module mocked there would stay mocked, or stay real, in later files.
describe('files that mock run in a fresh worker', () => {
  it('lists every test file that mocks a module or stubs a global in the isolated project, and only those', () => {
    const files = readdirSync(join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts') && !/^(e2e|packed|integration)\//.test(f))
      .map((f) => `test/${f}`);
    const mocking = files.filter((f) => /\bvi\.(mock|doMock|stubEnv|stubGlobal)\(/.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
    expect(mocking.sort()).toEqual([...MOCKING].sort());
    const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include?: string[]; isolate?: boolean } }>;
    const isolated = projects.find((p) => p.test.include === MOCKING);
    expect(isolated?.test.isolate).not.toBe(false);
  });
});
