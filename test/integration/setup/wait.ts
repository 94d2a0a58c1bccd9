import { setTimeout as delay } from 'node:timers/promises';

export interface WaitForOptions {
  /** Give up after this long (the probe in flight is awaited, not abandoned). */
  deadlineMs: number;
  /** Named in the timeout error: what was waited for. */
  what?: string;
  /** First pause between probes; doubles up to `maxIntervalMs`. @default 50 */
  intervalMs?: number;
  /** @default 1000 */
  maxIntervalMs?: number;
  /** Stop early with this error (e.g. the backend process exited). Checked before each probe. */
  abort?: () => Error | undefined;
}

/**
 * Poll until `probe` returns a value other than `undefined`/`false` and return it; throw when the deadline
 * passes, with the last probe error or value in the message. A probe that throws counts as "not yet" (a
 * backend that is still starting refuses connections). Pauses start short and double, so a fast backend is
 * seen quickly and a slow one is not hammered: there is no fixed sleep to tune.
 *
 * @example const spans = await waitFor(async () => (await list()).length >= 3 ? list() : undefined, { deadlineMs: 30_000, what: 'three spans' });
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, opts: WaitForOptions): Promise<T> {
  const deadline = Date.now() + opts.deadlineMs;
  let pauseMs = opts.intervalMs ?? 50;
  const maxPauseMs = opts.maxIntervalMs ?? 1000;
  let last = 'no probe finished';
  for (let attempt = 1; ; attempt++) {
    const stop = opts.abort?.();
    if (stop) throw stop;
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = `probe ${attempt} said not yet`;
    } catch (err) {
      last = `probe ${attempt} failed: ${(err as Error).message}`;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${opts.deadlineMs} ms waiting for ${opts.what ?? 'a condition'} (${last})`);
    await delay(Math.min(pauseMs, left));
    pauseMs = Math.min(pauseMs * 2, maxPauseMs);
  }
}
