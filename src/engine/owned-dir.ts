// Directories this process makes in the temp folder (worktrees, sandbox probes) carry its pid in their name,
// `runspec-eval-[probe-]pid<PID>-XXXXXX`, so the next run sweeps what a kill -9 left (worktree-sweep.ts).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outputError } from '../core/atomic-write.js';

export const WORKTREE_PREFIX = 'runspec-eval-';

/** The mkdtemp prefix of a directory owned by this process. */
export function ownedPrefix(kind: '' | 'probe-' = ''): string {
  return `${WORKTREE_PREFIX}${kind}pid${process.pid}-`;
}

/**
 * Make a directory owned by this process in the temp folder (`prefix` in place of the owned one: tests).
 * A temp folder that is missing, full or read-only is the output error (exit 3) naming the path, ending with
 * `outcome` (what the caller goes without), never a raw ENOENT.
 * @example const dir = await makeOwnedDir({ kind: 'probe-', outcome: 'command tools are not checked' });
 */
export async function makeOwnedDir(opts: { kind?: '' | 'probe-'; prefix?: string; outcome: string }): Promise<string> {
  const base = join(tmpdir(), opts.prefix ?? ownedPrefix(opts.kind));
  try {
    return await mkdtemp(base);
  } catch (err) {
    throw outputError(`${base}XXXXXX`, err, { outcome: opts.outcome });
  }
}
