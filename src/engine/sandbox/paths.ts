import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { PathRefusedError } from '../../core/confine-path.js';

// File-path guards of the workspace tools. A model-chosen path is resolved against the worktree root,
// then the realpath of its deepest existing ancestor must still be inside the root, so `..`, absolute
// paths, symlinks that point out (also chained ones) and dangling symlinks (which a write would follow
// to create a file outside) are refused. Only regular files are ever opened, with O_NONBLOCK and
// O_NOFOLLOW: a FIFO, socket or device is refused before any read can block the run.

// The confinement itself is the shared primitive in core/; this module adds the workspace tools' opens.
export { PathRefusedError, resolveInside } from '../../core/confine-path.js';

/** Read a regular file of at most `maxBytes`; anything else (FIFO, socket, device, directory) is refused. */
export async function readRegularFile(abs: string, shown: string, maxBytes: number): Promise<Buffer> {
  const st = await lstat(abs);
  if (st.isDirectory()) throw new PathRefusedError(`${shown} is a directory; use list_directory`);
  if (!st.isFile()) throw new PathRefusedError(`${shown} is not a regular file (${kindOf(st)}); only regular files can be read`);
  if (st.size > maxBytes) throw new PathRefusedError(`${shown} is too large (${st.size} bytes)`);
  const fh = await open(abs, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const fst = await fh.stat();
    if (!fst.isFile()) throw new PathRefusedError(`${shown} is not a regular file; only regular files can be read`);
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

/** Create or replace a regular file; an existing FIFO, socket, device or link there is refused. */
export async function writeRegularFile(abs: string, shown: string, content: string): Promise<void> {
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isDirectory()) throw new PathRefusedError(`${shown} is a directory`);
  if (st && !st.isFile()) throw new PathRefusedError(`${shown} is not a regular file (${kindOf(st)}); only regular files can be written`);
  const fh = await open(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o644);
  try {
    if (!(await fh.stat()).isFile()) throw new PathRefusedError(`${shown} is not a regular file; only regular files can be written`);
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
