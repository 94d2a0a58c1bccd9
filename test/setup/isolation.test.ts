import { mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { isInside } from '../../src/core/path-inside.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

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
