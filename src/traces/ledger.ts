// The call ledger: every tool call of a trace, counted once. A call can show up as an LLM span's output,
// as a tool span, in a later request's history and as a tool result; each sighting is joined to the entry
// it belongs to by the named steps below (by call id, else by name and canonical arguments, else by name
// alone when one side has no arguments), and otherwise becomes an entry of its own. Entries come out in the
// order the calls were requested (or executed).
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { canonicalJson } from '../core/canonical-json.js';
import { parseArguments } from '../telemetry/conventions/_json.js';
import type { ExtractedCall } from '../telemetry/conventions/_read.js';
import { wasExecuted } from '../telemetry/conventions/runspec.js';
import type { ToolCall, ToolCallRecord } from '../types/run.js';
import { sortSmall } from './_sort.js';
import type { SpanRecord } from './spans.js';

/** The call a tool span executed (a class: an object literal with a getter costs a slow path per span). */
export class ExecutedCall {
  id?: string;
  result?: string;
  /** A trajectory call beyond the parallel cap, not run (runspec.eval.dropped). */
  dropped?: boolean;
  readonly hasArguments: boolean;
  readonly isError: boolean;
  readonly executed: boolean;
  private parsedArguments: Record<string, unknown> | undefined;

  constructor(
    readonly span: SpanRecord,
    readonly name: string,
    private readonly rawArgs: unknown,
  ) {
    this.hasArguments = rawArgs !== undefined && rawArgs !== '';
    this.isError = span.statusCode === 2 || span.attributes[ATTR_ERROR_TYPE] !== undefined;
    this.executed = wasExecuted(span.attributes);
  }

  /** Parsed on first use: a call its id joins to the model's request keeps the request's arguments. */
  get arguments(): Record<string, unknown> {
    return (this.parsedArguments ??= parseArguments(this.rawArgs));
  }
}

interface Entry {
  rec: ToolCallRecord;
  sortTimeMs: number;
  seq: number;
  spanId?: string;
  /** A tool span has been joined to this entry (each entry takes at most one). */
  matchedTool: boolean;
}

const hasNoArguments = (e: Entry): boolean => Object.keys(e.rec.call.arguments).length === 0;

/** Ledger entries in request order, and (call id or `#position`, span id) pairs for the span-id map. */
export interface LedgerResult {
  toolCalls: ToolCallRecord[];
  callSpanPairs: string[];
}

export class CallLedger {
  private readonly entries: Entry[] = [];
  private readonly byId = new Map<string, Entry>();
  private seq = 0;

  /** A call the model requested on an LLM span; a call id seen before is the same call. */
  request(c: ExtractedCall, at: { turn: number; span: SpanRecord }): void {
    if (c.id && this.byId.has(c.id)) return;
    const call: ToolCall = { id: c.id ?? '', name: c.name, arguments: c.arguments };
    if (c.reconstructed) call.reconstructed = true;
    const end = at.span.endTimeMs ?? at.span.startTimeMs;
    this.add({
      rec: { turn: at.turn, modelCallIndex: at.turn, call, startTimeMs: end, endTimeMs: end, executed: true },
      sortTimeMs: end,
      spanId: at.span.spanId,
      matchedTool: false,
    });
  }

  /**
   * A tool span's call: joined to the requested call it ran (by id, else by name and arguments, else by
   * name when either side has no arguments), else added as a call of the turn the span started in.
   */
  execute(e: ExecutedCall, llmSpans: readonly SpanRecord[]): void {
    const match = this.joinToolById(e) ?? this.joinToolByNameAndArgs(e) ?? this.joinToolByName(e);
    if (match) {
      this.takeExecution(match, e);
      return;
    }
    const turn = Math.max(0, llmSpans.filter((s) => s.startTimeMs <= e.span.startTimeMs).length - 1);
    const rec: ToolCallRecord = {
      turn,
      modelCallIndex: llmSpans.length ? turn : -1,
      call: { id: e.id ?? '', name: e.name, arguments: e.arguments },
      startTimeMs: e.span.startTimeMs,
      endTimeMs: e.span.endTimeMs ?? e.span.startTimeMs,
      executed: e.executed,
    };
    if (e.result !== undefined) rec.result = e.result;
    if (e.isError) rec.isError = true;
    if (e.dropped) rec.dropped = true;
    this.add({ rec, sortTimeMs: e.span.startTimeMs, spanId: e.span.spanId, matchedTool: true });
  }

  /** Join step 1: the requested call with the same id that no tool span has taken yet. */
  private joinToolById(e: ExecutedCall): Entry | undefined {
    const m = e.id ? this.byId.get(e.id) : undefined;
    return m && !m.matchedTool ? m : undefined;
  }

  /** Join step 2: the first untaken call of the same name and canonical arguments (ids absent on one side). */
  private joinToolByNameAndArgs(e: ExecutedCall): Entry | undefined {
    // Canonical arguments only when the call id did not join it (most producers record ids).
    const canon = canonicalJson(e.arguments);
    return this.entries.find((p) => !p.matchedTool && (!e.id || !p.rec.call.id) && p.rec.call.name === e.name && canonicalJson(p.rec.call.arguments) === canon);
  }

  /** Join step 3: the first untaken call of the same name, when the span or the request has no arguments. */
  private joinToolByName(e: ExecutedCall): Entry | undefined {
    return this.entries.find((p) => !p.matchedTool && (!e.id || !p.rec.call.id) && p.rec.call.name === e.name && (!e.hasArguments || hasNoArguments(p)));
  }

  private takeExecution(match: Entry, e: ExecutedCall): void {
    match.matchedTool = true;
    const r = match.rec;
    if (!r.call.id && e.id) {
      r.call.id = e.id;
      this.byId.set(e.id, match);
    }
    if (hasNoArguments(match) && e.hasArguments) r.call.arguments = e.arguments;
    r.executed = e.executed;
    r.startTimeMs = e.span.startTimeMs;
    r.endTimeMs = e.span.endTimeMs ?? e.span.startTimeMs;
    if (e.result !== undefined) r.result = e.result;
    if (e.isError) r.isError = true;
    if (e.dropped) r.dropped = true;
    match.spanId = e.span.spanId;
  }

  /**
   * Calls seen only in a later request's history (no output, no tool span). Each history call claims at
   * most one known call (by id; else by name with the same or unknown arguments), so a call repeated in the
   * history stays repeated and a known call is not added twice.
   */
  claimHistory(calls: readonly ToolCall[], atMs: number): void {
    const claimed = new Set<Entry>();
    for (const c of calls) {
      const byId = c.id ? this.byId.get(c.id) : undefined;
      if (byId) {
        claimed.add(byId);
        continue;
      }
      const same = this.joinHistoryByName(c, claimed);
      if (same) {
        claimed.add(same);
        if (hasNoArguments(same)) same.rec.call.arguments = c.arguments;
        if (!same.rec.call.id && c.id) {
          same.rec.call.id = c.id;
          this.byId.set(c.id, same);
        }
        continue;
      }
      const e: Entry = {
        rec: { turn: 0, modelCallIndex: -1, call: { ...c }, startTimeMs: atMs, endTimeMs: atMs, executed: true },
        sortTimeMs: atMs - 1e-3,
        seq: 0,
        matchedTool: false,
      };
      this.add(e);
      claimed.add(e);
    }
  }

  /** History join: an unclaimed call of the same name whose arguments are the same or unknown. */
  private joinHistoryByName(c: ToolCall, claimed: ReadonlySet<Entry>): Entry | undefined {
    const canon = canonicalJson(c.arguments);
    return this.entries.find(
      (p) => !claimed.has(p) && p.rec.call.name === c.name && (!c.id || !p.rec.call.id) && (canonicalJson(p.rec.call.arguments) === canon || hasNoArguments(p)),
    );
  }

  /** A tool result recorded apart from the call (a later history, a log record), joined by call id; the first one wins. */
  attachResult(callId: string, result: string | undefined): void {
    const p = this.byId.get(callId);
    if (p && p.rec.result === undefined && result !== undefined) p.rec.result = result;
  }

  /** The calls in request order. A call only requested (no tool span, no result) is not known to have run. */
  finish(): LedgerResult {
    for (const p of this.entries) if (!p.matchedTool && p.rec.result === undefined) p.rec.executed = false;
    const sorted = sortSmall(this.entries, byRequestTime);
    const callSpanPairs: string[] = [];
    sorted.forEach((p, i) => {
      if (p.spanId) callSpanPairs.push(p.rec.call.id || `#${i}`, p.spanId);
    });
    // Pushed, not `.map`ped: see the trace scorer (a holey array from optimised code deoptimised the rules' loops).
    const toolCalls: ToolCallRecord[] = [];
    for (const p of sorted) toolCalls.push(p.rec);
    return { toolCalls, callSpanPairs };
  }

  private add(e: Omit<Entry, 'seq'> & { seq?: number }): void {
    const entry = e as Entry;
    entry.seq = this.seq++;
    if (entry.rec.call.id) this.byId.set(entry.rec.call.id, entry);
    this.entries.push(entry);
  }
}

function byRequestTime(x: Entry, y: Entry): number {
  return x.sortTimeMs - y.sortTimeMs || x.seq - y.seq;
}
