import { describe, expect, it } from 'vitest';
import { createReachabilityWatch, type UnreachableEvent } from '../../src/core/reachability.js';

/** A hand-driven clock and timer: time moves only when the test says so. */
function fakeTime() {
  let nowMs = 0;
  const timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  return {
    now: () => nowMs,
    setTimer: (fn: () => void, ms: number) => {
      const t = { at: nowMs + ms, fn, live: true };
      timers.push(t);
      return () => {
        t.live = false;
      };
    },
    advance: (ms: number) => {
      nowMs += ms;
      for (const t of timers) {
        if (t.live && t.at <= nowMs) {
          t.live = false;
          t.fn();
        }
      }
    },
  };
}

function setup(windowMs = 10_000) {
  const time = fakeTime();
  const watch = createReachabilityWatch({ windowMs, now: time.now, setTimer: time.setTimer });
  const heard: UnreachableEvent[] = [];
  watch.watch((e) => heard.push(e));
  return { time, watch, heard };
}

describe('reachability watch', () => {
  it('reports once when every request in flight failed to connect for the window', () => {
    const { time, watch, heard } = setup();
    const a = watch.request();
    const b = watch.request();
    a.failedToConnect('openai provider: connection failed (ECONNREFUSED)');
    b.failedToConnect('openai provider: connection failed (ECONNREFUSED)');
    time.advance(9_999);
    expect(heard).toEqual([]);
    time.advance(1);
    expect(heard).toEqual([{ windowMs: 10_000, reason: 'openai provider: connection failed (ECONNREFUSED)' }]);
    a.failedToConnect('again');
    time.advance(20_000);
    expect(heard).toHaveLength(1);
  });

  it('does not report while one request in flight has not failed to connect (a slow answer)', () => {
    const { time, watch, heard } = setup();
    const a = watch.request();
    const slow = watch.request();
    a.failedToConnect('refused');
    time.advance(60_000);
    expect(heard).toEqual([]);
    // The slow one ends without a connect failure: the rest have all failed for the window.
    slow.ended();
    expect(heard).toHaveLength(1);
  });

  it('starts the window again when a request connects', () => {
    const { time, watch, heard } = setup();
    const a = watch.request();
    const b = watch.request();
    a.failedToConnect('refused');
    b.failedToConnect('refused');
    time.advance(5_000);
    b.connected();
    b.ended();
    time.advance(6_000);
    expect(heard).toEqual([]);
    const c = watch.request();
    c.failedToConnect('refused');
    time.advance(9_000);
    expect(heard).toEqual([]);
    time.advance(1_000);
    expect(heard).toHaveLength(1);
  });

  it('never reports with a window of 0, nor after the listener stopped', () => {
    const off = setup(0);
    const r = off.watch.request();
    r.failedToConnect('refused');
    off.time.advance(1e9);
    expect(off.heard).toEqual([]);

    const time = fakeTime();
    const watch = createReachabilityWatch({ windowMs: 100, now: time.now, setTimer: time.setTimer });
    const heard: UnreachableEvent[] = [];
    const stop = watch.watch((e) => heard.push(e));
    watch.request().failedToConnect('refused');
    stop();
    time.advance(1_000);
    watch.request().failedToConnect('refused');
    expect(heard).toEqual([]);
  });

  it('forgets failures seen before watching starts (a new run)', () => {
    const time = fakeTime();
    const watch = createReachabilityWatch({ windowMs: 100, now: time.now, setTimer: time.setTimer });
    const old = watch.request();
    old.failedToConnect('refused');
    time.advance(1_000);
    const heard: UnreachableEvent[] = [];
    watch.watch((e) => heard.push(e));
    const fresh = watch.request();
    fresh.failedToConnect('refused');
    time.advance(50);
    expect(heard).toEqual([]);
    // `old` has not failed since watching started: it blocks until it fails again.
    time.advance(1_000);
    expect(heard).toEqual([]);
    old.failedToConnect('refused');
    expect(heard).toHaveLength(1);
  });
});
