import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/run-cli.js';

// Most CLI tests call main() in-process (test/helpers/run-cli.ts). These run the built entry point
// (dist/cli/main.js) as a real process: what only a process shows is its exit status and its streams.
describe('the runspec-eval process', () => {
  it('exits 0 with the version on --version', async () => {
    const r = await runCliProcess(['--version']);
    expect(r).toMatchObject({ exitCode: 0, signal: null });
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 on an unknown command with a one-line error and no stack trace', async () => {
    const r = await runCliProcess(['bogus']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown command 'bogus'");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
