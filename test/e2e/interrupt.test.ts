import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createCommandSandbox } from '../../src/engine/sandbox/command.js';
import { CLI, isolatedEnv } from '../helpers/run-cli.js';
import { tempProject } from './_helpers.js';

// Interruption and resume that cannot lie: SIGTERM like Ctrl-C, a second signal stops at once and
// leaves no command running, worktrees of a kill -9 are swept by the next run, a log is only continued
// by its own run with the same cases and settings, and infrastructure errors are run again on resume.

const MARKER = '27.1828';
const project = tempProject('runspec-interrupt-');
const tmp = join(project.dir, 'tmp');
mkdirSync(tmp);
// A root harness runs commands as uid 65534, which must be able to reach the worktree under TMPDIR.
chmodSync(project.dir, 0o755);
afterAll(() => project.cleanup());

const turnstone = (ids: string[]) =>
  JSON.stringify({ cases: ids.map((id) => ({ id, user_prompt: `do ${id}`, expected_actions: [{ tool: 'bash' }], n_runs: 1 })) });
const sleeper = (ids: string[]) =>
  JSON.stringify({
    cases: Object.fromEntries(
      ids.map((id) => [id, [{ toolCalls: [{ name: 'bash', arguments: { command: `touch started; sleep ${MARKER}` } }] }, { text: 'done' }]]),
    ),
  });

function spawnCli(args: string[]): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: project.dir,
    env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), HOME: project.dir, TMPDIR: tmp },
    stdio: 'pipe',
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout!.resume();
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

const worktrees = (): string[] => readdirSync(tmp).filter((n) => n.startsWith('runspec-eval-'));

/** Wait (bounded) until a command has started inside some worktree. */
async function commandStarted(): Promise<string> {
  for (let i = 0; i < 1600; i++) {
    const wt = worktrees().find((n) => existsSync(join(tmp, n, 'started')));
    if (wt) return wt;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no command started within 40 s');
}

/** Marker processes, after waiting (bounded) for the kernel to finish killing a sandbox whose parent died. */
async function markerProcessesSettled(): Promise<number> {
  let n = markerProcesses();
  for (let i = 0; i < 200 && n > 0; i++) {
    await new Promise((r) => setTimeout(r, 25));
    n = markerProcesses();
  }
  return n;
}

function markerProcesses(): number {
  let n = 0;
  // No /proc (not Linux): nothing to find, and nothing was sandboxed either.
  const pids = existsSync('/proc') ? readdirSync('/proc').filter((p) => /^\d+$/.test(p)) : [];
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MARKER)) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

async function cli(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main({
    argv,
    cwd: project.dir,
    env: { PATH: process.env.PATH, HOME: project.dir, TMPDIR: tmp },
    stdout: new Writable({ write: (_c, _e, cb) => cb() }),
    stderr: new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) }),
  });
  return { code, stderr };
}

describe('interruption', { timeout: 120_000 }, () => {
  project.write('sleep.json', turnstone(['s1', 's2']));
  project.write('sleep-script.json', sleeper(['s1', 's2']));
  project.write('nothing.json', JSON.stringify({ default: [{ text: 'done' }] }));
  const nextRun = async (out: string) =>
    exited(spawnCli(['run', 'sleep.json', '--provider', 'mock', '--script', 'nothing.json', '--no-telemetry', '--out', out]));
  const run = (out: string, extra: string[] = []) => [
    'run',
    'sleep.json',
    '--provider',
    'mock',
    '--script',
    'sleep-script.json',
    '--concurrency',
    '1',
    '--no-telemetry',
    '--unsafe-host-commands',
    '--out',
    out,
    ...extra,
  ];

  it.each(['SIGTERM', 'SIGINT'] as const)('%s ends in-flight work, cleans up, prints the resume line and exits 3', async (signal) => {
    const child = spawnCli(run(`${signal}.json`));
    const done = exited(child);
    await commandStarted();
    child.kill(signal);
    const r = await done;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`interrupted (${signal})`);
    expect(r.stderr).toMatch(new RegExp(`resume with --resume .*${signal}\\.jsonl`));
    expect(worktrees()).toEqual([]);
    expect(await markerProcessesSettled()).toBe(0);
  });

  it('a second signal stops at once and leaves no command running', async () => {
    const child = spawnCli(run('twice.json'));
    const done = exited(child);
    await commandStarted();
    // Two different signals, so the kernel cannot merge them into one.
    child.kill('SIGTERM');
    child.kill('SIGINT');
    const r = await done;
    expect([130, 143]).toContain(r.code);
    expect(r.stderr).toMatch(/interrupted again \((SIGINT|SIGTERM)\): stopped at once/);
    expect(await markerProcessesSettled()).toBe(0);
    await nextRun('sweep0.json');
    expect(worktrees()).toEqual([]);
  });

  it('sweeps the worktrees a kill -9 left, and only those whose owner is gone', async () => {
    const sandboxOk = (await createCommandSandbox().ready()).ok;
    const args = run('killed.json').filter((a) => a !== '--unsafe-host-commands');
    const child = spawnCli(args);
    const done = exited(child);
    let left: string;
    if (sandboxOk) left = await commandStarted();
    else {
      // Without bubblewrap the command is refused at once: leave a worktree by hand under the dead pid.
      await done;
      left = `runspec-eval-pid${child.pid}-abcdef`;
      mkdirSync(join(tmp, left));
    }
    child.kill('SIGKILL');
    await done;
    // bwrap --die-with-parent: the sandboxed command dies with the harness (the kernel does it, asynchronously).
    expect(await markerProcessesSettled()).toBe(0);
    const alive = `runspec-eval-pid${process.pid}-zzzzzz`;
    mkdirSync(join(tmp, alive));
    expect(worktrees()).toContain(left);
    const next = await nextRun('next.json');
    expect(next.stderr).toMatch(/removed \d+ worktree\(s\) left by runs that were killed/);
    expect(worktrees()).toEqual([alive]);
  });
});

describe('resume that cannot lie', () => {
  project.write('two.json', turnstone(['a', 'b']));
  project.write('ok.json', JSON.stringify({ default: [{ text: 'done' }] }));
  project.write('flaky.json', JSON.stringify({ cases: { a: [{ text: 'done' }], b: [{ error: { message: 'provider down' } }] } }));
  const base = (script: string, out: string) => ['run', 'two.json', '--provider', 'mock', '--script', script, '--no-telemetry', '--out', out];

  it('runs cases that ended in infrastructure errors again on resume', async () => {
    const first = await cli(base('flaky.json', 'flaky-run.json'));
    expect(first.code).toBe(3);
    const log = join(project.dir, 'flaky-run.jsonl');
    const resumed = await cli(['run', '--resume', log]);
    expect(resumed.stderr).toContain('1 of 2 cases already finished; 1 with infrastructure errors run again');
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'case' && l.caseId === 'b')).toHaveLength(2);
  });

  it('refuses a log for other cases, edited cases or other settings', async () => {
    project.write('resumable.json', turnstone(['a', 'b']));
    const first = await cli(['run', 'resumable.json', '--provider', 'mock', '--script', 'flaky.json', '--no-telemetry', '--out', 'res.json']);
    expect(first.code).toBe(3);
    const log = join(project.dir, 'res.jsonl');
    const other = await cli(['run', 'two.json', '--fixture', 'a', '--resume', log]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--resume .*res\.jsonl: the log is for other cases \(in the log but not selected now: b\)/);
    const settings = await cli(['run', '--resume', log, '--max-turns', '7']);
    expect(settings.code).toBe(2);
    expect(settings.stderr).toMatch(/settings differ from the logged run \(maxTurns: \(unset\) → 7\)/);
    const effort = await cli(['run', '--resume', log, '--reasoning-effort', 'high', '--unsafe-host-commands']);
    expect(effort.code).toBe(2);
    expect(effort.stderr).toMatch(/settings differ from the logged run \(reasoningEffort: \(unset\) → "high", unsafeHostCommands: \(unset\) → true\)/);
    writeFileSync(join(project.dir, 'resumable.json'), turnstone(['a', 'b']).replace('do b', 'do b differently'));
    const edited = await cli(['run', '--resume', log]);
    expect(edited.code).toBe(2);
    expect(edited.stderr).toMatch(/case b changed since the log was written/);
  });

  it("a new run never appends to another run's log: it moves the old one aside", async () => {
    await cli(base('ok.json', 'same.json'));
    const firstHeader = JSON.parse(readFileSync(join(project.dir, 'same.jsonl'), 'utf8').split('\n')[0]!);
    const second = await cli(base('ok.json', 'same.json'));
    expect(second.stderr).toContain(`moved it to ${join(project.dir, `same.${firstHeader.runId}.jsonl`)}`);
    const lines = readFileSync(join(project.dir, 'same.jsonl'), 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.includes('"type":"run"'))).toHaveLength(1);
    expect(lines).toHaveLength(3);
  });
});
