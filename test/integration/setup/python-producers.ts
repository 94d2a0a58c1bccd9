// Python producers for the integration tier: one venv per producer from a pinned requirements file, built
// once under itCacheDir() (keyed by the file's content and the interpreter's version, so a changed pin
// makes a new venv), then a driver script run in it. Self-contained: only node: modules and cache.ts.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { itCacheDir } from './cache.js';

const run = promisify(execFile);

/** The interpreter the venvs are made from: RUNSPEC_IT_PYTHON, else python3 on PATH. */
export function basePython(): string {
  return process.env.RUNSPEC_IT_PYTHON ?? 'python3';
}

/**
 * A venv with the requirements installed; returns its python. Reused while the file and the interpreter
 * are unchanged (a `.complete` marker is written last, so an interrupted install is redone).
 */
export async function producerVenv(name: string, requirementsFile: string): Promise<string> {
  const { stdout: version } = await run(basePython(), ['--version'], { timeout: 30_000 });
  const key = createHash('sha256').update(readFileSync(requirementsFile)).update(version).digest('hex').slice(0, 12);
  const dir = itCacheDir('python', `${name}-${key}`);
  const python = join(dir, 'bin', 'python');
  if (existsSync(join(dir, '.complete'))) return python;
  await run(basePython(), ['-m', 'venv', '--clear', dir], { timeout: 120_000 });
  await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '-r', requirementsFile], {
    timeout: 20 * 60_000,
    env: { ...process.env, PIP_CACHE_DIR: itCacheDir('pip'), PIP_NO_INPUT: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(join(dir, '.complete'), `${new Date().toISOString()}\n`);
  return python;
}

/** Run a driver script in a venv; rejects with its stderr when it fails. */
export async function runDriver(python: string, script: string, args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(python, [script, ...args], {
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`${script} ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}
