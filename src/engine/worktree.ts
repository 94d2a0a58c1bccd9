import { mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { FixtureError } from '../errors.js';
import { outputError } from '../core/atomic-write.js';
import { escapesBase } from '../core/path-inside.js';
import { removeTreeBeneath } from './sandbox/beneath.js';
import { resolveInside } from './sandbox/paths.js';
import { makeOwnedDir } from './owned-dir.js';

// A fresh temp directory per case run. The process working directory is never changed (runs are
// concurrent): every tool resolves its paths here, and a path that escapes the root (`..`, an absolute
// path, or a symlink pointing out) is refused.

export { PathRefusedError } from './sandbox/paths.js';

export interface Worktree {
  /** Real path of the root (symlinks resolved). */
  readonly root: string;
  /**
   * Absolute path of a workspace-relative path, after checking it stays inside the root, also through
   * symlinks. Throws PathRefusedError otherwise. An empty path is the root.
   */
  resolve(path: string): Promise<string>;
  /** Workspace-relative form (forward slashes) of an absolute path inside the root. */
  relative(abs: string): string;
  remove(): Promise<void>;
  /** Keep the worktree for inspection: renamed without the owner pid (never swept); returns its path. */
  keep(): Promise<string>;
}

/**
 * Create a worktree with the case's files. A file path that is absolute or climbs out is bad input.
 * @example const wt = await createWorktree({ 'src/app.py': 'print(1)\n' }); await wt.remove();
 */
export async function createWorktree(
  files: Record<string, string>,
  opts: {
    prefix?: string;
    place?: string;
    /**
     * Mount a file system on the new, empty root before the files are written (the sandbox's
     * `mountWorktree`: a tmpfs of the disk budget, as root); its unmount runs when the worktree is removed.
     * Not for a worktree that will be kept (a mount point cannot be renamed).
     */
    mount?: (root: string) => Promise<(() => Promise<void>) | undefined>;
  } = {},
): Promise<Worktree> {
  for (const rel of Object.keys(files)) {
    if (rel.trim() === '' || isAbsolute(rel) || escapesBase(normalize(rel))) {
      throw new FixtureError('FIXTURE_PATH', `${opts.place ?? 'case'}: files.${rel}: expected a path relative to the worktree, got one that escapes it`, {
        hint: 'use paths like "src/app.py" (no leading "/" and no "..")',
      });
    }
  }
  // No failure leaves a worktree behind (what was made is removed), and no sample runs in one.
  const noWorktree = { outcome: 'the sample has no worktree' };
  const made = await makeOwnedDir({ ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}), ...noWorktree });
  let root: string;
  try {
    root = await realpath(made);
  } catch (err) {
    await rm(made, { recursive: true, force: true }).catch(() => undefined);
    throw outputError(made, err, noWorktree);
  }
  let unmount: (() => Promise<void>) | undefined;
  let current = root;
  try {
    unmount = await opts.mount?.(root);
    for (const [rel, content] of Object.entries(files)) {
      current = join(root, rel);
      await mkdir(dirname(current), { recursive: true });
      await writeFile(current, content, 'utf8');
    }
  } catch (err) {
    await unmount?.().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    // A full or read-only TMPDIR: the file named, exit 3 (it used to be a bare "ENOSPC ... write").
    throw outputError(current, err, noWorktree);
  }
  return {
    root,
    resolve(path: string): Promise<string> {
      return resolveInside(root, path);
    },
    relative(abs: string): string {
      return relative(root, abs).split(sep).join('/') || '.';
    },
    async remove() {
      // A tmpfs goes in one step, whatever is in it; what is left (the mount point) is removed as below.
      const u = unmount;
      unmount = undefined;
      await u?.();
      // Not rm -r by path: the commands' uid may still swap a directory for a link while we remove.
      await removeTreeBeneath(root);
    },
    async keep() {
      // A mount point cannot be renamed; it stays where it is until removed.
      if (unmount) return root;
      const kept = join(dirname(root), basename(root).replace(/pid\d+-/, 'kept-'));
      if (kept === root) return root;
      await rename(root, kept);
      return kept;
    },
  };
}
