import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(REPO_ROOT, 'dist/cli/main.js');

export interface CliResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd?: string;
  /** Added to a minimal environment (PATH, NO_COLOR, fresh empty HOME, XDG_* and TMPDIR); the parent's API keys never leak in. */
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  timeoutMs?: number;
  /** In-process only: the CLI's clock (`ctx.now()`), instead of sleeping until a time comes. */
  now?: () => Date;
  /**
   * Run the built CLI (dist/cli/main.js) as a real process instead of calling `main()` in this one. Only for
   * what only a process shows: exit on a signal, a closed pipe, the entry point itself.
   */
  spawn?: boolean;
  /** In-process only: stdout takes each write on a later turn (a slow pipe), so writes queue up. */
  slowStdout?: boolean;
}

/**
 * Fresh empty HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME and TMPDIR for one CLI call, inside this test file's
 * own temp folder (test/setup/isolate.ts): nothing of the machine's (a global fixture, a config, stale
 * worktrees) reaches the CLI, and nothing it writes lands outside the run's folder.
 * @example spawnSync(cmd, args, { env: { PATH: process.env.PATH, ...isolatedEnv() } })
 */
export function isolatedEnv(): Record<'HOME' | 'XDG_CONFIG_HOME' | 'XDG_CACHE_HOME' | 'TMPDIR', string> {
  const root = mkdtempSync(join(tmpdir(), 'cli-'));
  const dirs = {
    HOME: join(root, 'home'),
    XDG_CONFIG_HOME: join(root, 'home', '.config'),
    XDG_CACHE_HOME: join(root, 'home', '.cache'),
    TMPDIR: join(root, 'tmp'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  // Modes as /tmp has them: as root the command sandbox drops to an unprivileged uid that must reach worktrees.
  chmodSync(root, 0o755);
  chmodSync(dirs.TMPDIR, 0o1777);
  return dirs;
}

function cliEnv(opts: RunCliOptions): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...isolatedEnv(), NO_COLOR: '1' };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  return env;
}

/** A stream that keeps what is written to it (not a TTY, like a pipe). */
class Capture extends Writable {
  private readonly decoder = new StringDecoder('utf8');
  private parts = '';
  get text(): string {
    return this.parts;
  }
  constructor(private readonly slow = false) {
    super({ highWaterMark: 1024 });
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    const take = (): void => {
      // Bytes may end inside a multi-byte character: the decoder carries it over to the next chunk.
      this.parts += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
      done();
    };
    if (this.slow) setImmediate(take);
    else take();
  }
}

/**
 * Run the CLI the way a user does, in this process: `main()` from src/cli/main.ts with its own stdout, stderr,
 * stdin, environment (minimal, as for a process) and working directory. Same result shape as a process
 * (`signal` is null; `exitCode` null and `signal` 'SIGKILL' if `timeoutMs` passes first).
 */
export async function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  if (opts.spawn) {
    if (opts.now) throw new Error('runCli: an injected clock needs the in-process CLI (drop spawn: true)');
    return runCliProcess(args, opts);
  }
  const { main } = await import('../../src/cli/main.js');
  const stdout = new Capture(opts.slowStdout);
  const stderr = new Capture();
  const stdin = Readable.from(opts.input === undefined ? [] : [typeof opts.input === 'string' ? Buffer.from(opts.input) : opts.input]);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), opts.timeoutMs ?? 60_000);
  });
  try {
    const code = await Promise.race([
      main({ argv: args, cwd: opts.cwd ?? REPO_ROOT, env: cliEnv(opts), stdout, stderr, stdin, ...(opts.now ? { now: opts.now } : {}) }),
      timedOut,
    ]);
    if (code === 'timeout') return { exitCode: null, signal: 'SIGKILL', stdout: stdout.text, stderr: stderr.text };
    // A process's stdout is drained before it exits: wait for what the slow stream still holds.
    if (opts.slowStdout) await new Promise<void>((resolve) => stdout.end(resolve));
    return { exitCode: code, signal: null, stdout: stdout.text, stderr: stderr.text };
  } finally {
    clearTimeout(timer);
  }
}

/** Spawn the built CLI (dist/cli/main.js) as a process. */
export function runCliProcess(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  const env = cliEnv(opts);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd ?? REPO_ROOT, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ exitCode, signal, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}
