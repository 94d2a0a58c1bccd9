import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';

/**
 * `--shard i/n`, the one convention of `run`, `record`, `replay`, `score` and `merge`: shards count from
 * 1 (`1/4` … `4/4`), as `vitest --shard` and `playwright test --shard` do, and an item belongs to shard
 * `1 + (first 4 bytes of SHA-256(key), big-endian) mod n`; the key is the case id (run, record, replay)
 * or the trace id (score). The same on every machine and Node version.
 */
export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** The `--help` line every sharded command shows. */
export const SHARD_HELP = 'run only shard i of n (1-based: 1/4 … 4/4), split by a stable hash (SHA-256) of the case or trace id';

/** Parse `i/n` with 1 ≤ i ≤ n; anything else is a usage error (exit 2). */
export function parseShard(spec: string, flag = '--shard'): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    const zeroBased = m !== null && index === 0 && count >= 1;
    throw new UsageError('USAGE', `${flag}: expected i/n with 1 ≤ i ≤ n (got ${JSON.stringify(spec)})${zeroBased ? '; shards count from 1' : ''}`, {
      hint: 'run --shard 1/2 and --shard 2/2, then merge the results',
    });
  }
  return { index, count };
}

/** The 1-based shard of `key` among `count`. */
export function shardOf(key: string, count: number): number {
  return 1 + (createHash('sha256').update(key).digest().readUInt32BE(0) % count);
}

/** Whether `key` belongs to `shard` (no shard: everything does). */
export function inShard(key: string, shard: Shard | undefined): boolean {
  return shard === undefined || shardOf(key, shard.count) === shard.index;
}
