import { closeSync, fsync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RunspecError } from '../errors.js';

// The one writer of whole output files (results, recordings, imports, suites, config, reports). The
// kernel may write fewer bytes than asked (a nearly full disk writes what fits and returns the count),
// so every write loops until all bytes are down; any failure, from mkdir to rename, leaves the previous
// file untouched and becomes one line naming the file and the cause (exit 3: the disk, not the input).

/** The write(2) this module uses; tests inject short writes and failures. */
export type WriteSyncFn = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

/** Options of {@link createAtomicFileWriter} and {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** @default fs.writeSync */
  writeSync?: WriteSyncFn;
}

const systemWrite: WriteSyncFn = (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length);

/**
 * Write all of `buffer` to `fd`, looping over short writes. A write that makes no progress is a full
 * disk (a regular file never legitimately returns 0 for a non-empty write).
 * @example writeAllSync(fd, Buffer.from('line\n'))
 */
export function writeAllSync(fd: number, buffer: Uint8Array, write: WriteSyncFn = systemWrite): void {
  let off = 0;
  while (off < buffer.length) {
    const n = write(fd, buffer, off, buffer.length - off);
    if (n <= 0) throw noProgress();
    off += n;
  }
}

/** What {@link writeAllAsync} needs of a file: a `fs/promises` FileHandle, or a test's stand-in. */
export interface AsyncWritable {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
}

/**
 * {@link writeAllSync} for a `fs/promises` FileHandle, at the handle's position: a short write goes on
 * from where it stopped, a write that makes no progress is a full disk.
 * @example await writeAllAsync(fh, Buffer.from('line\n'))
 */
export async function writeAllAsync(fh: AsyncWritable, buffer: Uint8Array): Promise<void> {
  let off = 0;
  while (off < buffer.length) {
    const { bytesWritten } = await fh.write(buffer, off, buffer.length - off);
    if (bytesWritten <= 0) throw noProgress();
    off += bytesWritten;
  }
}

/** The error of a write that made no progress (one wording for both loops). */
function noProgress(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device (a write made no progress)'), { code: 'ENOSPC' });
}

/** Options of {@link outputError}. */
export interface OutputErrorOptions {
  /**
   * What the reader may rely on after the failure, ending the message. A file written in place (an
   * appended log) is not left as it was, so its writer says what is there instead.
   * @default 'the previous file, if any, is unchanged' (what this module's whole-file writes guarantee)
   */
  outcome?: string;
  /** The next step, in place of the one for the error's code (a writer whose own recovery is the way on). */
  hint?: string;
}

/**
 * The one-line error for a file that could not be written: the file, the cause, what is left, exit 3.
 * @example throw outputError('out/results.json', err) // "cannot write out/results.json: no space left on device (ENOSPC); the previous file, if any, is unchanged"
 */
export function outputError(file: string, cause: unknown, opts: OutputErrorOptions = {}): RunspecError {
  if (cause instanceof RunspecError) return cause;
  const e = cause as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const reason =
    REASONS[code ?? ''] ??
    (e?.message ?? String(cause))
      .split('\n')[0]!
      .replace(/^E[A-Z]+: /, '')
      .replace(/, \w+( '.*')?$/, '');
  const outcome = opts.outcome ?? 'the previous file, if any, is unchanged';
  return new RunspecError('OUTPUT', `cannot write ${file}: ${reason}${code ? ` (${code})` : ''}; ${outcome}`, {
    hint: opts.hint ?? HINTS[code ?? ''] ?? 'check the path and the disk, then run again',
    cause,
  });
}

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  EEXIST: 'a parent is a file, not a directory',
  ENOTDIR: 'a parent is not a directory',
  EIO: 'input/output error',
};
const HINTS: Record<string, string> = {
  ENOSPC: 'free some space on that disk or write the output elsewhere',
  EDQUOT: 'free some space on that disk or write the output elsewhere',
  EROFS: 'write the output to a writable location',
  EACCES: 'write the output to a location you may write',
  EISDIR: 'name a file, not a directory',
};

/**
 * Write `text` to `file` atomically: a temp file in the same directory (so the rename stays on one file
 * system), every byte written, fsync'd, then renamed over the target. A reader sees the old file or the
 * new one, never half; an exit mid-write removes the temp file, a crash leaves at most a
 * `.name.*.tmp` file. Parent directories are created.
 * Throws a RunspecError `OUTPUT` (exit 3) naming the file; the previous file is then intact.
 */
export function writeFileAtomic(file: string, text: string, opts: AtomicWriteOptions = {}): void {
  const w = createAtomicFileWriter(file, opts);
  try {
    w.write(text);
    w.commit();
  } catch (err) {
    w.abort();
    throw outputError(file, err);
  }
}

function rmQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // best effort: a leftover temp file is harmless
  }
}

/** A file written piece by piece and renamed into place at the end (see {@link writeFileAtomic}). */
export interface AtomicFileWriter {
  /** Append text, or bytes (copied: the caller may reuse its buffer once this returns). */
  write(chunk: string | Uint8Array): void;
  /**
   * fsync, close and rename over the target. Throws a RunspecError `INTERNAL` while a
   * {@link commitAsync} is pending (await that instead); after a commit or abort it does nothing.
   */
  commit(): void;
  /**
   * {@link commit} with the fsync on the thread pool, so the event loop goes on meanwhile (a results
   * document of hundreds of MB takes a while to reach the disk). Still whole or absent: no write is
   * taken once it is called, and an exit before the rename removes the temp file. Resolves once the
   * file is in place; a second call returns the same promise. An {@link abort} while it is pending
   * wins: the rename is skipped and the promise rejects with a RunspecError `CANCELLED`.
   */
  commitAsync(): Promise<void>;
  /**
   * Close and remove the temp file; the target is untouched. While a {@link commitAsync} is pending
   * the temp file is removed at once, the rename never happens and that commit's promise rejects
   * (`CANCELLED`); once a commit has finished, abort does nothing.
   */
  abort(): void;
}

let tmpCounter = 0;

/** What an {@link AtomicFileWriter} holds before it writes to its temp file. */
const WRITER_BUFFER_BYTES = 1 << 20;

// Temp files not yet committed or aborted. An exit (a second interrupt while the results document
// is written between event-loop turns) skips every finally and abort; its 'exit' listeners still run, so
// one listener removes what is left (a results temp file can be hundreds of MB). A SIGKILL or a crash
// still leaves `.name.*.tmp` behind.
const openTemps = new Map<string, string>();
let exitHookInstalled = false;

/**
 * The targets of atomic writes open now. Writes that span event-loop turns (the results document) are
 * the only ones a signal handler can see open.
 * @example openAtomicWrites() // ['out/results.json']
 */
export function openAtomicWrites(): string[] {
  return [...new Set(openTemps.values())];
}

function trackTemp(tmp: string, file: string): void {
  openTemps.set(tmp, file);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const t of openTemps.keys()) rmQuiet(t);
    openTemps.clear();
  });
}

/**
 * Open an {@link AtomicFileWriter}: writes are buffered up to 1 MiB, then go to a temp file. Every
 * failure (here, in `write` or in `commit`) is a RunspecError `OUTPUT` naming `file`; after a failure
 * the temp file is gone and the target untouched.
 */
export function createAtomicFileWriter(file: string, opts: AtomicWriteOptions = {}): AtomicFileWriter {
  const write = opts.writeSync ?? systemWrite;
  // pid + time + a counter: two writers of one file in the same millisecond never share a temp file.
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.${++tmpCounter}.tmp`);
  let fd: number;
  try {
    mkdirSync(dirname(file), { recursive: true });
    fd = openSync(tmp, 'w');
  } catch (err) {
    throw outputError(file, err);
  }
  trackTemp(tmp, file);
  // One buffer, filled and written whenever full: pieces are copied in, never joined or encoded apart.
  const buf = Buffer.allocUnsafe(WRITER_BUFFER_BYTES);
  let used = 0;
  let done = false;
  let open = true;
  // The commitAsync in flight (or settled): later calls return it, commit() refuses while it is pending.
  let committing: Promise<void> | undefined;
  let pending = false;
  // abort() during a pending commitAsync: the temp file is gone and the rename must not happen.
  let abortedWhilePending = false;
  const fail = (err: unknown): never => {
    done = true;
    if (open) {
      open = false;
      try {
        closeSync(fd);
      } catch {
        // already failing: the first cause is the one reported
      }
    }
    rmQuiet(tmp);
    openTemps.delete(tmp);
    throw outputError(file, err);
  };
  const cancelled = (cause?: unknown): RunspecError =>
    cause instanceof RunspecError && cause.code === 'CANCELLED'
      ? cause
      : new RunspecError('CANCELLED', `${file}: aborted before its rename; the previous file, if any, is unchanged`, { cause });
  const drain = (): void => {
    if (used === 0) return;
    const n = used;
    used = 0;
    writeAllSync(fd, buf.subarray(0, n), write);
  };
  const put = (chunk: string | Uint8Array): void => {
    // A string as UTF-8 takes at most 3 bytes per UTF-16 unit; one that may not fit goes through byteLength.
    const bytes = typeof chunk === 'string' ? (chunk.length * 3 <= buf.length - used ? -1 : Buffer.byteLength(chunk, 'utf8')) : chunk.length;
    if (bytes > buf.length - used) drain();
    if (bytes > buf.length) {
      writeAllSync(fd, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk, write);
      return;
    }
    if (typeof chunk === 'string') used += buf.write(chunk, used, 'utf8');
    else {
      buf.set(chunk, used);
      used += chunk.length;
    }
  };
  return {
    write(chunk) {
      if (done) throw new RunspecError('INTERNAL', `${file}: written after commit or abort`);
      try {
        put(chunk);
      } catch (err) {
        fail(err);
      }
    },
    commit() {
      if (pending) throw new RunspecError('INTERNAL', `${file}: commit() while commitAsync() is pending`);
      if (done) return;
      try {
        drain();
        fsyncSync(fd);
        open = false;
        closeSync(fd);
        renameSync(tmp, file);
        openTemps.delete(tmp);
        done = true;
      } catch (err) {
        fail(err);
      }
    },
    commitAsync() {
      if (committing) return committing;
      if (done) return Promise.resolve();
      done = true;
      pending = true;
      committing = (async () => {
        try {
          drain();
          await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
          open = false;
          closeSync(fd);
          if (abortedWhilePending) throw cancelled();
          renameSync(tmp, file);
          openTemps.delete(tmp);
        } catch (err) {
          // Aborted: whatever failed after abort(), the caller asked for no file, and has none.
          fail(abortedWhilePending ? cancelled(err) : err);
        } finally {
          pending = false;
        }
      })();
      return committing;
    },
    abort() {
      if (pending) {
        // The fsync may still run on the thread pool with fd: the commit closes fd once it returns,
        // sees the flag and skips the rename. The temp file goes now, so nothing can replace the target.
        abortedWhilePending = true;
        rmQuiet(tmp);
        openTemps.delete(tmp);
        return;
      }
      if (done) return;
      done = true;
      if (open) closeSync(fd);
      open = false;
      rmQuiet(tmp);
      openTemps.delete(tmp);
    },
  };
}
