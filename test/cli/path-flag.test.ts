import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

describe('--path', () => {
  it('refuses a file with a usage error (exit 2) instead of using it as a project', async () => {
    const cli = await runCli(['--path', 'README.md', 'list'], { cwd: REPO_ROOT });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/^error: --path README\.md: is a file; expected the project directory/m);
  });
});
