import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Write `text` to `file` atomically: a temp file in the same directory (so the rename stays on one file
 * system), fsync'd, then renamed over the target. A reader sees the old file or the new one, never half;
 * a crash leaves at most a `.name.*.tmp` file. Parent directories are created.
 */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmQuiet(tmp);
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
}

function rmQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // best effort: a leftover temp file is harmless
  }
}
