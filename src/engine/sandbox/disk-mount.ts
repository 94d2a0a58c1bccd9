import { execFile, execFileSync } from 'node:child_process';
import { rmdir, statfs } from 'node:fs/promises';
import { makeOwnedDir } from '../owned-dir.js';

// The disk budget as a hard limit. As root (and where the container lets root mount), each case's
// worktree is a tmpfs the harness mounts, sized to the budget plus a little slack: a command can never
// put more than that on the host, whatever it writes, however fast, and files it deletes while holding
// them open count too. The watchdog (command.ts) still runs: past the budget it stops the command, so the
// case fails with `disk budget exceeded` instead of the command failing with ENOSPC. Elsewhere (not root,
// or mounting refused) the watchdog is the budget. The tmpfs is unmounted when the case ends (also on
// failure and cancel); one left by a kill -9 is unmounted by the next run's sweep (worktree-sweep.ts).
// A tmpfs lives in memory (and swap): that is the price of the hard limit, bounded by budget x concurrency.

/** Room above the budget, so the watchdog sees the budget passed before the tmpfs is full. */
export const TMPFS_SLACK_BYTES = 8 * 1024 ** 2;
// util-linux's, looked up on the standard system directories only (run() sets that PATH).
const MOUNT = 'mount';
const UMOUNT = 'umount';
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const MOUNT_TIMEOUT_MS = 15_000;

export interface WorktreeMounter {
  /**
   * Whether worktrees can be mounted here, checked once (a probe mount as root): undefined when they can
   * or when not running as root (no note needed), else the one line that says the watchdog is used.
   */
  probe(): Promise<string | undefined>;
  /** Mount a tmpfs of the budget on the empty directory `root`; the unmount, or undefined (watchdog only). */
  mount(root: string): Promise<(() => Promise<void>) | undefined>;
  /** Whether `root` is a tmpfs mounted by this mounter (its usage is then read with statfs). */
  isMounted(root: string): boolean;
}

/** Worktrees mounted by this process now, for the second interrupt that exits at once. */
const mounted = new Set<string>();

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: MOUNT_TIMEOUT_MS, env: { PATH: SYSTEM_PATH, LC_ALL: 'C' } }, (err, _stdout, stderr) => {
      if (err) reject(new Error(String(stderr).trim().split('\n')[0] || err.message));
      else resolve();
    });
  });
}

function tmpfsArgs(root: string, bytes: number): string[] {
  return ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700,nosuid,nodev`, 'tmpfs', root];
}

/** Unmount, detaching lazily when something still holds the mount (it is then freed when let go). */
export async function unmountTmpfs(root: string): Promise<void> {
  await run(UMOUNT, [root]).catch(() => run(UMOUNT, ['-l', root]));
  mounted.delete(root);
}

/** Bytes used on the tmpfs at `root`. */
export async function tmpfsUsedBytes(root: string): Promise<number> {
  const s = await statfs(root);
  return (s.blocks - s.bfree) * s.bsize;
}

/**
 * A mounter for worktrees under a disk budget of `maxBytes`.
 * @example const m = createWorktreeMounter(1024 ** 3); const unmount = await m.mount(dir); ...; await unmount?.();
 */
export function createWorktreeMounter(
  maxBytes: number,
  opts: {
    asRoot?: boolean;
    /** @default 'mount' */ mountCommand?: string;
    /** How often the watchdog checks the worktree's size, for the note when it is the budget. @default 250 */ pollMs?: number;
    /** `watchdog`: never mount (the watchdog alone is the budget, root or not), and say nothing. @default 'auto' */ mode?: 'auto' | 'watchdog';
  } = {},
): WorktreeMounter {
  const asRoot = opts.asRoot ?? (typeof process.geteuid === 'function' && process.geteuid() === 0);
  const size = maxBytes + TMPFS_SLACK_BYTES;
  const mountCommand = opts.mountCommand ?? MOUNT;
  const pollMs = opts.pollMs ?? 250;
  let probed: Promise<string | undefined> | undefined;
  let usable = false;
  const own = new Set<string>();

  const probe = (): Promise<string | undefined> => {
    probed ??= (async () => {
      if (!asRoot || opts.mode === 'watchdog') return undefined;
      // An owned probe directory, so a kill -9 mid-probe is swept too.
      const dir = await makeOwnedDir({ kind: 'probe-', outcome: 'the disk budget could not be checked' });
      try {
        await run(mountCommand, tmpfsArgs(dir, 1024 * 1024));
        await unmountTmpfs(dir);
        usable = true;
        return undefined;
      } catch (err) {
        return `disk budget: running as root, but a tmpfs cannot be mounted for the worktrees here (${(err as Error).message}); the budget is enforced by checking each worktree's size every ${pollMs} ms instead`;
      } finally {
        await rmdir(dir).catch(() => undefined);
      }
    })();
    return probed;
  };

  return {
    probe,
    async mount(root) {
      await probe();
      if (!usable) return undefined;
      try {
        await run(mountCommand, tmpfsArgs(root, size));
      } catch {
        // Mounting worked for the probe: this one worktree falls back to the watchdog.
        return undefined;
      }
      mounted.add(root);
      own.add(root);
      return async () => {
        own.delete(root);
        await unmountTmpfs(root);
      };
    },
    isMounted: (root) => own.has(root),
  };
}

/** Detach every worktree tmpfs of this process at once (the second interrupt, just before exiting). */
export function detachWorktreeMounts(): void {
  for (const root of mounted) {
    try {
      execFileSync(UMOUNT, ['-l', root], { stdio: 'ignore', timeout: MOUNT_TIMEOUT_MS, env: { PATH: SYSTEM_PATH } });
    } catch {
      // already gone; the next run's sweep looks again
    }
  }
  mounted.clear();
}
