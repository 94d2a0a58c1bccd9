// A run's results without holding them: each finished case goes to the results log (batched fsync, see
// results-file.ts) and the run keeps only where its line sits; the final document is then streamed from
// the log, case by case in the selected order, with the aggregate folded in as it goes. Memory: the
// offsets index (two numbers per case) plus one case at a time, whatever the number of cases.

import { closeSync, openSync, readSync } from 'node:fs';
import { EXIT_CODES, type ErrorCode } from '../errors.js';
import type { CaseResult } from '../types/verdict.js';
import type { CaseEntry, ResultsMeta } from './results-schema.js';
import { RESULTS_SCHEMA } from './results-id.js';
import { aggregateFromSummary, caseEntryOf } from './results-encode.js';
import { caseResultOf } from './results-decode.js';
import { writeResultsDocumentSteps } from './results-layout.js';
import { redactUrl } from '../core/redact.js';
import { createSummaryAccumulator } from '../scoring/summary.js';
import { isUnjudgedCategory } from '../scoring/samples.js';
import { createAtomicFileWriter, type AtomicFileWriter } from '../core/atomic-write.js';
import { runStepsYielding } from '../core/event-loop-turns.js';
import {
  isCaseRecord,
  openResultsLog,
  readLogBytes,
  scanLogLines,
  type LogSpan,
  type ResultsLogHeader,
  type ResultsLogOptions,
  type ResultsLogWriter,
} from './results-file.js';

/** What the exit code and the problem lines of a run need, gathered while the document is written. */
export interface RunFacts {
  /** Cases in the document. */
  cases: number;
  /** Cases below their threshold. */
  belowThreshold: number;
  /** Cases with an `unscorable` or `incomplete` sample (for `--fail-on-unscorable`). */
  unscorableCases: number;
  /** Cases whose every sample errored, with the first error. */
  infraFailed: Array<{ caseId: string; message: string }>;
  /** The first errored sample whose code is bad input (exit 2), if any. */
  badInput?: { code: ErrorCode; message: string };
}

/** The iteration fields of a plain run's document besides its cases and aggregate. */
export interface DocumentIteration {
  iteration: number;
  timestamp: string;
  prompt?: string;
}

export interface RunRecorder {
  readonly logFile: string;
  /** Ids of the cases already in the log when it was opened (resume). */
  readonly prior: ReadonlySet<string>;
  /** Log a finished case (queued; on disk within the log's window). */
  add(result: CaseResult): void;
  /** Flush and close the log. */
  close(): Promise<void>;
  /**
   * Stream the results document of `caseIds` (in that order; ids not in the log are left out) to
   * `file`, atomically, giving the event loop a turn every few milliseconds. Call after {@link close}.
   */
  writeDocument(file: string, opts: { meta: ResultsMeta; iteration: DocumentIteration; caseIds: readonly string[] }): Promise<RunFacts>;
}

/**
 * Open a run's results log: a new one, or (resume) an existing one whose case lines are indexed first.
 * @example const rec = await openRunRecorder(logFile, header); rec.add(result); await rec.close(); await rec.writeDocument(finalFile, { meta, iteration, caseIds });
 */
export async function openRunRecorder(logFile: string, header: ResultsLogHeader, opts: ResultsLogOptions & { resume?: boolean } = {}): Promise<RunRecorder> {
  const spans = new SpanIndex(header.caseIds.length);
  const prior = new Set<string>();
  if (opts.resume) {
    scanLogLines(logFile, (line, span) => {
      if (!line.includes('"type":"case"')) return;
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        return;
      }
      if (isCaseRecord(rec)) {
        spans.set(rec.caseId, span);
        prior.add(rec.caseId);
      }
    });
  }
  const log: ResultsLogWriter = await openResultsLog(logFile, { ...header, version: 2 }, opts);
  // A fresh log of distinct cases is folded as it is written (see DocumentFold); a resumed one is
  // folded from the log when the document is written, as its prior cases may be run again.
  let fold = opts.resume ? undefined : DocumentFold.of(header.caseIds);
  return {
    logFile,
    prior,
    add(result) {
      const entry = caseEntryOf(result);
      const span = log.append({ type: 'case', caseId: result.caseId, entry });
      spans.set(result.caseId, span);
      fold?.add(result, entry, span.length);
    },
    close: () => log.close(),
    writeDocument(file, { meta, iteration, caseIds }) {
      // The document completes the fold's sums in place: a second document is folded from the log.
      const used = fold?.sameOrder(caseIds) ? fold : undefined;
      fold = undefined;
      return writeDocumentFile(file, { logFile, spans, meta, iteration, caseIds, fold: used });
    },
  };
}

/**
 * What the document folds from its case entries (aggregate, per-case pass rates, exit-code facts), folded
 * while the run logs them instead of parsing every line back when the document is written. The fold goes
 * in the selected order, as the document's does (its sums are floating point): an entry logged ahead of
 * its turn waits here (at most MAX_WAITING of them, MAX_WAITING_BYTES of log), and past that, or at an
 * entry whose numbers JSON would not carry as they are, the fold stops and the document folds the rest
 * from the log as before.
 */
class DocumentFold {
  static readonly MAX_WAITING = 256;
  /** Log bytes of the entries waiting, at most: large entries wait in fewer numbers. */
  static readonly MAX_WAITING_BYTES = 16 << 20;
  readonly acc = createSummaryAccumulator();
  readonly passRates: Record<string, number> = {};
  readonly facts: RunFacts = { cases: 0, belowThreshold: 0, unscorableCases: 0, infraFailed: [] };
  /** Cases [0, folded) of the order are folded. */
  folded = 0;
  private stopped = false;
  private readonly waiting = new Map<string, { result: CaseResult; entry: CaseEntry; bytes: number }>();
  private waitingBytes = 0;

  private constructor(private readonly order: readonly string[]) {}

  /** A fold over `caseIds`, or undefined when an id repeats (the document then shows one entry twice). */
  static of(caseIds: readonly string[]): DocumentFold | undefined {
    return new Set(caseIds).size === caseIds.length ? new DocumentFold(caseIds) : undefined;
  }

  /**
   * Fold a logged case: `entry` as logged, `result` what it was made of. The summary takes `result`
   * itself, which for an entry carried as is equals what reading the entry back gives (the document test
   * "writes the same document whether it folds…" holds the two paths together).
   */
  add(result: CaseResult, entry: CaseEntry, bytes: number): void {
    if (this.stopped) return;
    const caseId = result.caseId;
    if (this.waiting.has(caseId) || this.order.indexOf(caseId, this.folded) < 0) return this.stop(); // logged twice, or not selected
    this.waiting.set(caseId, { result, entry, bytes });
    this.waitingBytes += bytes;
    // Bounded by the order's length: reading past its end (after the last case) deoptimised this, once a run.
    while (this.folded < this.order.length) {
      const id = this.order[this.folded]!;
      const next = this.waiting.get(id);
      if (next === undefined) break;
      if (!carriedAsIs(next.entry)) return this.stop();
      this.waiting.delete(id);
      this.waitingBytes -= next.bytes;
      foldFacts(this.facts, id, next.entry);
      this.acc.add(next.result);
      this.passRates[id] = next.entry.pass_rate;
      this.folded++;
    }
    if (this.waiting.size > DocumentFold.MAX_WAITING || this.waitingBytes > DocumentFold.MAX_WAITING_BYTES) this.stop();
  }

  /** Whether the document is of the same cases in the same order. */
  sameOrder(caseIds: readonly string[]): boolean {
    return caseIds === this.order || (caseIds.length === this.order.length && caseIds.every((id, i) => id === this.order[i]));
  }

  private stop(): void {
    this.stopped = true;
    this.waiting.clear();
    this.waitingBytes = 0;
  }
}

/** Whether the numbers the fold reads survive JSON as they are (NaN and ±Infinity become null). */
function carriedAsIs(entry: CaseEntry): boolean {
  if (!Number.isFinite(entry.pass_rate)) return false;
  for (const r of entry.runs) {
    if (!Number.isFinite(r.tokens)) return false;
    if (r.match !== null && !Number.isFinite(r.match.score)) return false;
    const m = r.replio;
    if (
      m !== null &&
      (!Number.isFinite(m.calls) || !Number.isFinite(m.redundant) || !Number.isFinite(m.errors) || (m.accuracy !== null && !Number.isFinite(m.accuracy)))
    )
      return false;
  }
  return true;
}

/**
 * Where each case's line sits in the log: an id → slot map and the numbers in two growing typed
 * arrays, instead of an object per case (100,000 cases: a few MB less for the whole run).
 */
class SpanIndex {
  private readonly slots = new Map<string, number>();
  private offsets: Float64Array;
  private lengths: Float64Array;

  /**
   * Room for `expected` cases from the start: a fresh run logs each selected case once, so the arrays
   * never grow (growing, first met past 1,024 cases, deoptimised the code that logs a case, once per run).
   */
  constructor(expected: number) {
    const size = Math.max(1024, expected);
    this.offsets = new Float64Array(size);
    this.lengths = new Float64Array(size);
  }

  set(caseId: string, span: LogSpan): void {
    let slot = this.slots.get(caseId);
    if (slot === undefined) {
      slot = this.slots.size;
      if (slot === this.offsets.length) {
        const offsets = new Float64Array(slot * 2);
        offsets.set(this.offsets);
        this.offsets = offsets;
        const lengths = new Float64Array(slot * 2);
        lengths.set(this.lengths);
        this.lengths = lengths;
      }
      this.slots.set(caseId, slot);
    }
    this.offsets[slot] = span.offset;
    this.lengths[slot] = span.length;
  }

  get(caseId: string): LogSpan | undefined {
    const slot = this.slots.get(caseId);
    return slot === undefined ? undefined : { offset: this.offsets[slot]!, length: this.lengths[slot]! };
  }
}

interface DocumentSource {
  logFile: string;
  spans: SpanIndex;
  meta: ResultsMeta;
  iteration: DocumentIteration;
  caseIds: readonly string[];
  fold?: DocumentFold | undefined;
}

/** The document streamed to `file` between turns of the event loop, and committed with its fsync off the loop. */
async function writeDocumentFile(file: string, o: DocumentSource): Promise<RunFacts> {
  const out = createAtomicFileWriter(file);
  try {
    const facts = await runStepsYielding(streamDocumentSteps(out, o));
    await out.commitAsync();
    return facts;
  } catch (err) {
    out.abort();
    throw err;
  }
}

function* streamDocumentSteps(out: AtomicFileWriter, o: DocumentSource): Generator<void, RunFacts> {
  const meta = { ...o.meta };
  if (typeof meta.base_url === 'string') meta.base_url = redactUrl(meta.base_url);
  const iteration: Record<string, unknown> = { iteration: o.iteration.iteration, timestamp: o.iteration.timestamp, cases: null, aggregate: null };
  if (o.iteration.prompt !== undefined) iteration.prompt = o.iteration.prompt;

  // The cases the run folded already are copied from the log as they are; the rest are parsed and folded.
  const acc = o.fold?.acc ?? createSummaryAccumulator();
  const passRates: Record<string, number> = o.fold?.passRates ?? {};
  const facts: RunFacts = o.fold?.facts ?? { cases: 0, belowThreshold: 0, unscorableCases: 0, infraFailed: [] };
  const folded = o.fold?.folded ?? 0;
  const fd = openSync(o.logFile, 'r');
  const lines = new LogWindow(fd);
  try {
    // Each entry goes out as the log holds its JSON (the document's one-line-per-case layout): parsed
    // for the aggregate and the exit-code facts, never serialised again.
    yield* writeResultsDocumentSteps({ schema: RESULTS_SCHEMA, meta, iterations: [iteration] }, (chunk) => out.write(chunk), {
      *cases(_i, line) {
        for (let i = 0; i < o.caseIds.length; i++) {
          if (i > 0) yield;
          const caseId = o.caseIds[i]!;
          const span = o.spans.get(caseId);
          if (!span) continue;
          // A folded case's entry goes out as the log's bytes (the writer copies them before the next read).
          const bytes = i < folded ? entryBytesOf(lines.bytes(span), caseId) : undefined;
          if (bytes !== undefined) {
            line(caseId, bytes);
            continue;
          }
          const text = lines.read(span);
          const rec: unknown = JSON.parse(text);
          if (!isCaseRecord(rec)) continue;
          const entry: CaseEntry = 'entry' in rec ? rec.entry : caseEntryOf(rec.result);
          // A folded case is in the sums already, whatever its line looks like.
          if (i >= folded) {
            foldFacts(facts, caseId, entry);
            acc.add('entry' in rec ? caseResultOf(caseId, entry) : rec.result);
            passRates[caseId] = entry.pass_rate;
          }
          line(caseId, 'entry' in rec ? (entryJsonOf(text, caseId) ?? JSON.stringify(entry)) : JSON.stringify(entry));
        }
      },
      aggregate: () => aggregateFromSummary(acc.summary(), passRates),
    });
  } finally {
    closeSync(fd);
  }
  return facts;
}

/**
 * Lines of the log read through a window of at least 1 MiB: the document asks for them nearly in the order
 * they were logged, so a few large reads replace one read per case.
 */
class LogWindow {
  private buf = Buffer.alloc(0);
  private start = 0;
  private end = 0;

  constructor(private readonly fd: number) {}

  read(span: LogSpan): string {
    return this.bytes(span).toString('utf8');
  }

  /** The line's bytes: valid until the next read. */
  bytes(span: LogSpan): Buffer {
    // A line before the window (a resumed log holds re-run cases after later ones) is read on its own,
    // and the window stays where the document's order goes on.
    if (span.offset < this.start) return readLogBytes(this.fd, span);
    if (span.offset + span.length > this.end) {
      const size = Math.max(LOG_WINDOW_BYTES, span.length);
      if (this.buf.length < size) this.buf = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const n = readSync(this.fd, this.buf, got, size - got, span.offset + got);
        if (n === 0) break;
        got += n;
      }
      this.start = span.offset;
      this.end = span.offset + got;
      // A line cut short by the end of the file reads as what is there, as readLogBytes does.
      if (span.offset + span.length > this.end) return this.buf.subarray(0, got);
    }
    return this.buf.subarray(span.offset - this.start, span.offset - this.start + span.length);
  }
}

const LOG_WINDOW_BYTES = 1 << 20;

/** The entry's JSON inside a case line as `add` writes it (`{"type":"case","caseId":…,"entry":…}`). */
function entryJsonOf(line: string, caseId: string): string | undefined {
  const head = caseLineHead(caseId);
  return line.startsWith(head) && line.endsWith('}') ? line.slice(head.length, -1) : undefined;
}

/** {@link entryJsonOf} over the line's UTF-8 bytes: the entry's bytes (a view of `line`). */
function entryBytesOf(line: Buffer, caseId: string): Buffer | undefined {
  const head = Buffer.from(caseLineHead(caseId), 'utf8');
  const fits = line.length > head.length && line[line.length - 1] === CLOSE_BRACE && line.compare(head, 0, head.length, 0, head.length) === 0;
  return fits ? line.subarray(head.length, line.length - 1) : undefined;
}

const CLOSE_BRACE = 0x7d;

function caseLineHead(caseId: string): string {
  return `{"type":"case","caseId":${JSON.stringify(caseId)},"entry":`;
}

function foldFacts(facts: RunFacts, caseId: string, entry: CaseEntry): void {
  facts.cases++;
  if (!entry.meets_threshold) facts.belowThreshold++;
  if (entry.runs.some((r) => r.status === 'scored' && r.verdict !== null && isUnjudgedCategory(r.verdict.category))) facts.unscorableCases++;
  if (entry.runs.length > 0 && entry.runs.every((r) => r.status === 'errored')) {
    const first = entry.runs[0]!;
    facts.infraFailed.push({ caseId, message: first.error?.message ?? first.detail });
  }
  if (!facts.badInput) {
    for (const r of entry.runs) {
      if (r.status === 'errored' && r.error && (EXIT_CODES as Record<string, number>)[r.error.code] === 2) {
        facts.badInput = { code: r.error.code as ErrorCode, message: r.error.message };
        break;
      }
    }
  }
}
