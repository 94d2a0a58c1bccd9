import { spawn } from 'node:child_process';
import { chmodSync, closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/run-cli.js';
import { tempProject } from './_helpers.js';

// Descriptors the harness inherits without close-on-exec used to reach the model's commands through
// setpriv, bwrap and prlimit: with fds 100 and 101 open in the parent, `cat <&100` read a 0600 host file
// and `>&101` wrote another. Commands now start with only stdin, stdout and stderr.

const project = tempProject('runspec-fds-');
afterAll(() => project.cleanup());

const SECRET = 'host-only-secret-0600';
const COMMAND = 'ls /proc/self/fd | tr "\\n" " "; echo; cat <&100; echo written >&101; echo end';

project.write(
  'suite.json',
  JSON.stringify({
    defaults: { n_runs: 1 },
    cases: [{ id: 'fds', user_prompt: 'List your descriptors.', setup: { files: { 'a.txt': 'a' } }, expected_actions: [{ tool: 'bash' }] }],
  }),
);
project.write('mock.json', JSON.stringify({ cases: { fds: [{ toolCalls: [{ name: 'bash', arguments: { command: COMMAND } }] }, { text: 'done' }] } }));

/** Run the built CLI with `secret` open read-only at fd 100 and `sink` open for append at fd 101. */
async function runWithHighFds(extra: string[], out: string): Promise<{ code: number | null; stderr: string; result: string; sink: string }> {
  const secret = project.write('host-secret.txt', SECRET);
  chmodSync(secret, 0o600);
  const sink = project.write(`sink-${out}.txt`, '');
  const rd = openSync(secret, 'r');
  const wr = openSync(sink, 'a');
  const stdio = ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(97).fill('ignore'), rd, wr] as const;
  expect(stdio.indexOf(rd)).toBe(100);
  const child = spawn(
    process.execPath,
    [CLI, '--path', project.dir, 'run', 'suite.json', '--provider', 'mock:mock.json', '--out', `out/${out}.json`, '--no-telemetry', ...extra],
    {
      cwd: project.dir,
      env: { PATH: process.env.PATH ?? '', HOME: project.dir, NO_COLOR: '1' },
      stdio: [...stdio],
    },
  );
  closeSync(rd);
  closeSync(wr);
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdout!.resume();
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  const doc = JSON.parse(readFileSync(join(project.dir, `out/${out}.json`), 'utf8'));
  const result: string = doc.iterations[0].cases.fds.runs[0].tool_log[0].result;
  return { code, stderr, result, sink: readFileSync(sink, 'utf8') };
}

describe('descriptors inherited by the harness', { timeout: 60_000 }, () => {
  it.each([
    { name: 'the default sandbox', extra: [], out: 'sandboxed' },
    { name: 'host commands (--unsafe-host-commands)', extra: ['--unsafe-host-commands'], out: 'host' },
  ])('do not reach a command in $name', async ({ extra, out }) => {
    const r = await runWithHighFds(extra, out);
    expect(r.code, r.stderr).not.toBe(null);
    if (r.result.includes('command tools are refused')) {
      // No working bubblewrap here: nothing ran, so nothing leaked (CI has bubblewrap: sandbox-hostile checks that).
      expect(process.env.CI).not.toBe('true');
      return;
    }
    expect(r.result).toContain('end');
    // Only 0, 1, 2 and the descriptor ls opens to list the directory.
    expect(r.result.split('\n')[0]!.trim().split(' ')).toEqual(['0', '1', '2', '3']);
    expect(r.result).not.toContain(SECRET);
    expect(r.sink).toBe('');
  });
});
