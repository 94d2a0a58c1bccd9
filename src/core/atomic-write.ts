import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Write `text` to `file` atomically: a temp file in the same directory (so the rename stays on one file
 * system), fsync'd, then renamed over the target. A reader sees the old file or the new one, never half;
 * a crash leaves at most a `.name.*.tmp` file. Parent directories are created.
 */
export function writeFileAtomic(file: string, text: string): void {
  const w = createAtomicFileWriter(file);
  try {
    w.write(text);
    w.commit();
  } catch (err) {
    w.abort();
    throw err;
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
  write(text: string): void;
  /** fsync, close and rename over the target. */
  commit(): void;
  /** Close and remove the temp file; the target is untouched. */
  abort(): void;
}

let tmpCounter = 0;

/** Open an {@link AtomicFileWriter}: writes are buffered up to 1 MiB, then go to a temp file. */
export function createAtomicFileWriter(file: string): AtomicFileWriter {
  mkdirSync(dirname(file), { recursive: true });
  // pid + time + a counter: two writers of one file in the same millisecond never share a temp file.
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.${++tmpCounter}.tmp`);
  const fd = openSync(tmp, 'w');
  let pending: string[] = [];
  let pendingLength = 0;
  let done = false;
  const drain = (): void => {
    if (pending.length === 0) return;
    writeSync(fd, pending.join(''));
    pending = [];
    pendingLength = 0;
  };
  return {
    write(text) {
      pending.push(text);
      pendingLength += text.length;
      if (pendingLength >= 1 << 20) drain();
    },
    commit() {
      if (done) return;
      done = true;
      let open = true;
      try {
        drain();
        fsyncSync(fd);
        open = false;
        closeSync(fd);
        renameSync(tmp, file);
      } catch (err) {
        if (open) closeSync(fd);
        rmQuiet(tmp);
        throw err;
      }
    },
    abort() {
      if (done) return;
      done = true;
      closeSync(fd);
      rmQuiet(tmp);
    },
  };
}
