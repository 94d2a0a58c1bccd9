import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { relative, sep } from 'node:path';

// File operations inside a tree that another uid can write (a root harness hands the worktree to uid
// 65534 while commands run, and any process of that uid can change it at any moment).
//
// Threat model: a process of the other uid swaps any directory of the tree for a symlink (or a hard
// link to a file it does not own) between our check and our use, to make the harness chown, write,
// read, list or remove something outside the tree. Defence: nothing inside the tree is ever reached by
// a multi-component path. The worktree root is opened with O_DIRECTORY|O_NOFOLLOW (its parent is the
// harness's TMPDIR, trusted), and every step below is one name relative to an open directory
// descriptor, through the kernel's `/proc/self/fd/N` magic link (which names the opened directory
// itself, never re-resolves a path); the last component is opened with O_NOFOLLOW and the operation
// goes to the descriptor (fchown, fstat, read, write), so a swap makes it fail instead of going
// elsewhere. Node has no openat(2); `/proc/self/fd/N/name` is the same walk through a path the
// kernel resolves from the descriptor. Without /proc these functions fail closed.

const NO_FOLLOW_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Deep enough for any real tree; a deeper one is left alone (bounded descriptors and recursion). */
const MAX_DEPTH = 256;
const MAX_ENTRIES = 100_000;

/** The path the kernel resolves to `name` inside the directory open as `fd` (the directory itself without a name). */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** Open a directory, refusing a symlink as its last component. */
export function openDirNoFollow(path: string): Promise<FileHandle> {
  return open(path, NO_FOLLOW_DIR);
}

/** True for the errors a link (or a non-directory) met on a no-follow walk gives. */
export function isLinkOnPath(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ELOOP' || code === 'ENOTDIR';
}

/** The names from `root` down to `abs` (an absolute path inside `root`, lexically). */
export function componentsBelow(root: string, abs: string): string[] {
  const rel = relative(root, abs);
  if (rel === '') return [];
  const parts = rel.split(sep);
  if (parts.some((p) => p === '..' || p === '.' || p === '')) throw Object.assign(new Error(`not below ${root}: ${abs}`), { code: 'EXDEV' });
  return parts;
}

/**
 * Open the directory `parts` below `root`, one no-follow step at a time; with `create`, missing ones
 * are made (mode 0755). A link anywhere on the way fails with ELOOP or ENOTDIR.
 */
export async function openDirBeneath(root: string, parts: readonly string[], opts: { create?: boolean } = {}): Promise<FileHandle> {
  let dir = await openDirNoFollow(root);
  try {
    for (const name of parts) {
      let next: FileHandle;
      try {
        next = await open(fdPath(dir.fd, name), NO_FOLLOW_DIR);
      } catch (err) {
        if (!opts.create || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        // mkdir never follows a link in its last component: a link put here meanwhile gives EEXIST.
        await mkdir(fdPath(dir.fd, name), 0o755).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
        next = await open(fdPath(dir.fd, name), NO_FOLLOW_DIR);
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (err) {
    await dir.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Open the file at `abs` (inside `root`) with `flags` (O_NOFOLLOW is added) through a no-follow walk
 * of its directories, made first with `createParents`.
 */
export async function openFileBeneath(root: string, abs: string, flags: number, opts: { mode?: number; createParents?: boolean } = {}): Promise<FileHandle> {
  const parts = componentsBelow(root, abs);
  if (parts.length === 0) return open(root, flags | constants.O_NOFOLLOW, opts.mode);
  const dir = await openDirBeneath(root, parts.slice(0, -1), { create: opts.createParents });
  try {
    return await open(fdPath(dir.fd, parts[parts.length - 1]!), flags | constants.O_NOFOLLOW, opts.mode);
  } finally {
    await dir.close();
  }
}

/** Run `fn` with the directory `abs` (inside `root`) open through a no-follow walk; `fn` gets its `/proc/self/fd` path. */
export async function withDirBeneath<T>(root: string, abs: string, fn: (dirPath: string) => Promise<T>): Promise<T> {
  const dir = await openDirBeneath(root, componentsBelow(root, abs));
  try {
    return await fn(fdPath(dir.fd));
  } finally {
    await dir.close();
  }
}

/** Opens anything but a symlink without side effects: no blocking on a FIFO, no controlling tty. */
const NO_FOLLOW_ANY = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Give every directory and file of the tree at `root` to `uid`/`gid`. Each entry is opened without
 * following links and changed through its descriptor (fchown); symlinks are skipped (their owner does
 * not matter), and so is a regular file with more than one link, which could be a hard link to a file
 * outside the tree. Bounded in depth and entries.
 */
export async function chownTreeBeneath(root: string, uid: number, gid: number): Promise<void> {
  const dir = await openDirNoFollow(root);
  const budget = { entries: MAX_ENTRIES };
  try {
    await dir.chown(uid, gid);
    await chownBelow(dir, uid, gid, 0, budget);
  } finally {
    await dir.close();
  }
}

async function chownBelow(dir: FileHandle, uid: number, gid: number, depth: number, budget: { entries: number }): Promise<void> {
  const names = await readdir(fdPath(dir.fd)).catch(() => [] as string[]);
  for (const name of names) {
    if (--budget.entries < 0) return;
    // A symlink (ELOOP), a socket (ENXIO) or an entry gone meanwhile: nothing to hand over.
    const fh = await open(fdPath(dir.fd, name), NO_FOLLOW_ANY).catch(() => undefined);
    if (!fh) continue;
    try {
      const st = await fh.stat();
      if (st.isFile() && st.nlink > 1) continue;
      if (st.uid !== uid || st.gid !== gid) await fh.chown(uid, gid);
      if (st.isDirectory() && depth + 1 < MAX_DEPTH) await chownBelow(fh, uid, gid, depth + 1, budget);
    } finally {
      await fh.close();
    }
  }
}

/**
 * Remove the tree at `root` and `root` itself, one name relative to an open directory at a time:
 * `unlink` and `rmdir` never follow their last component, so a directory swapped for a link makes
 * a step fail (and the link itself is unlinked), never reach outside.
 */
export async function removeTreeBeneath(root: string): Promise<void> {
  let dir: FileHandle;
  try {
    dir = await openDirNoFollow(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    // A link or a file where the root was: remove that name only.
    if (code === 'ELOOP' || code === 'ENOTDIR') return unlink(root);
    throw err;
  }
  try {
    await emptyBelow(dir, 0);
  } finally {
    await dir.close();
  }
  await rmdir(root);
}

async function emptyBelow(dir: FileHandle, depth: number): Promise<void> {
  // A few passes: a concurrent writer may add entries while we go; what is left makes rmdir fail loudly.
  for (let pass = 0; pass < 3; pass++) {
    const names = await readdir(fdPath(dir.fd));
    if (names.length === 0) return;
    for (const name of names) {
      const p = fdPath(dir.fd, name);
      const sub = depth + 1 < MAX_DEPTH ? await open(p, NO_FOLLOW_DIR).catch(() => undefined) : undefined;
      if (!sub) {
        await unlink(p).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT' && e.code !== 'EISDIR' && e.code !== 'EPERM') throw e;
        });
        continue;
      }
      try {
        await emptyBelow(sub, depth + 1);
      } finally {
        await sub.close();
      }
      await rmdir(p).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR' && e.code !== 'ENOTEMPTY') throw e;
      });
    }
  }
}

/**
 * Bytes the tree at `root` takes on disk (allocated blocks, each inode once, links not followed), up
 * to `stopAt`: the disk-budget watchdog needs only to know whether a limit is passed.
 */
export async function treeDiskBytes(root: string, stopAt = Number.POSITIVE_INFINITY): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  let entries = MAX_ENTRIES;
  const visit = async (dir: FileHandle, depth: number): Promise<void> => {
    const st = await dir.stat();
    total += st.blocks * 512;
    const names = await readdir(fdPath(dir.fd)).catch(() => [] as string[]);
    for (const name of names) {
      if (total > stopAt || --entries < 0) return;
      const p = fdPath(dir.fd, name);
      const sub = depth + 1 < MAX_DEPTH ? await open(p, NO_FOLLOW_DIR).catch(() => undefined) : undefined;
      if (sub) {
        try {
          await visit(sub, depth + 1);
        } finally {
          await sub.close();
        }
        continue;
      }
      const s = await lstat(p).catch(() => undefined);
      if (!s) continue;
      const key = `${s.dev}:${s.ino}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total += s.blocks * 512;
    }
  };
  const dir = await openDirNoFollow(root);
  try {
    await visit(dir, 0);
  } finally {
    await dir.close();
  }
  return total;
}
