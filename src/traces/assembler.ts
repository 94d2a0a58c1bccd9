// Groups spans (and span-bound log records) by trace id and decides when a trace is complete: its root
// has ended and nothing arrived for it during a quiet window. The clock is abstract: `serve` passes
// milliseconds, `score` passes a count of records read, so one implementation serves both.
import type { LogRecordEntry, SpanRecord } from './spans.js';
import { shardOf } from '../core/shard.js';

/** A trace handed to scoring. */
export interface AssembledTrace {
  traceId: string;
  spans: SpanRecord[];
  logs: LogRecordEntry[];
  /** Handed out early because a memory bound was reached (it may be incomplete). */
  evicted: boolean;
}

export interface AssemblerOptions {
  /** Quiet window after the root ended, in clock units (ms in `serve`, records in `score`). */
  quiet: number;
  /**
   * A trace whose root never arrives is handed out after this much quiet.
   * @default quiet * 10
   */
  orphanQuiet?: number;
  /** @default 10000 */
  maxOpenTraces?: number;
  /** Spans held across all open traces. @default 250000 */
  maxOpenSpans?: number;
  /** Spans kept per trace; more are dropped and counted. @default 10000 */
  maxSpansPerTrace?: number;
  /** Completed trace ids remembered so late spans are counted instead of starting a new trace. @default 10000 */
  rememberCompleted?: number;
}

export interface AssemblerStats {
  openTraces: number;
  openSpans: number;
  /** Traces handed out early because of maxOpenTraces / maxOpenSpans. */
  evictedTraces: number;
  /** Spans dropped by maxSpansPerTrace. */
  droppedSpans: number;
  /** Spans or log records that arrived after their trace had been handed out. */
  lateRecords: number;
}

export interface TraceAssembler {
  /** Add spans; returns traces evicted to respect the memory bounds. */
  addSpans(spans: SpanRecord[], now: number): AssembledTrace[];
  /** Add log records; returns traces evicted to respect the memory bounds. */
  addLogs(logs: LogRecordEntry[], now: number): AssembledTrace[];
  /** Traces complete at `now`, removed from the open set. */
  takeComplete(now: number): AssembledTrace[];
  /** Every open trace (end of input, shutdown). */
  flush(): AssembledTrace[];
  stats(): AssemblerStats;
}

interface OpenTrace {
  traceId: string;
  spans: Map<string, SpanRecord>;
  logs: LogRecordEntry[];
  lastUpdate: number;
  rootEnded: boolean;
}

/** @example const asm = createTraceAssembler({ quiet: 2000 }); asm.addSpans(spans, Date.now()); */
export function createTraceAssembler(options: AssemblerOptions): TraceAssembler {
  const quiet = options.quiet;
  const orphanQuiet = options.orphanQuiet ?? quiet * 10;
  const maxOpenTraces = options.maxOpenTraces ?? 10_000;
  const maxOpenSpans = options.maxOpenSpans ?? 250_000;
  const maxSpansPerTrace = options.maxSpansPerTrace ?? 10_000;
  const rememberCompleted = options.rememberCompleted ?? 10_000;
  // Map iteration order = least recently updated first (entries are re-inserted on update).
  const open = new Map<string, OpenTrace>();
  const completed = new Set<string>();
  let openSpans = 0;
  let evictedTraces = 0;
  let droppedSpans = 0;
  let lateRecords = 0;

  const remember = (traceId: string): void => {
    completed.add(traceId);
    if (completed.size > rememberCompleted) completed.delete(completed.values().next().value as string);
  };
  const hand = (t: OpenTrace, evicted: boolean): AssembledTrace => {
    open.delete(t.traceId);
    openSpans -= t.spans.size;
    remember(t.traceId);
    return { traceId: t.traceId, spans: [...t.spans.values()], logs: t.logs, evicted };
  };
  const touch = (traceId: string, now: number): OpenTrace | undefined => {
    if (completed.has(traceId)) return undefined;
    let t = open.get(traceId);
    if (t) open.delete(traceId);
    else t = { traceId, spans: new Map(), logs: [], lastUpdate: now, rootEnded: false };
    t.lastUpdate = now;
    open.set(traceId, t);
    return t;
  };
  const evict = (): AssembledTrace[] => {
    const out: AssembledTrace[] = [];
    while (open.size > maxOpenTraces || openSpans > maxOpenSpans) {
      const oldest = open.values().next().value as OpenTrace | undefined;
      if (!oldest) break;
      evictedTraces++;
      out.push(hand(oldest, true));
    }
    return out;
  };

  return {
    addSpans(spans, now) {
      for (const span of spans) {
        const t = touch(span.traceId, now);
        if (!t) {
          lateRecords++;
          continue;
        }
        if (!t.spans.has(span.spanId)) {
          if (t.spans.size >= maxSpansPerTrace) {
            droppedSpans++;
            continue;
          }
          openSpans++;
        }
        t.spans.set(span.spanId, span);
        if (span.parentSpanId === undefined && span.endTimeMs !== undefined) t.rootEnded = true;
      }
      return evict();
    },
    addLogs(logs, now) {
      for (const log of logs) {
        const t = touch(log.traceId, now);
        if (!t) {
          lateRecords++;
          continue;
        }
        if (t.logs.length < maxSpansPerTrace) t.logs.push(log);
        else droppedSpans++;
      }
      return evict();
    },
    takeComplete(now) {
      const out: AssembledTrace[] = [];
      for (const t of [...open.values()]) {
        const idle = now - t.lastUpdate;
        if ((t.rootEnded && idle >= quiet) || idle >= orphanQuiet) out.push(hand(t, false));
      }
      return out;
    },
    flush() {
      return [...open.values()].map((t) => hand(t, false));
    },
    stats() {
      return { openTraces: open.size, openSpans, evictedTraces, droppedSpans, lateRecords };
    },
  };
}

/** The 1-based shard of a trace id under `--shard i/n` (core/shard.ts), case-insensitive as hex ids are. */
export function shardOfTrace(traceId: string, count: number): number {
  return shardOf(traceId.toLowerCase(), count);
}
