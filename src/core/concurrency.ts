// Bounded concurrency: the one limiter (model requests in flight) and the pool built on the same rule
// (case samples in flight).

/** At most `max` holders at once; the rest wait in arrival order. */
export interface Limiter {
  /** Resolves when a slot is free; rejects when `signal` aborts first (the wait is then dropped). */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Give a slot back (to the longest waiter, if any). */
  release(): void;
}

/** A first-in, first-out limiter of `max` slots (at least 1). */
export function createLimiter(max: number): Limiter {
  const slots = Math.max(1, Math.floor(max) || 1);
  let active = 0;
  const waiting: Array<{ grant: () => void }> = [];
  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(new Error('aborted'));
      if (active < slots) {
        active++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const entry = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          const i = waiting.indexOf(entry);
          if (i >= 0) waiting.splice(i, 1);
          reject(new Error('aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(entry);
      });
    },
    release() {
      const next = waiting.shift();
      if (next) next.grant();
      else active = Math.max(0, active - 1);
    },
  };
}

/**
 * Run `worker` over `items` in order with at most `concurrency` in flight; resolves when all have
 * ended. A worker that throws stops nothing else; the first error is rethrown at the end. Lanes pull
 * the next item (rather than one waiter per item), so a long list costs no memory up front; `items`
 * may be any iterable (a generator makes each item only when a lane takes it).
 */
export async function runPool<T>(items: Iterable<T>, concurrency: number, worker: (item: T, index: number) => Promise<void>): Promise<void> {
  const max = Math.max(1, Math.floor(concurrency) || 1);
  const width = Array.isArray(items) ? Math.max(1, Math.min(max, items.length)) : max;
  const it = items[Symbol.iterator]();
  let next = 0;
  let exhausted = false;
  let firstError: { err: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (!exhausted) {
      let step: IteratorResult<T>;
      try {
        step = it.next();
      } catch (err) {
        // The iterable itself failed: nothing more to take.
        firstError ??= { err };
        exhausted = true;
        return;
      }
      if (step.done) {
        exhausted = true;
        return;
      }
      const index = next++;
      try {
        await worker(step.value, index);
      } catch (err) {
        firstError ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  if (firstError) throw firstError.err;
}
