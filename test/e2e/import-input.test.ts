import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from './_helpers.js';

// `import bfcl` on hostile input, as a real process: types nested 20,000 deep used to overflow the
// stack (exit 3, "Maximum call stack size exceeded"), `--out` at a directory gave a raw EISDIR, and a
// FIFO as input blocked for ever.

const project = tempProject('runspec-import-input-');
afterAll(() => project.cleanup());

const ANSWERS = project.write('answers.json', '{"id":"simple_python_0","ground_truth":[{"f":{"x":[1]}}]}\n');
const QUESTIONS = project.write(
  'questions.json',
  '{"id":"simple_python_0","question":[[{"role":"user","content":"x"}]],"function":[{"name":"f","description":"d","parameters":{"type":"dict","properties":{"x":{"type":"integer"}},"required":["x"]}}]}\n',
);

const importBfcl = (args: string[]) => runCli(['import', 'bfcl', ...args], { env: { HOME: project.dir }, cwd: project.dir, spawn: true, timeoutMs: 30_000 });

describe('import bfcl input', { timeout: 60_000 }, () => {
  it('refuses types nested 20,000 deep with the file, line and column, exit 2', async () => {
    const n = 20_000;
    const deep = `${'{"type":"array","items":'.repeat(n)}{"type":"integer"}${'}'.repeat(n)}`;
    const file = project.write(
      'deep.json',
      `{"id":"simple_python_0","question":[[{"role":"user","content":"x"}]],"function":[{"name":"f","description":"d","parameters":{"type":"dict","properties":{"x":${deep}},"required":["x"]}}]}\n`,
    );
    const cli = await importBfcl([file, ANSWERS, '--out', 'deep-out.json']);
    expect(cli.exitCode, cli.stderr).toBe(2);
    expect(cli.stderr).toMatch(/^error: \S+deep\.json:1:\d+: nested deeper than 64 levels\n/);
    expect(cli.stderr).not.toMatch(/stack|at \S+\.js/);
    expect(existsSync(join(project.dir, 'deep-out.json'))).toBe(false);
  });

  it('refuses --out at a directory, naming it, exit 2', async () => {
    // Named like the file it should be (an --out without .json or .toml is refused before, for its format).
    mkdirSync(join(project.dir, 'outdir.json'), { recursive: true });
    const cli = await importBfcl([QUESTIONS, ANSWERS, '--out', 'outdir.json']);
    expect(cli.exitCode, cli.stderr).toBe(2);
    expect(cli.stderr).toContain(`--out ${join(project.dir, 'outdir.json')}: is a directory`);
    expect(cli.stderr).not.toContain('EISDIR');
  });

  it('refuses a FIFO as input instead of blocking on it', async () => {
    const fifo = join(project.dir, 'questions.fifo');
    execFileSync('mkfifo', [fifo]);
    const cli = await importBfcl([fifo, '--out', 'fifo-out.json']);
    expect(cli.exitCode, cli.stderr).toBe(2);
    expect(cli.stderr).toContain(`QUESTIONS: ${fifo} is a FIFO, not a regular file`);
  });

  it('still imports the plain file', async () => {
    const cli = await importBfcl([QUESTIONS, ANSWERS, '--out', 'ok.json']);
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'ok.json'))).toBe(true);
  });
});
