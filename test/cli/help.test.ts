import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

describe('runspec-eval CLI', () => {
  it('prints help listing every subcommand and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.exitCode).toBe(0);
    for (const c of ['list', 'run', 'validate', 'score', 'serve', 'compare', 'merge', 'report']) expect(r.stdout).toContain(c);
  });

  it('exits 2 on an unknown command with a one-line error and no stack trace', async () => {
    const r = await runCli(['bogus']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown command 'bogus'");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
