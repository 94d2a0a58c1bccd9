// Drive the installed `runspec-eval` as a user's shell does: node_modules/.bin/runspec-eval (the exec bit and
// the shebang are part of what is tested), with its own empty HOME, XDG_CONFIG_HOME and TMPDIR each time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface InstalledResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface InstalledOptions {
  cwd?: string;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

/** The bin as npm linked it into a project. */
export function binOf(project: string): string {
  return join(project, 'node_modules', '.bin', 'runspec-eval');
}

/** A fresh, empty HOME, XDG_CONFIG_HOME and TMPDIR (plus PATH and NO_COLOR), and `extra`. */
export function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'runspec-packed-home-'));
  const xdg = join(home, '.config');
  const tmp = join(home, 'tmp');
  mkdirSync(xdg);
  mkdirSync(tmp);
  return { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: xdg, TMPDIR: tmp, NO_COLOR: '1', ...extra };
}

/** Start the installed CLI; its HOME (and the TMPDIR in it) is removed when it exits. */
export function startInstalled(project: string, args: string[], opts: InstalledOptions = {}): ChildProcess {
  const env = isolatedEnv(opts.env);
  const child = spawn(binOf(project), args, { cwd: opts.cwd ?? project, env, stdio: 'pipe' });
  child.on('close', () => rmSync(env.HOME!, { recursive: true, force: true }));
  return child;
}

/** Run the installed CLI to its end. */
export function runInstalled(project: string, args: string[], opts: InstalledOptions = {}): Promise<InstalledResult> {
  return new Promise((resolve, reject) => {
    const child = startInstalled(project, args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
    child.stdin!.end(opts.input ?? '');
  });
}

/** Resolves with the first match of `pattern` in the child's stdout+stderr (a server announcing its URL). */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output: ${seen}`)), timeoutMs);
    const on = (d: Buffer): void => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('close', (code) => reject(new Error(`exited ${code} before ${pattern}; output: ${seen}`)));
  });
}

/** SIGTERM and wait for the exit; resolves with the code. */
export function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.on('close', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
