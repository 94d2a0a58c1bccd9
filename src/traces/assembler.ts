// Groups spans (and span-bound log records) by trace id and decides when a trace is judged: the completion
// rule, shared by `score` (files) and `serve` (HTTP) and by the streaming scorer.
//
// - `structural` (files): a trace is judged as soon as it is structurally complete (every root has ended
//   and every span's parent is present), or at the end of input. Nothing depends on read speed or on how
//   many spans share a line, so `--shard i/n` still adds up to the unsharded run.
// - `quiet` (serve): a trace is judged when it is structurally complete and no span arrived for it for
//   `quiet` ms; one that never becomes whole is judged after `orphanQuiet` ms.
//
// Revisions: a judged trace is retained for `reopenWindow` clock units. Spans or log records that arrive for
// it then re-open it, and it is judged again as the next `revision` (0, 1, …; the scorer emits a verdict
// under the same identifier that supersedes the earlier one). When the window closes the trace is handed out
// once more with `final` set: that judgement is the one summaries, results and verdict spans count. With
// `provisional: false` (files) a trace is handed out only then, final at its first judgement. Records that
// arrive after the window are reported through `onLate` and dropped. A trace judged without being whole is
// flagged `complete: false` (the scorer calls it `incomplete` rather than dropping it).
//
// Memory is bounded by the estimated bytes of open traces (`maxOpenBytes`: past it, the least recently
// updated open trace is judged early, `evicted`) and of retained ones (`maxRetainedBytes`: past it, the
// least recently judged is made final early, counted in `retainedEvictions`).
import type { LogRecordEntry, SpanRecord } from './spans.js';
import { shardOf } from '../core/shard.js';

/** A trace handed to scoring. */
export interface AssembledTrace {
  traceId: string;
  spans: SpanRecord[];
  logs: LogRecordEntry[];
  /** Handed out early because a memory bound was reached (it may be incomplete). */
  evicted: boolean;
  /** Every root ended and every span's parent arrived. @default true */
  complete?: boolean;
  /** Judged before: late spans re-opened it, and this judgement supersedes the earlier one. */
  reopened?: boolean;
  /** 0 for the first judgement, then one more each time late spans re-open it. @default 0 */
  revision?: number;
  /** The re-open window closed (or never applies: evicted, end of input): this judgement is the last. @default true */
  final?: boolean;
  /**
   * The same spans and logs as the judgement handed out before it (same `revision`): nothing arrived in its
   * re-open window, so that judgement stands, now final (a consumer may reuse it instead of judging again).
   */
  unchanged?: boolean;
}

export type CompletionRule = 'structural' | 'quiet';

export interface AssemblerOptions {
  /** @default "quiet" */
  rule?: CompletionRule;
  /** `quiet` rule: the quiet window after the trace became whole, in clock units (ms in `serve`). */
  quiet: number;
  /**
   * `quiet` rule: a trace that never becomes whole (root not ended, parents missing) is judged after this
   * much quiet, as incomplete. @default quiet * 10
   */
  orphanQuiet?: number;
  /** How long (clock units) a judged trace can be re-opened by late spans. @default orphanQuiet (quiet) / 1000 (structural) */
  reopenWindow?: number;
  /**
   * Hand a trace out when it is judged and again, `final`, when its re-open window closes (serve). With
   * false it is handed out once, final, when the window closes (files). @default true
   */
  provisional?: boolean;
  /** Estimated bytes of retained (judged, re-openable) traces; past it the least recently judged is made final. @default 67108864 (64 MiB) */
  maxRetainedBytes?: number;
  /** Records for a trace whose window has closed: they are dropped, and reported here as they arrive. */
  onLate?: (late: { traceId: string; records: number }) => void;
  /** @default 10000 */
  maxOpenTraces?: number;
  /** Spans held across all open traces. @default 250000 */
  maxOpenSpans?: number;
  /** Spans kept per trace; more are dropped and counted. @default 10000 */
  maxSpansPerTrace?: number;
  /**
   * Estimated bytes of open and retained traces (attribute keys and values, ids, names). The documented
   * memory cap of the streaming scorer. @default 33554432 (32 MiB)
   */
  maxOpenBytes?: number;
  /** Judged trace ids remembered so late spans are counted instead of starting a new trace. @default 10000 */
  rememberCompleted?: number;
}

export interface AssemblerStats {
  openTraces: number;
  openSpans: number;
  /** Estimated bytes held (open and retained traces). */
  openBytes: number;
  /** Traces handed out early because of maxOpenTraces / maxOpenSpans / maxOpenBytes. */
  evictedTraces: number;
  /** Spans dropped by maxSpansPerTrace. */
  droppedSpans: number;
  /** Spans or log records that arrived after their trace's re-open window (dropped). */
  lateRecords: number;
  /** Judged traces re-opened by late spans (each gave a superseding verdict). */
  reopenedTraces: number;
  /** Retained traces made final before their window closed, to stay within maxRetainedBytes. */
  retainedEvictions: number;
  /** Estimated bytes of retained traces. */
  retainedBytes: number;
}

export interface TraceAssembler {
  /** Add spans; returns traces judged now (structural rule) or evicted to respect the memory bounds. */
  addSpans(spans: SpanRecord[], now: number): AssembledTrace[];
  /** Add log records; returns traces judged now or evicted. */
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
  roots: number;
  /**
   * Span ids the trace waits for: its roots (no parent, or a remote one) not yet ended, and parents its spans
   * name that have not arrived. Made with the trace, so every OpenTrace has one shape: created on first
   * need, as it was, it changed the shape mid-run and threw away the optimised code of addSpans and isWhole.
   */
  pending: Set<string>;
  bytes: number;
  reopened: boolean;
  /** When it was judged (retained traces). */
  judgedAt: number;
  /** Judgements handed out so far (provisional ones). */
  judged: number;
}

// Calibrated against V8 heap use (OTLP/JSON agent traces, Node 20): the span and trace objects, the id
// strings and the attributes object cost ~360 bytes per span, each attribute ~40 bytes beyond its key and
// value characters (the property slot and the string header). The old 200 / 0 undercounted real heap by
// ~1.8×, so the old 64 MiB cap held ~115 MB of heap.
const SPAN_OVERHEAD_BYTES = 360;
const ATTRIBUTE_OVERHEAD_BYTES = 40;
/** OTLP SpanKind SERVER (2) and CONSUMER (5): entry points of a service, typically with a remote parent. */
const REMOTE_ENTRY_KINDS = new Set([2, 5]);

/** A cheap estimate of a span's retained size: ids, name, attribute keys and string values. */
function spanBytes(span: SpanRecord): number {
  let n = SPAN_OVERHEAD_BYTES + span.name.length;
  for (const k in span.attributes) {
    const v = span.attributes[k];
    n += ATTRIBUTE_OVERHEAD_BYTES + k.length + (typeof v === 'string' ? v.length : 16);
  }
  return n + span.events.length * 64;
}

function logBytes(log: LogRecordEntry): number {
  const b = log.body;
  return SPAN_OVERHEAD_BYTES + (typeof b === 'string' ? b.length : 256);
}

/** @example const asm = createTraceAssembler({ rule: 'structural', quiet: 0 }); asm.addSpans(spans, records); */
export function createTraceAssembler(options: AssemblerOptions): TraceAssembler {
  const rule = options.rule ?? 'quiet';
  const quiet = options.quiet;
  const orphanQuiet = options.orphanQuiet ?? quiet * 10;
  const reopenWindow = options.reopenWindow ?? (rule === 'structural' ? 1000 : orphanQuiet);
  const provisional = options.provisional ?? true;
  const maxRetainedBytes = options.maxRetainedBytes ?? 64 * 1024 * 1024;
  let retainedBytes = 0;
  let retainedEvictions = 0;
  const maxOpenTraces = options.maxOpenTraces ?? 10_000;
  const maxOpenSpans = options.maxOpenSpans ?? 250_000;
  const maxSpansPerTrace = options.maxSpansPerTrace ?? 10_000;
  const maxOpenBytes = options.maxOpenBytes ?? 32 * 1024 * 1024;
  const rememberCompleted = options.rememberCompleted ?? 10_000;
  // Map iteration order = least recently updated first (entries are re-inserted on update).
  const open = new Map<string, OpenTrace>();
  // Judged traces that late spans may still re-open, oldest judgement first.
  const retained = new Map<string, OpenTrace>();
  const completed = new Set<string>();
  // The remembered ids in the order they were remembered, as a ring: the oldest is forgotten without asking
  // the set for its first entry (an iterator that steps over every deleted slot before it).
  const completedOrder: string[] = [];
  let completedNext = 0;
  let openSpans = 0;
  let bytes = 0;
  let evictedTraces = 0;
  let droppedSpans = 0;
  let lateRecords = 0;
  let reopenedTraces = 0;

  // At most this many (a set of size > rememberCompleted is cut back to it; NaN never cuts).
  const completedCap = Math.floor(rememberCompleted);
  const remember = (traceId: string): void => {
    if (completed.has(traceId)) return;
    completed.add(traceId);
    if (Number.isNaN(completedCap)) return;
    if (completedCap <= 0) completed.delete(traceId);
    else if (completedOrder.length < completedCap) completedOrder.push(traceId);
    else {
      completed.delete(completedOrder[completedNext]!);
      completedOrder[completedNext] = traceId;
      completedNext = (completedNext + 1) % completedCap;
    }
  };
  const isWhole = (t: OpenTrace): boolean => t.roots > 0 && t.pending.size === 0;
  const snapshot = (t: OpenTrace, evicted: boolean, revision: number, final: boolean): AssembledTrace => {
    const out: AssembledTrace = { traceId: t.traceId, spans: [...t.spans.values()], logs: [...t.logs], evicted, complete: isWhole(t) };
    if (revision > 0) {
      out.reopened = true;
      out.revision = revision;
    }
    if (!final) out.final = false;
    return out;
  };
  /** The window closed (or the retained cap was reached): hand the trace out final and forget its spans. */
  const release = (t: OpenTrace): AssembledTrace => {
    retained.delete(t.traceId);
    bytes -= t.bytes;
    retainedBytes -= t.bytes;
    remember(t.traceId);
    // Provisional: the last judgement handed out, confirmed; held back (files): the first and only one.
    if (!provisional) return snapshot(t, false, t.judged, true);
    const out = snapshot(t, false, Math.max(0, t.judged - 1), true);
    // Retained since it was handed out: anything that arrived would have re-opened it.
    if (t.judged > 0) out.unchanged = true;
    return out;
  };
  const hand = (t: OpenTrace, evicted: boolean, now: number): AssembledTrace | undefined => {
    open.delete(t.traceId);
    openSpans -= t.spans.size;
    if (evicted || now === Number.POSITIVE_INFINITY) {
      // Nothing can re-open it: this judgement is final.
      bytes -= t.bytes;
      remember(t.traceId);
      return snapshot(t, evicted, t.judged, true);
    }
    t.judgedAt = now;
    retained.set(t.traceId, t);
    retainedBytes += t.bytes;
    if (!provisional) return undefined;
    const out = snapshot(t, false, t.judged, false);
    t.judged++;
    return out;
  };
  const expire = (now: number): AssembledTrace[] => {
    const out: AssembledTrace[] = [];
    for (const t of retained.values()) {
      if (now - t.judgedAt < reopenWindow && retainedBytes <= maxRetainedBytes) break;
      if (now - t.judgedAt < reopenWindow) retainedEvictions++;
      out.push(release(t));
    }
    return out;
  };
  const touch = (traceId: string, now: number): OpenTrace | undefined => {
    let t = open.get(traceId);
    if (t) open.delete(traceId);
    else {
      const again = retained.get(traceId);
      if (again) {
        retained.delete(traceId);
        retainedBytes -= again.bytes;
        again.reopened = true;
        openSpans += again.spans.size;
        if (again.judged > 0) reopenedTraces++;
        t = again;
      } else if (completed.has(traceId)) return undefined;
      else
        t = {
          traceId,
          spans: new Map(),
          logs: [],
          lastUpdate: now,
          roots: 0,
          pending: new Set(),
          bytes: 0,
          reopened: false,
          judgedAt: 0,
          judged: 0,
        };
    }
    t.lastUpdate = now;
    open.set(traceId, t);
    return t;
  };
  const addSpan = (t: OpenTrace, span: SpanRecord): void => {
    const prior = t.spans.get(span.spanId);
    if (prior) {
      // The same span again (a retry, or an update that ended it): replace, keep the structure counts. It is
      // here, so it is pending only as a root that had not ended.
      if (span.endTimeMs !== undefined) t.pending.delete(span.spanId);
      t.spans.set(span.spanId, span);
      return;
    }
    if (t.spans.size >= maxSpansPerTrace) {
      droppedSpans++;
      return;
    }
    t.spans.set(span.spanId, span);
    openSpans++;
    const size = spanBytes(span);
    t.bytes += size;
    bytes += size;
    // Arrived: no longer a missing parent (before the root check, which may await its end).
    t.pending.delete(span.spanId);
    if (span.parentSpanId === undefined || (REMOTE_ENTRY_KINDS.has(span.kind) && !t.spans.has(span.parentSpanId))) {
      // A SERVER / CONSUMER span whose parent is not here was called from another service, whose spans
      // may never be collected: it is this trace's local root, not a span waiting for its parent.
      t.roots++;
      if (span.endTimeMs === undefined) t.pending.add(span.spanId);
    } else if (!t.spans.has(span.parentSpanId)) {
      t.pending.add(span.parentSpanId);
    }
  };
  const evict = (now: number): AssembledTrace[] => {
    const out: AssembledTrace[] = [];
    // Retained traces first, oldest judgement first, in one pass (deleting the entry being visited is safe
    // during Map iteration): each is made final early.
    if (bytes > maxOpenBytes || retainedBytes > maxRetainedBytes) {
      for (const t of retained.values()) {
        if (bytes <= maxOpenBytes && retainedBytes <= maxRetainedBytes) break;
        retainedEvictions++;
        out.push(release(t));
      }
    }
    while (open.size > maxOpenTraces || openSpans > maxOpenSpans || bytes > maxOpenBytes) {
      const oldest = open.values().next().value as OpenTrace | undefined;
      if (!oldest) break;
      evictedTraces++;
      out.push(hand(oldest, true, now)!);
    }
    return out;
  };
  const ready = (touched: Iterable<OpenTrace>, now: number): AssembledTrace[] => {
    if (rule !== 'structural') return [];
    const out: AssembledTrace[] = [];
    for (const t of touched) {
      if (open.get(t.traceId) !== t || !isWhole(t)) continue;
      const handed = hand(t, false, now);
      if (handed) out.push(handed);
    }
    return out;
  };
  const late = new Map<string, number>();
  const reportLate = (): void => {
    if (late.size === 0) return;
    if (options.onLate) for (const [traceId, records] of late) options.onLate({ traceId, records });
    late.clear();
  };

  return {
    addSpans(spans, now) {
      const expired = expire(now);
      const touched = new Set<OpenTrace>();
      let last: OpenTrace | undefined;
      for (const span of spans) {
        // Consecutive spans of one trace (the common case) touch it once: nothing moved it in between.
        const t = last !== undefined && last.traceId === span.traceId ? last : touch(span.traceId, now);
        if (!t) {
          lateRecords++;
          late.set(span.traceId, (late.get(span.traceId) ?? 0) + 1);
          continue;
        }
        addSpan(t, span);
        if (t !== last) {
          touched.add(t);
          last = t;
        }
      }
      reportLate();
      // concat, not a spread of the three: an empty list and a full one have different array maps, and the
      // spread deoptimised addSpans once for each it had not seen yet.
      return expired.concat(evict(now), ready(touched, now));
    },
    addLogs(logs, now) {
      const expired = expire(now);
      const touched = new Set<OpenTrace>();
      for (const log of logs) {
        const t = touch(log.traceId, now);
        if (!t) {
          lateRecords++;
          late.set(log.traceId, (late.get(log.traceId) ?? 0) + 1);
          continue;
        }
        if (t.logs.length < maxSpansPerTrace) {
          t.logs.push(log);
          const size = logBytes(log);
          t.bytes += size;
          bytes += size;
        } else droppedSpans++;
        touched.add(t);
      }
      reportLate();
      return expired.concat(evict(now), ready(touched, now));
    },
    takeComplete(now) {
      const out = expire(now);
      // Structural: a trace becomes whole only when a span arrives, and is handed out right then.
      if (rule === 'structural') return out;
      // Least recently updated first: once one has not been quiet long enough, none after it has. (Deleting
      // the entry being visited is safe during Map iteration.)
      for (const t of open.values()) {
        const idle = now - t.lastUpdate;
        if (idle < quiet) break;
        if (isWhole(t) || idle >= orphanQuiet) {
          const handed = hand(t, false, now);
          if (handed) out.push(handed);
        }
      }
      return out;
    },
    flush() {
      // Retained traces first (judged earlier), then the open ones: every one final, nothing can re-open them.
      const out = [...retained.values()].map(release);
      for (const t of [...open.values()]) out.push(hand(t, false, Number.POSITIVE_INFINITY)!);
      return out;
    },
    stats() {
      return { openTraces: open.size, openSpans, openBytes: bytes, evictedTraces, droppedSpans, lateRecords, reopenedTraces, retainedEvictions, retainedBytes };
    },
  };
}

/** The 1-based shard of a trace id under `--shard i/n` (core/shard.ts), case-insensitive as hex ids are. */
export function shardOfTrace(traceId: string, count: number): number {
  return shardOf(traceId.toLowerCase(), count);
}
