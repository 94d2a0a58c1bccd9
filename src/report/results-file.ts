// Results on disk: a JSON-lines log appended (and fsync'd) as each case finishes, so a crashed run can be
// resumed, and the final document written atomically (temp file + rename), so a reader never sees half.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { RunspecError } from '../errors.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import type { CaseResult } from '../types/verdict.js';

/** First line of a results log: who ran what, so `--resume` can finish the same run. */
export interface ResultsLogHeader {
  type: 'run';
  /** Log format version. */
  version: 1;
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

/** One finished case. */
export interface ResultsLogCase {
  type: 'case';
  caseId: string;
  result: CaseResult;
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

/** An append-only, fsync'd JSON-lines writer. */
export interface ResultsLogWriter {
  readonly file: string;
  append(record: ResultsLogRecord): void;
  close(): void;
}

/**
 * Open (or create) a results log. A new file starts with `header`; an existing one (resume) is appended
 * to as it is, after cutting a torn last line so the next record starts on a line of its own.
 */
export function openResultsLog(file: string, header: ResultsLogHeader): ResultsLogWriter {
  mkdirSync(dirname(file), { recursive: true });
  const exists = existsSync(file);
  if (exists) {
    const text = readFileSync(file, 'utf8');
    if (text.length > 0 && !text.endsWith('\n')) {
      // kill -9 mid-write leaves a partial line: keep everything up to the last newline.
      const keep = text.slice(0, text.lastIndexOf('\n') + 1);
      writeFileAtomic(file, keep);
    }
  }
  const fd = openSync(file, 'a');
  let open = true;
  const writeLine = (record: ResultsLogRecord): void => {
    writeSync(fd, JSON.stringify(record) + '\n');
    // A finished case must survive a crash right after it: that is what --resume relies on.
    fsyncSync(fd);
  };
  if (!exists || readFileSync(file, 'utf8').length === 0) writeLine(header);
  return {
    file,
    append(record) {
      if (!open) throw new RunspecError('INTERNAL', `${file}: results log already closed`);
      writeLine(record);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** Read a results log for `--resume`. A torn last line is dropped; any other bad line is an error. */
export function readResultsLog(file: string): ResultsLog {
  if (!existsSync(file)) {
    throw new RunspecError('RESULTS', `${file}: results log not found`, {
      hint: 'pass the .jsonl file a previous run wrote next to its results (see --out)',
    });
  }
  const text = readFileSync(file, 'utf8');
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
    if (r.type === 'case' && typeof (r as ResultsLogCase).caseId === 'string' && (r as ResultsLogCase).result) {
      cases.set((r as ResultsLogCase).caseId, (r as ResultsLogCase).result);
      continue;
    }
    throw new RunspecError('RESULTS', `${file}:${i + 1}: expected a case record {"type":"case",...} (got type ${JSON.stringify(r.type)})`);
  }
  if (!header) {
    throw new RunspecError('RESULTS', `${file}: empty results log (no run header)`, { hint: 'rerun without --resume' });
  }
  return { header, cases, truncatedTail: tornDropped };
}

