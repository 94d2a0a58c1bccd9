// Spans in, outcomes out: shard filter → assembler → scorer → summary. Shared by `score` (files: the
// structural completion rule, the clock counts records) and `serve` (HTTP: the quiet rule, wall time).
import { createTraceAssembler, shardOfTrace } from './assembler.js';
import type { AssembledTrace, AssemblerOptions } from './assembler.js';
import { readTracePaths } from './readers.js';
import type { ReaderOptions } from './readers.js';
import { createSummaryCollector, createTraceScorer } from './score-traces.js';
import type { LateRecordsLine, ScoreSummary, TraceOutcome, TraceScorerOptions } from './score-traces.js';
import type { InputProblem, LogRecordEntry, SpanRecord } from './spans.js';
import type { Shard } from '../core/shard.js';

export type { Shard } from '../core/shard.js';

export interface TracePipelineOptions extends TraceScorerOptions {
  assembler: AssemblerOptions;
  shard?: Shard;
  /** Receives every scored or uninterpretable trace, in completion order (each revision; `final` marks the last). */
  onOutcome: (outcome: TraceOutcome) => void;
  /** Records that arrived after their trace's re-open window: dropped, reported as they arrive. */
  onLate?: (line: LateRecordsLine) => void;
  /**
   * Judge the traces `tick` finds complete in slices of about this many ms between I/O callbacks, instead
   * of all at once inside `tick`: a receiver keeps answering requests while a backlog is judged, in the
   * same order. Unset: `tick` judges them before it returns (the file scorer, tests).
   */
  scoreSliceMs?: number;
  /**
   * With `scoreSliceMs`: the most traces waiting to be judged; past it, `addSpans` / `addLogs` judge the
   * oldest themselves (so ingest slows down to the judging rate instead of queueing without bound).
   * @default 10000
   */
  maxQueuedTraces?: number;
}

export interface TracePipeline {
  addSpans(spans: SpanRecord[], now: number): void;
  addLogs(logs: LogRecordEntry[], now: number): void;
  addProblem(problem: InputProblem): void;
  addBadFile(file: string): void;
  /** Score traces that became complete by `now` (with `scoreSliceMs`: queue them, judged in slices). */
  tick(now: number): void;
  /** Score every open and queued trace (end of input, shutdown). */
  flush(): void;
  /**
   * `flush` in slices: the same outcomes in the same order, with turns of the event loop between slices, so the
   * end of input or a shutdown does not block the loop for the whole backlog and the lines written so far
   * reach their output meanwhile. With `slices`: judge for about `slices.ms`, then await `slices.pause()` (the
   * file scorer awaits its output's drain). Without: the `scoreSliceMs` slices between requests judge them,
   * one a turn; without `scoreSliceMs` either it is `flush`. The receivers call it on close when the pipeline
   * has it, `flush` otherwise.
   */
  flushInSlices?(slices?: { ms: number; pause: () => Promise<void> }): Promise<void>;
  summary(): ScoreSummary;
  /** Traces not judged yet: open ones, and complete ones waiting in the queue. */
  openTraces(): number;
}

/** @example const p = createTracePipeline({ cases, assembler: { quiet: 2000 }, onOutcome: write }); */
export function createTracePipeline(options: TracePipelineOptions): TracePipeline & Required<Pick<TracePipeline, 'flushInSlices'>> {
  const onLate = options.onLate;
  const assembler = createTraceAssembler(
    onLate
      ? {
          ...options.assembler,
          onLate: ({ traceId, records }) =>
            onLate({
              kind: 'late',
              traceId,
              records,
              reason: `${records} record(s) arrived after the trace's re-open window closed (dropped; its final verdict stands)`,
            }),
        }
      : options.assembler,
  );
  const scorer = createTraceScorer(options);
  // Handed out once, final (files): no outcome supersedes another, so the summary keeps none of them.
  const summary = createSummaryCollector({ supersedes: options.assembler.provisional !== false });
  const shard = options.shard;
  const inShard = (traceId: string): boolean => !shard || shard.count <= 1 || shardOfTrace(traceId, shard.count) === shard.index;
  // The provisional outcome of each trace waiting for its re-open window (serve): when the window closes with
  // nothing new, that judgement is handed out again as final instead of judging the same spans twice.
  const provisional = new Map<string, TraceOutcome>();
  const judge = (t: AssembledTrace): void => {
    const previous = t.unchanged ? provisional.get(t.traceId) : undefined;
    const outcome = previous !== undefined && previous.revision === (t.revision ?? 0) ? finalOf(previous) : scorer.score(t);
    if (outcome.final) provisional.delete(t.traceId);
    else provisional.set(t.traceId, outcome);
    summary.addOutcome(outcome);
    options.onOutcome(outcome);
  };
  // Traces complete but not yet judged (scoreSliceMs only), oldest first from `head`.
  const sliceMs = options.scoreSliceMs;
  const maxQueued = options.maxQueuedTraces ?? 10_000;
  let queue: Array<AssembledTrace | undefined> = [];
  let head = 0;
  let scheduled = false;
  const queued = (): number => queue.length - head;
  /** Judge queued traces, oldest first, for about `budgetMs` or `count` traces, whichever ends first. */
  const drain = (budgetMs: number, count = Number.POSITIVE_INFINITY): void => {
    const until = performance.now() + budgetMs;
    for (let n = 0; head < queue.length && n < count; n++) {
      const t = queue[head]!;
      queue[head++] = undefined;
      judge(t);
      if (budgetMs !== Number.POSITIVE_INFINITY && performance.now() >= until) break;
    }
    if (head === queue.length) {
      queue = [];
      head = 0;
    } else if (head >= 4096) {
      queue = queue.slice(head);
      head = 0;
    }
  };
  const schedule = (): void => {
    if (scheduled || queued() === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      drain(sliceMs!);
      schedule();
    });
  };
  const drainAll = (): void => drain(Number.POSITIVE_INFINITY);
  /** Judge traces handed out now: in order after any backlog (evictions and end of input judge at once). */
  const emitNow = (traces: AssembledTrace[]): void => {
    if (traces.length === 0) return;
    drainAll();
    for (const t of traces) judge(t);
  };
  // Backpressure: ingest judges the oldest queued traces itself until at most maxQueued wait.
  const afterIngest = (): void => {
    if (queued() > maxQueued) drain(Number.POSITIVE_INFINITY, queued() - maxQueued);
  };
  return {
    addSpans(spans, now) {
      emitNow(assembler.addSpans(shard ? spans.filter((s) => inShard(s.traceId)) : spans, now));
      afterIngest();
    },
    addLogs(logs, now) {
      emitNow(assembler.addLogs(shard ? logs.filter((l) => inShard(l.traceId)) : logs, now));
      afterIngest();
    },
    addProblem(problem) {
      summary.addProblem(problem);
    },
    addBadFile(file) {
      summary.addBadFile(file);
    },
    tick(now) {
      const complete = assembler.takeComplete(now);
      if (sliceMs === undefined) {
        for (const t of complete) judge(t);
        return;
      }
      for (const t of complete) queue.push(t);
      schedule();
    },
    flush() {
      drainAll();
      for (const t of assembler.flush()) judge(t);
    },
    async flushInSlices(slices) {
      // After the backlog, in the order flush() judges them: the queued traces, then the retained, then the open.
      for (const t of assembler.flush()) queue.push(t);
      if (slices !== undefined) {
        // The caller's slices (score's end of input): judge for about `ms`, then await its pause.
        while (queued() > 0) {
          drain(slices.ms);
          if (queued() > 0) await slices.pause();
        }
        return;
      }
      if (sliceMs === undefined) {
        drainAll();
        return;
      }
      // The slices between requests judge them, one per turn of the event loop (scheduled again each turn: a
      // slice that threw does not leave the rest waiting).
      while (queued() > 0) {
        schedule();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
    summary() {
      summary.setAssemblerStats(assembler.stats());
      return summary.summary();
    },
    openTraces: () => assembler.stats().openTraces + queued(),
  };
}

/** A provisional outcome made final: new outcome and line objects (consumers may hold the earlier ones). */
function finalOf(o: TraceOutcome): TraceOutcome {
  if (o.kind !== 'scored') return { ...o, final: true };
  return { ...o, final: true, lines: o.lines.map((l) => ({ ...l, final: true })) };
}

/** Scoring time between two event-loop polls while reading. */
const POLL_EVERY_MS = 2;

/** Options of {@link scoreTraceFiles}. */
export interface ScoreFilesOptions extends TraceScorerOptions, ReaderOptions {
  cwd: string;
  stdin?: AsyncIterable<Uint8Array>;
  shard?: Shard;
  /**
   * A trace is judged as soon as it is structurally complete (every root ended, every parent present), the
   * rest at the end of input. Spans that arrive for a judged trace within this many further records (lines,
   * documents, frames) re-open it for a superseding verdict; later ones are counted as late.
   * @default 1000
   */
  reopenRecords?: number;
  maxOpenTraces?: number;
  maxOpenSpans?: number;
  /** Estimated bytes of open and retained traces before the oldest is judged early. @default 32 MiB */
  maxOpenBytes?: number;
  onOutcome: (outcome: TraceOutcome) => void;
  /**
   * The output's backpressure: a promise while the consumer of the outcomes is behind (a full pipe), which
   * reading waits for, so unwritten lines never pile up in memory; undefined when it keeps up.
   */
  outputReady?: () => Promise<void> | undefined;
}

/**
 * Read files / directories / `-` and score every trace in them, streaming.
 * @throws TraceError (TRACE_INPUT) for a path that does not exist or cannot be read.
 */
export async function scoreTraceFiles(paths: string[], options: ScoreFilesOptions): Promise<ScoreSummary> {
  // Files: a trace is handed out once, final, when its window closes or the input ends.
  const assembler: AssemblerOptions = { rule: 'structural', quiet: 0, reopenWindow: options.reopenRecords ?? 1000, provisional: false };
  if (options.maxOpenTraces !== undefined) assembler.maxOpenTraces = options.maxOpenTraces;
  if (options.maxOpenSpans !== undefined) assembler.maxOpenSpans = options.maxOpenSpans;
  if (options.maxOpenBytes !== undefined) assembler.maxOpenBytes = options.maxOpenBytes;
  const pipelineOptions: TracePipelineOptions = { ...options, assembler };
  const pipeline = createTracePipeline(pipelineOptions);
  let records = 0;
  let currentFile: string | undefined;
  let fileRecords = 0;
  let fileProblems = 0;
  const endFile = (): void => {
    if (currentFile !== undefined && fileRecords === 0 && fileProblems > 0) pipeline.addBadFile(currentFile);
  };
  const readerOptions: ReaderOptions & { cwd: string; stdin?: AsyncIterable<Uint8Array> } = { cwd: options.cwd };
  if (options.stdin) readerOptions.stdin = options.stdin;
  if (options.maxRecordBytes !== undefined) readerOptions.maxRecordBytes = options.maxRecordBytes;
  if (options.maxInflatedBytes !== undefined) readerOptions.maxInflatedBytes = options.maxInflatedBytes;
  // Waits for the output to drain when it is behind, else for one turn of the event loop.
  const pause = (): Promise<void> => options.outputReady?.() ?? new Promise<void>((r) => setImmediate(r));
  let polled = performance.now();
  for await (const item of readTracePaths(paths, readerOptions)) {
    if (item.file !== currentFile) {
      endFile();
      currentFile = item.file;
      fileRecords = 0;
      fileProblems = 0;
    }
    if (item.kind === 'problem') {
      fileProblems++;
      pipeline.addProblem(item.problem);
      continue;
    }
    records++;
    fileRecords++;
    if (item.kind === 'spans') pipeline.addSpans(item.spans, records);
    else pipeline.addLogs(item.logs, records);
    if (records % 64 === 0) pipeline.tick(records);
    // Let the event loop poll between records (a few ms of scoring each): a piped input is read while the
    // next lines are scored, instead of only once the reader runs dry.
    if (performance.now() - polled >= POLL_EVERY_MS) {
      await pause();
      polled = performance.now();
    }
  }
  endFile();
  // The traces still held (up to --max-open-bytes of them) are judged in slices, as lines are while reading.
  await pipeline.flushInSlices({ ms: POLL_EVERY_MS, pause });
  return pipeline.summary();
}
