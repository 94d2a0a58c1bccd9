import { accessSync, constants, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { UsageError } from '../errors.js';

// Where results go must be a directory we can create and write, checked before the run starts: a path
// under a regular file, or under /proc (where a recursive mkdir used to spin for ever), is one line, exit 2.

const PSEUDO_FS = ['/proc', '/sys', '/dev'];

/**
 * Make sure `file`'s directory exists (creating it) and is writable; otherwise throw a UsageError.
 * @example ensureOutputDir('/p/.runspec/results/r.json', '--out')
 */
export function ensureOutputDir(file: string, what: string): void {
  const dir = dirname(file);
  let probe = dir;
  for (let i = 0; i < 4096; i++) {
    if (statSafe(probe)) break;
    const up = dirname(probe);
    if (up === probe) break;
    probe = up;
  }
  const st = statSafe(probe);
  const hint = 'pass a path in a writable directory, e.g. --out results/run.json';
  if (st && !st.isDirectory()) throw new UsageError('USAGE', `${what} ${file}: ${probe} is a file, not a directory`, { hint });
  let real = probe;
  try {
    real = realpathSync(probe);
  } catch {
    // checked below by mkdir
  }
  if (PSEUDO_FS.some((p) => real === p || real.startsWith(p + sep))) {
    throw new UsageError('USAGE', `${what} ${file}: cannot write results under ${real.split(sep).slice(0, 2).join(sep)}`, { hint });
  }
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError('USAGE', `${what} ${file}: cannot create or write ${dir} (${code})`, { hint });
  }
}

function statSafe(p: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}
