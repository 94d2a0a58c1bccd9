// Results on disk: a JSON-lines log appended as each case finishes and fsync'd in batches off the event
// loop, so a crashed run can be resumed, and the final document written atomically (temp file +
// rename), so a reader never sees half.
//
// Durability window: a finished case reaches the disk (write + fdatasync on libuv's thread pool) at most
// `windowMs` (default 200 ms) after it finished, or as soon as `maxBatch` (default 256) cases wait,
// whichever comes first. A crash (kill -9, power loss) loses at most the cases of that window; they are
// not in the log, so `--resume` runs them again: nothing is lost, some work may be redone.

import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { open as openAsync, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { RunspecError } from '../errors.js';
import { outputError, writeAllAsync, writeFileAtomic } from '../core/atomic-write.js';
import type { CaseResult } from '../types/verdict.js';
import type { CaseEntry } from './results-schema.js';
import { caseResultOf } from './results-decode.js';

/** First line of a results log: who ran what, so `--resume` can finish the same run. */
export interface ResultsLogHeader {
  type: 'run';
  /** Log format version: 1 logs a case's `result`, 2 its results-document `entry` (arguments once). */
  version: 1 | 2;
  runId: string;
  /** ISO time the run started (kept on resume). */
  startedAt: string;
  /** Where the final document goes. */
  finalFile: string;
  /** Ids of the selected cases, in order (after sharding). */
  caseIds: string[];
  /** The effective run options (never secrets), replayed by `--resume`. */
  options: Record<string, unknown>;
}

/** One finished case: its results-document entry (version 2), or its CaseResult (version 1 logs). */
export type ResultsLogCase = { type: 'case'; caseId: string; entry: CaseEntry } | { type: 'case'; caseId: string; result: CaseResult };

/** The case result of a logged case, whichever version wrote it. */
export function loggedCaseResult(rec: ResultsLogCase): CaseResult {
  return 'entry' in rec ? caseResultOf(rec.caseId, rec.entry) : rec.result;
}

export type ResultsLogRecord = ResultsLogHeader | ResultsLogCase;

export interface ResultsLog {
  header: ResultsLogHeader;
  /** Finished cases by id (a case logged twice keeps the last line). */
  cases: Map<string, CaseResult>;
  /** A torn last line (the process died mid-write) was dropped. */
  truncatedTail: boolean;
}

export interface ResultsPaths {
  /** The final results document (JSON). */
  finalFile: string;
  /** The JSON-lines log next to it. */
  logFile: string;
}

/**
 * Where a run's results go: `--out PATH` (the log is PATH with `.jsonl` in place of `.json`), or
 * `.runspec/results/<run-id>.json` (+ `.jsonl`) under the project.
 * @example resultsPaths({ projectDir: '/p', runId: 'r1' }) // { finalFile: '/p/.runspec/results/r1.json', logFile: '/p/.runspec/results/r1.jsonl' }
 */
export function resultsPaths(opts: { projectDir: string; runId: string; out?: string; cwd?: string }): ResultsPaths {
  const finalFile = opts.out
    ? isAbsolute(opts.out)
      ? opts.out
      : resolve(opts.cwd ?? opts.projectDir, opts.out)
    : join(opts.projectDir, '.runspec', 'results', `${opts.runId}.json`);
  return { finalFile, logFile: logFileFor(finalFile) };
}

/** The log path of a final document: `x.json` → `x.jsonl`, anything else gets `.jsonl` appended. */
export function logFileFor(finalFile: string): string {
  return finalFile.endsWith('.json') ? finalFile.slice(0, -'.json'.length) + '.jsonl' : finalFile + '.jsonl';
}

/** Where a record sits in the log: byte offset and length of its line (without the newline). */
export interface LogSpan {
  offset: number;
  length: number;
}

const NEWLINE = 0x0a;

/** An append-only JSON-lines writer, fsync'd in batches (see the durability window above). */
export interface ResultsLogWriter {
  readonly file: string;
  /** Queue a record; it reaches the disk within the window. Returns where its line sits in the file. */
  append(record: ResultsLogRecord): LogSpan;
  /** Write and fsync everything queued so far. */
  flush(): Promise<void>;
  /** Flush, then close the file. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link openResultsLog}. */
export interface ResultsLogOptions {
  /** Longest a finished case waits before it is written and fsync'd. @default 200 */
  windowMs?: number;
  /** Cases queued before a write starts without waiting for the window. @default 256 */
  maxBatch?: number;
}

/**
 * Open (or create) a results log. A new file starts with `header` (written and fsync'd at once); an
 * existing one (resume) is appended to as it is, after cutting a torn last line so the next record
 * starts on a line of its own.
 */
export async function openResultsLog(file: string, header: ResultsLogHeader, opts: ResultsLogOptions = {}): Promise<ResultsLogWriter> {
  const windowMs = opts.windowMs ?? 200;
  const maxBatch = Math.max(1, opts.maxBatch ?? 256);
  mkdirSync(dirname(file), { recursive: true });
  const exists = existsSync(file);
  if (exists) {
    const keep = intactLength(file);
    if (keep !== statSync(file).size) {
      // kill -9 mid-write leaves a partial line: keep everything up to the last newline.
      // The kept bytes end at a newline, so they decode whole.
      writeFileAtomic(file, readFileSync(file).subarray(0, keep).toString('utf8'));
    }
  }
  if (!exists || statSync(file).size === 0) {
    // Written and fsync'd off the event loop: at 100,000 cases the header (their ids and digests) is MBs.
    const line = Buffer.from(JSON.stringify(header) + '\n', 'utf8');
    try {
      const h = await openAsync(file, 'a');
      try {
        await writeAllAsync(h, line);
        await h.sync();
      } finally {
        await h.close();
      }
    } catch (err) {
      // Before the run's first case: the new log holds part of its header at most.
      throw outputError(file, err, { outcome: 'no case has run' });
    }
  }
  const fh: FileHandle = await openAsync(file, 'a');
  let size = statSync(file).size;
  // Lines as text, each encoded once straight into the batch's one Buffer (its size is known from the
  // lines' byte lengths): no joined copy of the batch as a string, no Buffer per line.
  let queued: string[] = [];
  let queuedBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  let open = true;

  const writeQueued = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return chain;
    const batch = Buffer.allocUnsafe(queuedBytes);
    let at = 0;
    for (const line of queued) {
      at += batch.write(line, at, 'utf8');
      batch[at++] = NEWLINE;
    }
    queued = [];
    queuedBytes = 0;
    if (at !== batch.length) {
      // allocUnsafe: bytes not written over are old memory. A count that does not match the encoding
      // (a bug) would put them in the log, so the batch is dropped and the log fails at flush/close.
      failure ??= new RunspecError('INTERNAL', `${file}: a results batch encoded to ${at} bytes, not the ${batch.length} counted; not written`);
      return chain;
    }
    // One write + fdatasync per batch, on the thread pool; batches stay in order on one chain.
    chain = chain.then(async () => {
      if (failure !== undefined) return;
      try {
        await writeAllAsync(fh, batch);
        await fh.datasync();
      } catch (err) {
        failure = err;
      }
    });
    return chain;
  };
  const settled = async (): Promise<void> => {
    await writeQueued();
    if (failure !== undefined) {
      // The disk, not the input: exit 3, the log named. The batches before the failed one are on disk and
      // none after it is written, so the log ends at a case line, or in the failed batch's cut one.
      throw outputError(file, failure, {
        outcome: 'the log may be incomplete: it holds the cases written before the failure',
        hint: `make room on that disk (or fix it), then \`run --resume ${file}\` runs the cases the log does not hold`,
      });
    }
  };
  return {
    file,
    append(record) {
      if (!open) throw new RunspecError('INTERNAL', `${file}: results log already closed`);
      const json = JSON.stringify(record);
      const bytes = Buffer.byteLength(json, 'utf8') + 1;
      const span = { offset: size, length: bytes - 1 };
      size += bytes;
      queuedBytes += bytes;
      queued.push(json);
      if (queued.length >= maxBatch) void writeQueued();
      else if (!timer) {
        timer = setTimeout(() => void writeQueued(), windowMs);
        // A pending batch does not keep the process alive; close() writes it.
        timer.unref();
      }
      return span;
    },
    flush: settled,
    async close() {
      if (!open) return;
      open = false;
      try {
        await settled();
      } finally {
        await fh.close();
      }
    },
  };
}

/** Bytes of `file` up to and including its last newline (a torn last line excluded). */
function intactLength(file: string): number {
  const size = statSync(file).size;
  if (size === 0) return 0;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = readSync(fd, buf, 0, end - start, start);
      const at = buf.subarray(0, n).lastIndexOf(10);
      if (at >= 0) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Read a results log for `--resume`. A torn last line is dropped; any other bad line is an error. */
export function readResultsLog(file: string): ResultsLog {
  const hint = 'pass the .jsonl file a previous run wrote next to its results (see --out)';
  if (!existsSync(file)) throw new RunspecError('RESULTS', `${file}: results log not found`, { hint });
  const st = statSync(file);
  // A directory read was EISDIR (exit 3); a FIFO would block.
  if (!st.isFile()) throw new RunspecError('RESULTS', `${file}: ${st.isDirectory() ? 'a directory' : 'not a regular file'}, not a results log`, { hint });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RunspecError('RESULTS', `${file}: cannot read the results log (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { hint });
  }
  const lines = text.split('\n');
  const truncatedTail = lines.length > 0 && lines[lines.length - 1] !== '';
  if (!truncatedTail) lines.pop();
  let header: ResultsLogHeader | undefined;
  const cases = new Map<string, CaseResult>();
  let tornDropped = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const isLast = i === lines.length - 1;
    if (line.trim() === '') continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      if (isLast && truncatedTail) {
        tornDropped = true;
        continue;
      }
      throw new RunspecError('RESULTS', `${file}:${i + 1}: expected a JSON record (got ${JSON.stringify(line.slice(0, 40))})`, {
        hint: 'the log is corrupt; rerun without --resume',
      });
    }
    const r = rec as Partial<ResultsLogRecord>;
    if (i === 0 || header === undefined) {
      if (r.type !== 'run' || typeof (r as ResultsLogHeader).runId !== 'string') {
        throw new RunspecError('RESULTS', `${file}:${i + 1}: expected a run header {"type":"run",...} (got type ${JSON.stringify(r.type)})`, {
          hint: 'pass the .jsonl log of a runspec-eval run',
        });
      }
      header = r as ResultsLogHeader;
      continue;
    }
    if (isCaseRecord(r)) {
      cases.set(r.caseId, loggedCaseResult(r));
      continue;
    }
    throw new RunspecError('RESULTS', `${file}:${i + 1}: expected a case record {"type":"case",...} (got type ${JSON.stringify(r.type)})`);
  }
  if (!header) {
    throw new RunspecError('RESULTS', `${file}: empty results log (no run header)`, { hint: 'rerun without --resume' });
  }
  return { header, cases, truncatedTail: tornDropped };
}

/** A case record of either version. */
export function isCaseRecord(r: unknown): r is ResultsLogCase {
  const c = r as { type?: unknown; caseId?: unknown; entry?: unknown; result?: unknown } | null;
  return (
    !!c && c.type === 'case' && typeof c.caseId === 'string' && (typeof c.entry === 'object' || typeof c.result === 'object') && (c.entry ?? c.result) !== null
  );
}

/**
 * Visit every intact line of a log with its byte span, reading the file in chunks (a log can be larger
 * than memory allows as one string). A torn last line is not visited.
 */
export function scanLogLines(file: string, visit: (line: string, span: LogSpan, lineNo: number) => void): void {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = 0;
    let position = 0;
    let lineNo = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) break;
      position += n;
      let data = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        lineNo++;
        visit(data.toString('utf8', start, nl), { offset: carryOffset + start, length: nl - start }, lineNo);
        start = nl + 1;
      }
      carryOffset += start;
      data = data.subarray(start);
      carry = Buffer.from(data);
    }
  } finally {
    closeSync(fd);
  }
}

/** Read the line at `span` of an open log. */
export function readLogLine(fd: number, span: LogSpan): string {
  return readLogBytes(fd, span).toString('utf8');
}

/** {@link readLogLine} as bytes (fewer at the end of a file cut short). */
export function readLogBytes(fd: number, span: LogSpan): Buffer {
  const buf = Buffer.allocUnsafe(span.length);
  let got = 0;
  while (got < span.length) {
    const n = readSync(fd, buf, got, span.length - got, span.offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}
