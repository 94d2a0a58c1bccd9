import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTreeBeneath } from './sandbox/beneath.js';
import { unmountTmpfs } from './sandbox/disk-mount.js';

// Worktrees (and sandbox probe directories) carry the pid of the process that made them in their name:
// `runspec-eval-pid<PID>-XXXXXX`. A run killed with kill -9 cannot remove its own; the next run sweeps
// those whose owner is gone (unmounting first what is still a mounted tmpfs). Kept worktrees (--keep-worktrees) are renamed without a pid and never swept.

const OWNED = /^runspec-eval-(?:probe-)?pid(\d+)-[A-Za-z0-9]{6}$/;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is just not ours.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove worktrees left by processes that no longer exist. Returns the removed paths.
 * @example await sweepStaleWorktrees() // ['/tmp/runspec-eval-pid4242-a1b2c3']
 */
export async function sweepStaleWorktrees(opts: { dir?: string; alive?: (pid: number) => boolean } = {}): Promise<string[]> {
  const dir = opts.dir ?? tmpdir();
  const alive = opts.alive ?? isAlive;
  const uid = typeof process.geteuid === 'function' ? process.geteuid() : undefined;
  const removed: string[] = [];
  const here = await stat(dir).catch(() => undefined);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = OWNED.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    const p = join(dir, name);
    const st = await stat(p).catch(() => undefined);
    // Only our own directories (a root harness hands worktrees to uid 65534 while commands run).
    if (!st?.isDirectory() || (uid !== undefined && uid !== 0 && st.uid !== uid)) continue;
    // A worktree tmpfs (a root run's disk budget) left mounted by a kill -9: on another device than its parent.
    if (here && st.dev !== here.dev) await unmountTmpfs(p).catch(() => undefined);
    await removeTreeBeneath(p).catch(() => undefined);
    removed.push(p);
  }
  return removed;
}
