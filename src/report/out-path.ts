import { accessSync, constants, mkdirSync, openSync, realpathSync, statSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { outputError } from '../core/atomic-write.js';

// Where results go must be a directory we can create and write, checked before the run starts: a path
// under a regular file, or under /proc (where a recursive mkdir used to spin for ever), is one line, exit 2.

const PSEUDO_FS = ['/proc', '/sys', '/dev'];
const DISK_FAULTS = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EIO']);

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
    // The disk, not the path: a read-only or full file system is infrastructure (exit 3), the file named.
    if (DISK_FAULTS.has(code)) throw outputError(file, err);
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

/**
 * {@link ensureOutputDir}, then open `file` to write (`'w'`) or append (`'a'`): a file descriptor, or a
 * UsageError (never an unhandled stream error).
 * @example createWriteStream(file, { fd: openOutputFile(file, '--out', 'w') })
 */
export function openOutputFile(file: string, what: string, mode: 'w' | 'a'): number {
  ensureOutputDir(file, what);
  try {
    return openSync(file, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError('USAGE', `${what} ${file}: cannot write it (${code})`, { hint: 'pass a path in a writable directory, e.g. --out results/run.json' });
  }
}
