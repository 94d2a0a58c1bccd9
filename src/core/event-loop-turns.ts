// Long synchronous loops over many items (loading 100,000 cases, hashing them) give the event loop a turn
// every few milliseconds, so timers, signals and in-flight I/O are not held up for seconds.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work between two turns of the event loop, at most (a turn is taken after the item that passes it). */
export const DEFAULT_SLICE_MS = 20;

export interface EventLoopTurns {
  /** Whether the current slice has run its time: then `await turns.take()`. */
  due(): boolean;
  /** Let the event loop run, and start a new slice. */
  take(): Promise<void>;
}

/**
 * @example const turns = createEventLoopTurns(); for (const c of cases) { work(c); if (turns.due()) await turns.take(); }
 */
export function createEventLoopTurns(sliceMs = DEFAULT_SLICE_MS): EventLoopTurns {
  let since = performance.now();
  return {
    due: () => performance.now() - since >= sliceMs,
    async take() {
      await nextTurn();
      since = performance.now();
    },
  };
}

/** Run a generator that yields between its steps to its end, without pausing. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Run a generator that yields between its steps to its end, giving the event loop a turn every slice. */
export async function runStepsYielding<T>(steps: Generator<void, T>, turns: EventLoopTurns = createEventLoopTurns()): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (turns.due()) await turns.take();
  }
}
