import { constants } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { PathRefusedError } from '../../core/confine-path.js';
import { isLinkOnPath, openFileBeneath } from './beneath.js';

// File-path guards of the workspace tools. A model-chosen path is resolved against the worktree root,
// then the realpath of its deepest existing ancestor must still be inside the root, so `..`, absolute
// paths, symlinks that point out (also chained ones) and dangling symlinks (which a write would follow
// to create a file outside) are refused. Only regular files are ever opened, with O_NONBLOCK and
// O_NOFOLLOW: a FIFO, socket or device is refused before any read can block the run.
//
// The check and the use are apart in time, and the tree is writable by the commands (as another uid
// when the harness is root). So the checked path is then opened through a no-follow walk from the root
// (beneath.ts): a directory swapped for a link in between makes the open fail, never go outside. As
// root, a regular file with more than one hard link is refused too: it may be a host file linked in.

// The confinement itself is the shared primitive in core/; this module adds the workspace tools' opens.
export { PathRefusedError, resolveInside } from '../../core/confine-path.js';

const asRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;

/** Open `abs` (a checked path inside `root`) through a no-follow walk; a link met on the way is refused. */
async function openChecked(root: string, abs: string, shown: string, flags: number, opts: { createParents?: boolean } = {}) {
  try {
    return await openFileBeneath(root, abs, flags, { mode: 0o644, ...opts });
  } catch (err) {
    if (isLinkOnPath(err) || (err as NodeJS.ErrnoException).code === 'EXDEV')
      throw new PathRefusedError(`${shown} changed into a symlink while it was being opened`);
    throw err;
  }
}

function refuseHardLinked(st: { nlink: number }, shown: string): void {
  if (asRoot && st.nlink > 1) throw new PathRefusedError(`${shown} has ${st.nlink} hard links; files with several links are refused`);
}

/** Read a regular file (at `abs`, checked to be inside `root`) of at most `maxBytes`; anything else (FIFO, socket, device, directory) is refused. */
export async function readRegularFile(root: string, abs: string, shown: string, maxBytes: number): Promise<Buffer> {
  const st = await lstat(abs);
  if (st.isDirectory()) throw new PathRefusedError(`${shown} is a directory; use list_directory`);
  if (!st.isFile()) throw new PathRefusedError(`${shown} is not a regular file (${kindOf(st)}); only regular files can be read`);
  if (st.size > maxBytes) throw new PathRefusedError(`${shown} is too large (${st.size} bytes)`);
  const fh = await openChecked(root, abs, shown, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const fst = await fh.stat();
    if (!fst.isFile()) throw new PathRefusedError(`${shown} is not a regular file; only regular files can be read`);
    refuseHardLinked(fst, shown);
    const buf = Buffer.alloc(Math.min(fst.size, maxBytes));
    let off = 0;
    while (off < buf.length) {
      const { bytesRead } = await fh.read(buf, off, buf.length - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return buf.subarray(0, off);
  } finally {
    await fh.close();
  }
}

/**
 * Create or replace a regular file (at `abs`, checked to be inside `root`), making its directories;
 * an existing FIFO, socket, device or link there is refused.
 */
export async function writeRegularFile(root: string, abs: string, shown: string, content: string): Promise<void> {
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isDirectory()) throw new PathRefusedError(`${shown} is a directory`);
  if (st && !st.isFile()) throw new PathRefusedError(`${shown} is not a regular file (${kindOf(st)}); only regular files can be written`);
  const fh = await openChecked(root, abs, shown, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK, { createParents: true });
  try {
    const fst = await fh.stat();
    if (!fst.isFile()) throw new PathRefusedError(`${shown} is not a regular file; only regular files can be written`);
    refuseHardLinked(fst, shown);
    await fh.truncate(0);
    await fh.writeFile(content, 'utf8');
  } finally {
    await fh.close();
  }
}

function kindOf(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSymbolicLink(): boolean }): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a symlink';
  return 'not a file';
}

/** Reject after `ms` with a model-facing message; the work itself cannot block (non-blocking opens). */
export function withTimeLimit<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PathRefusedError(`${what} took longer than ${ms} ms and was abandoned`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
