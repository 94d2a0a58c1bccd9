import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

/**
 * A backend process for the integration tier (Phoenix, a Collector, Prometheus, …): started in its own process
 * group with a fresh temp data folder (also its HOME and TMPDIR), stdout and stderr going to a log file in that
 * folder, ready when the caller's probe says so, and stopped (the whole group, TERM then KILL) by `stop()` in
 * `afterAll`, or at the latest when the test process exits.
 */
export interface Backend {
  readonly name: string;
  readonly pid: number;
  /** Temp folder owned by this backend (removed by `stop()` unless RUNSPEC_IT_KEEP_DATA is set). */
  readonly dataDir: string;
  /** The last `maxChars` characters of its stdout + stderr. */
  logTail(maxChars?: number): string;
  /** Set once the process has exited. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Stop the process group (TERM, KILL after `graceMs`) and remove the data folder. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartBackendOptions {
  /** Short name, used in the data folder's name and in errors. */
  name: string;
  command: string;
  args?: string[];
  /**
   * Environment on top of a minimal one (PATH, LANG, HOME and TMPDIR in the data folder); a function gets the
   * data folder, for paths inside it. The parent's environment (API keys, proxies) never leaks in.
   */
  env?: Record<string, string | undefined> | ((dataDir: string) => Record<string, string | undefined>);
  /** Resolves truthy once the backend serves. Throwing or falsy means "not yet". */
  ready: (backend: Backend) => Promise<unknown>;
  /** @default 120000 */
  readyDeadlineMs?: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test file that crashes before afterAll must not leave a backend behind.
  process.once('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Start a backend and wait until it is ready. If it exits first, or the deadline passes, it is stopped and the
 * error names the backend and ends with the tail of its log.
 *
 * @example
 * const phoenix = await startBackend({ name: 'phoenix', command: join(venv, 'bin/phoenix'), args: ['serve'],
 *   env: (dir) => ({ PHOENIX_WORKING_DIR: dir }), ready: () => fetch(url).then((r) => r.ok) });
 * afterAll(() => phoenix.stop());
 */
export async function startBackend(opts: StartBackendOptions): Promise<Backend> {
  installExitHook();
  const dataDir = mkdtempSync(join(tmpdir(), `runspec-it-${opts.name}-`));
  const home = join(dataDir, 'home');
  const tmp = join(dataDir, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  const extra = typeof opts.env === 'function' ? opts.env(dataDir) : (opts.env ?? {});
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: home, TMPDIR: tmp };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  const logFile = join(dataDir, `${opts.name}.log`);
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    // A file, not a pipe: a chatty backend never blocks on a full pipe nobody reads.
    child = spawn(opts.command, opts.args ?? [], { cwd: dataDir, env, stdio: ['ignore', logFd, logFd], detached: true });
  } finally {
    closeSync(logFd);
  }
  live.add(child);
  let status: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      status = { code, signal };
      live.delete(child);
      resolve();
    });
    child.once('error', (err) => {
      spawnError = err;
      status ??= { code: null, signal: null };
      live.delete(child);
      resolve();
    });
  });
  let stopped = false;
  const backend: Backend = {
    name: opts.name,
    pid: child.pid ?? -1,
    dataDir,
    logTail(maxChars = 4000) {
      try {
        const text = readFileSync(logFile, 'utf8');
        return text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
      } catch {
        return '(no log)';
      }
    },
    exitStatus: () => status,
    async stop(graceMs = 15_000) {
      if (stopped) return;
      stopped = true;
      if (status === undefined) {
        killGroup(child, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // Whatever the backend forked (workers) goes with the group.
      killGroup(child, 'SIGKILL');
      if (!process.env.RUNSPEC_IT_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(async () => Boolean(await opts.ready(backend)), {
      deadlineMs: opts.readyDeadlineMs ?? 120_000,
      what: `${opts.name} to become ready`,
      maxIntervalMs: 500,
      abort: () =>
        status === undefined
          ? undefined
          : new Error(`${opts.name} exited before it was ready (${spawnError ? spawnError.message : `code ${status.code}, signal ${status.signal}`})`),
    });
  } catch (err) {
    const tail = backend.logTail();
    await backend.stop(2000);
    throw new Error(`${(err as Error).message}\n--- ${opts.name} log (tail) ---\n${tail}`);
  }
  return backend;
}
