// Whether a server can be reached at all: the second fast stop of a run (the first, N errored samples in a
// row, is counted in engine/suite-runner.ts). A provider that is down is seen here before any sample errors,
// which with retries and time-outs can take minutes: when every request in flight has failed to connect
// (refused, no route, no TCP handshake within undici's 10 s connect time-out) and no request connected for
// `windowMs` since the first of those failures, the listener hears it once.

/** The provider looks unreachable: how long no request connected, and the last failure's wording. */
export interface UnreachableEvent {
  windowMs: number;
  /** `openai provider: connection failed (ECONNREFUSED)`. */
  reason: string;
}

/** One request's side of the watch (the HTTP client reports each attempt). */
export interface RequestReach {
  /** An attempt got an answer (any status): the server is reachable. */
  connected(): void;
  /** An attempt could not connect; `reason` is one line naming the cause. */
  failedToConnect(reason: string): void;
  /** The request is no longer in flight (answered, failed or cancelled). */
  ended(): void;
}

export interface ReachabilityWatch {
  /** A request is now in flight; report its attempts through the handle and end it. */
  request(): RequestReach;
  /**
   * Hear, once, that the server looks unreachable. Watching starts afresh (nothing seen before counts);
   * returns the call that stops listening.
   */
  watch(listener: (event: UnreachableEvent) => void): () => void;
}

export interface ReachabilityOptions {
  /** How long every request in flight must have failed to connect; 0 never reports. @default 10000 */
  windowMs: number;
  /** The clock (tests pass a fake one). @default Date.now */
  now?: () => number;
  /** Run `fn` after `ms`; returns the cancel. @default an unref'd setTimeout */
  setTimer?: (fn: () => void, ms: number) => () => void;
}

/** The default window: undici's connect time-out, so a black-holed host fails every request once in it. */
export const DEFAULT_UNREACHABLE_AFTER_MS = 10_000;

const systemTimer = (fn: () => void, ms: number): (() => void) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/**
 * A watch shared by every request of one server (a provider's HTTP client).
 * @example
 * const reach = createReachabilityWatch({ windowMs: 10_000 });
 * const stop = reach.watch((e) => abortRun(`${e.reason} for ${e.windowMs} ms`));
 */
export function createReachabilityWatch(opts: ReachabilityOptions): ReachabilityWatch {
  const now = opts.now ?? Date.now;
  const setTimer = opts.setTimer ?? systemTimer;
  // Each request in flight, and whether its latest attempt failed to connect.
  const inFlight = new Map<object, { failed: boolean }>();
  let failingSinceMs: number | undefined;
  let lastReason = '';
  let listener: ((event: UnreachableEvent) => void) | undefined;
  let cancelTimer: (() => void) | undefined;

  const stopTimer = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
  };
  const check = (): void => {
    if (!listener || opts.windowMs <= 0 || failingSinceMs === undefined || inFlight.size === 0) return;
    for (const r of inFlight.values()) if (!r.failed) return;
    const elapsedMs = now() - failingSinceMs;
    if (elapsedMs >= opts.windowMs) {
      const heard = listener;
      listener = undefined;
      stopTimer();
      heard({ windowMs: opts.windowMs, reason: lastReason });
    } else {
      cancelTimer ??= setTimer(() => {
        cancelTimer = undefined;
        check();
      }, opts.windowMs - elapsedMs);
    }
  };

  return {
    request() {
      const key = {};
      const entry = { failed: false };
      inFlight.set(key, entry);
      return {
        connected() {
          entry.failed = false;
          failingSinceMs = undefined;
          stopTimer();
        },
        failedToConnect(reason) {
          entry.failed = true;
          failingSinceMs ??= now();
          lastReason = reason;
          check();
        },
        ended() {
          if (inFlight.delete(key)) check();
        },
      };
    },
    watch(l) {
      listener = l;
      failingSinceMs = undefined;
      stopTimer();
      for (const r of inFlight.values()) r.failed = false;
      return () => {
        if (listener === l) listener = undefined;
        stopTimer();
      };
    },
  };
}
