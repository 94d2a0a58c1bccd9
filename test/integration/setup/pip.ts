import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { itCacheDir } from './cache.js';
import { waitFor } from './wait.js';

/** A Python virtual environment installed from a fully pinned constraints file. */
export interface Venv {
  /** The venv folder (under `itCacheDir('venvs')`). */
  dir: string;
  /** Its python executable. */
  python: string;
  /** The interpreter version the venv was built with, e.g. "3.11.7". */
  pythonVersion: string;
  /** True when this call installed it; false when a finished venv with the same key was reused. */
  installed: boolean;
  /** Wall time of this call's install (create + pip), when it installed. */
  installMs?: number;
  /** Path of a console script in the venv, e.g. `bin('phoenix')`. */
  bin(name: string): string;
}

export interface PipInstallOptions {
  /** The interpreter that creates the venv. @default RUNSPEC_IT_PYTHON, else "python3" */
  python?: string;
  /** pip attempts for transient registry errors. @default 3 */
  attempts?: number;
  /** Called with one line of progress (which venv, reused or installed and how long). */
  log?: (line: string) => void;
}

const MAX_OUTPUT_CHARS = 200_000;

/**
 * The venv `name` with exactly what `constraintsFile` pins (a `pip freeze` of a working install), created
 * under the tier's cache folder and reused while neither the file nor the Python version changes (the folder's
 * name holds a hash of both). Wheels only (`--only-binary=:all:`: no compiler, no build step), the pip cache in
 * `itCacheDir('pip')`. A transient registry error is retried up to `attempts` times; the final error names the
 * package pip was fetching and pip's own error line, so a tier that cannot install fails with the reason.
 *
 * @example const venv = await pipInstallVenv('phoenix', 'test/integration/phoenix-constraints.txt');
 */
export async function pipInstallVenv(name: string, constraintsFile: string, opts: PipInstallOptions = {}): Promise<Venv> {
  const python = opts.python ?? process.env.RUNSPEC_IT_PYTHON ?? 'python3';
  const log = opts.log ?? (() => undefined);
  const attempts = Math.max(1, opts.attempts ?? 3);
  const constraints = readFileSync(constraintsFile);
  const probe = await run(python, ['-c', 'import platform,sys;print("%d.%d.%d" % sys.version_info[:3], platform.machine())'], {}).catch((err: Error) => ({
    code: -1,
    output: err.message,
  }));
  if (probe.code !== 0) {
    throw new Error(
      `venv ${name}: cannot run ${python} (${probe.output.trim()}); the integration tier needs Python 3.10-3.14 (set RUNSPEC_IT_PYTHON to its path)`,
    );
  }
  const [pythonVersion = '', machine = ''] = probe.output.trim().split(/\s+/);
  const key = createHash('sha256').update(constraints).update(`\0${pythonVersion}\0${machine}`).digest('hex').slice(0, 16);
  const dir = join(itCacheDir('venvs'), `${name}-${key}`);
  const venv = (installed: boolean, installMs?: number): Venv => ({
    dir,
    python: join(dir, 'bin', 'python'),
    pythonVersion,
    installed,
    ...(installMs !== undefined ? { installMs } : {}),
    bin: (script: string) => join(dir, 'bin', script),
  });
  const complete = join(dir, '.complete');
  if (existsSync(complete)) {
    log(`venv ${name}: reusing ${dir}`);
    return venv(false);
  }
  const release = await lock(`${dir}.lock`);
  try {
    // Another process may have finished it while we waited for the lock.
    if (existsSync(complete)) return venv(false);
    const started = Date.now();
    log(`venv ${name}: installing into ${dir} (Python ${pythonVersion})`);
    // A venv records its own path in its scripts, so it is built in place; a half-built one is removed first.
    rmSync(dir, { recursive: true, force: true });
    const created = await run(python, ['-m', 'venv', dir], {});
    if (created.code !== 0) throw new Error(`venv ${name}: ${python} -m venv failed: ${lastLines(created.output, 3)}`);
    const pipEnv = {
      PIP_CACHE_DIR: itCacheDir('pip'),
      PIP_DISABLE_PIP_VERSION_CHECK: '1',
      PIP_NO_INPUT: '1',
    };
    const args = ['-m', 'pip', 'install', '--only-binary=:all:', '--progress-bar', 'off', '-r', constraintsFile];
    for (let attempt = 1; ; attempt++) {
      const res = await run(join(dir, 'bin', 'python'), args, pipEnv);
      if (res.code === 0) break;
      const pkg = failingPackage(res.output);
      const reason = pipError(res.output);
      const permanent = /No matching distribution|ResolutionImpossible|Could not find a version|conflicting dependencies/i.test(res.output);
      if (permanent || attempt >= attempts) {
        throw new Error(
          `venv ${name}: pip install -r ${constraintsFile} failed${permanent ? '' : ` after ${attempt} attempts`} at package ${pkg ?? '(unknown)'}: ${reason}`,
        );
      }
      log(`venv ${name}: pip attempt ${attempt} failed at ${pkg ?? '(unknown package)'} (${reason}); retrying`);
      await delay(2000 * attempt);
    }
    const installMs = Date.now() - started;
    writeFileSync(complete, `${JSON.stringify({ pythonVersion, machine, installMs, constraints: constraintsFile })}\n`);
    log(`venv ${name}: installed in ${(installMs / 1000).toFixed(1)} s`);
    return venv(true, installMs);
  } finally {
    release();
  }
}

/** The package pip was working on when it failed: its own "for X" / "requirement X", else the last "Collecting X". */
export function failingPackage(output: string): string | undefined {
  const direct = /(?:No matching distribution found for|satisfies the requirement)\s+(\S+)/.exec(output);
  if (direct) return direct[1];
  const collecting = [...output.matchAll(/^\s*(?:Collecting|Downloading|Obtaining)\s+(\S+)/gm)];
  return collecting.at(-1)?.[1];
}

/** pip's own error line (the last line starting with ERROR:), else the last output line. */
function pipError(output: string): string {
  const errors = output.split('\n').filter((l) => l.startsWith('ERROR:'));
  return (errors.at(-1) ?? lastLines(output, 1)).trim();
}

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join(' | ');
}

async function run(command: string, args: string[], extraEnv: Record<string, string | undefined>): Promise<{ code: number; output: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...extraEnv })) if (v !== undefined) env[k] = v;
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > MAX_OUTPUT_CHARS) output = output.slice(-MAX_OUTPUT_CHARS);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** A folder lock (mkdir is atomic) holding the owner's pid; a lock whose owner is gone is taken over. */
async function lock(path: string): Promise<() => void> {
  const take = (): boolean => {
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'pid'), String(process.pid));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSafe(join(path, 'pid')));
      if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) rmSync(path, { recursive: true, force: true });
      return false;
    }
  };
  await waitFor(() => take(), { deadlineMs: 45 * 60_000, what: `the install lock ${path}`, maxIntervalMs: 2000 });
  return () => rmSync(path, { recursive: true, force: true });
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
