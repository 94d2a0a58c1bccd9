import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommandSandbox, findExecutable } from '../../src/engine/sandbox/command.js';
import { CLI } from '../helpers/run-cli.js';

// The disk budget as root: the worktree of each case is a tmpfs the harness mounts (budget + 8 MiB), so a
// command writing 2 GiB puts at most that on the host, the case fails with `disk budget exceeded`, and the
// tmpfs is unmounted when the case ends (or, after a kill -9, by the next run's sweep). Before, the
// worktree was ordinary host disk checked every 250 ms, and a kill -9 left whatever had been written.

const isRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;
const ready = isRoot && !!findExecutable('bwrap') && (await createCommandSandbox().ready());
const mountable = ready !== false && ready.ok && ready.note === undefined;

it('runs the tmpfs disk budget tests in CI (root, bubblewrap working, mounting permitted): a skip there is a failure', () => {
  if (process.env.CI === 'true')
    expect(mountable, `CI=true: needs root, bubblewrap and mount permission (${ready !== false && ready.ok ? ready.note : 'no sandbox'})`).toBe(true);
  else expect(typeof mountable).toBe('boolean');
});

const BUDGET_MIB = 16;
const root = mkdtempSync(join(tmpdir(), 'runspec-tmpfs-budget-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A project whose one case runs `commands` through bash, each in its own model turn. */
function project(name: string, commands: string[]): { dir: string; tmp: string } {
  const dir = join(root, name);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  // As /tmp: the sandbox's unprivileged uid must reach the worktree.
  chmodSync(dir, 0o755);
  chmodSync(tmp, 0o1777);
  writeFileSync(
    join(dir, 'suite.json'),
    JSON.stringify({
      defaults: { n_runs: 1 },
      cases: [{ id: 'writer', user_prompt: 'Write.', setup: { files: { 'a.txt': 'a' } }, expected_actions: [{ tool: 'bash' }] }],
    }),
  );
  writeFileSync(
    join(dir, 'mock.json'),
    JSON.stringify({ cases: { writer: [...commands.map((command) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })), { text: 'done' }] } }),
  );
  return { dir, tmp };
}

function cli(p: { dir: string; tmp: string }, onSpawn?: (pid: number) => void): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const args = [
    CLI,
    '--path',
    p.dir,
    'run',
    'suite.json',
    '--provider',
    'mock:mock.json',
    '--out',
    'out.json',
    '--no-telemetry',
    '--disk-budget-mib',
    String(BUDGET_MIB),
  ];
  const child = spawn(process.execPath, args, {
    cwd: p.dir,
    env: { PATH: process.env.PATH ?? '', HOME: p.dir, TMPDIR: p.tmp, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  onSpawn?.(child.pid!);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

const mountsUnder = (dir: string): string[] =>
  readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .filter((l) => l.split(' ')[1]?.startsWith(dir));
const worktreesIn = (tmp: string): string[] => readdirSync(tmp).filter((n) => n.startsWith('runspec-eval-'));
const toolResults = (dir: string): string[] =>
  JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')).iterations[0].cases.writer.runs[0].tool_log.map((t: { result: string }) => t.result);

describe.runIf(mountable)('disk budget as root: the worktree is a tmpfs of the budget', { timeout: 120_000 }, () => {
  it('stops a command writing 2 GiB, fails the case with "disk budget exceeded", and leaves nothing on the host', async () => {
    const p = project('write', ['stat -f -c %T . && df -B1 --output=size . | tail -1', 'head -c 2147483648 /dev/zero > big; echo finished']);
    const r = await cli(p);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('disk budget exceeded');
    const [fs, write] = toolResults(p.dir);
    // The command saw its worktree as a tmpfs of the budget plus the slack.
    const [type, size] = fs!.trim().split('\n');
    expect(type).toBe('tmpfs');
    expect(Number(size)).toBe((BUDGET_MIB + 8) * 1024 ** 2);
    expect(write).toMatch(/^Error: disk budget exceeded/);
    expect(write).not.toContain('finished');
    expect(mountsUnder(p.tmp)).toEqual([]);
    expect(worktreesIn(p.tmp)).toEqual([]);
  });

  it('unmounts the tmpfs when the run is interrupted (SIGINT: the case ends as cancelled)', async () => {
    const p = project('interrupted', ['touch started; sleep 60']);
    const started = (): boolean => worktreesIn(p.tmp).some((n) => readdirSync(join(p.tmp, n)).includes('started'));
    let poll: NodeJS.Timeout | undefined;
    const r = await cli(p, (pid) => {
      poll = setInterval(() => {
        if (started()) {
          clearInterval(poll);
          process.kill(pid, 'SIGINT');
        }
      }, 50);
    });
    clearInterval(poll);
    expect(r.stderr).toContain('interrupted (SIGINT)');
    expect(mountsUnder(p.tmp)).toEqual([]);
    expect(worktreesIn(p.tmp)).toEqual([]);
  });

  it('unmounts the tmpfs of a run killed with SIGKILL on the next run', async () => {
    const p = project('killed', ['touch started; sleep 60']);
    const started = (): boolean => worktreesIn(p.tmp).some((n) => readdirSync(join(p.tmp, n)).includes('started'));
    let poll: NodeJS.Timeout | undefined;
    const killed = await cli(p, (pid) => {
      // Killed once the command runs (its worktree is mounted by then).
      poll = setInterval(() => {
        if (started()) {
          clearInterval(poll);
          process.kill(pid, 'SIGKILL');
        }
      }, 50);
    });
    clearInterval(poll);
    expect(killed.signal).toBe('SIGKILL');
    expect(mountsUnder(p.tmp)).toHaveLength(1);
    // The next run sweeps it: unmounted and removed.
    writeFileSync(join(p.dir, 'mock.json'), JSON.stringify({ cases: { writer: [{ text: 'done' }] } }));
    const next = await cli(p);
    expect(next.stderr).toContain('removed 1 worktree(s) left by runs that were killed');
    expect(mountsUnder(p.tmp)).toEqual([]);
    expect(worktreesIn(p.tmp)).toEqual([]);
  });
});
