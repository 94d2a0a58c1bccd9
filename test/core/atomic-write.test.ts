import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createAtomicFileWriter,
  openAtomicWrites,
  outputError,
  writeAllAsync,
  writeAllSync,
  writeFileAtomic,
  type AsyncWritable,
  type WriteSyncFn,
} from '../../src/core/atomic-write.js';
import { EXIT_CODES, RunspecError } from '../../src/errors.js';

// The kernel may write fewer bytes than asked; the writer used to ignore the count, fsync and rename a
// truncated file over the previous one (a nearly full disk left 8,192 of 54,011 bytes of a suites file).

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-write-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** At most `step` bytes per call, as a nearly full disk or a signal-interrupted write gives. */
const shortWrites =
  (step: number): WriteSyncFn =>
  (fd, buf, off, len) =>
    writeSync(fd, buf, off, Math.min(step, len));

/** Writes 40 numbered parts of ~60 KB (2.4 MB in all) and returns them. */
function writeParts(w: { write(text: string): void }): string[] {
  const parts: string[] = [];
  for (let i = 0; i < 40; i++) {
    const p = `${String(i).padStart(4, '0')}${'y'.repeat(60_000)}\n`;
    parts.push(p);
    w.write(p);
  }
  return parts;
}

/** Writes what fits in `room` bytes, then fails as a full disk does. */
function diskWith(room: number): WriteSyncFn {
  let left = room;
  return (fd, buf, off, len) => {
    if (left === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    const n = writeSync(fd, buf, off, Math.min(left, len));
    left -= n;
    return n;
  };
}

const text = `${'é'.repeat(30_000)}\n${'x'.repeat(24_000)}\n`;

describe('writeFileAtomic', () => {
  it('writes every byte when the kernel takes a few at a time', () => {
    const file = join(dir, 'suite.toml');
    writeFileAtomic(file, text, { writeSync: shortWrites(4096) });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['suite.toml']);
  });

  it('leaves the previous file, removes the temp file and names the file when the disk fills up', () => {
    const file = join(dir, 'runspec_evals.toml');
    writeFileSync(file, 'previous\n');
    let err: unknown;
    try {
      writeFileAtomic(file, text, { writeSync: diskWith(8192) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RunspecError);
    const e = err as RunspecError;
    expect(e.code).toBe('OUTPUT');
    expect(EXIT_CODES[e.code]).toBe(3);
    expect(e.message).toBe(`cannot write ${file}: no space left on device (ENOSPC); the previous file, if any, is unchanged`);
    expect(e.message).not.toContain('\n');
    expect(readFileSync(file, 'utf8')).toBe('previous\n');
    expect(readdirSync(dir)).toEqual(['runspec_evals.toml']);
  });

  it('treats a write that makes no progress as a full disk instead of looping', () => {
    const file = join(dir, 'a.json');
    expect(() => writeFileAtomic(file, 'abc', { writeSync: () => 0 })).toThrow(/^cannot write .*a\.json: no space left on device \(ENOSPC\)/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('names the file when its directory cannot be created', () => {
    writeFileSync(join(dir, 'plain'), '');
    expect(() => writeFileAtomic(join(dir, 'plain', 'x.json'), 'abc')).toThrow(
      /^cannot write .*plain\/x\.json: a parent is a file, not a directory \(EEXIST\)/,
    );
  });
});

describe('createAtomicFileWriter', () => {
  it('streams large documents through short writes whole', () => {
    const file = join(dir, 'results.json');
    const w = createAtomicFileWriter(file, { writeSync: shortWrites(100_000) });
    const parts = writeParts(w);
    w.commit();
    expect(readFileSync(file, 'utf8')).toBe(parts.join(''));
  });

  it('writes text and bytes in the order given, multi-byte text and pieces larger than its buffer included', () => {
    const file = join(dir, 'results.json');
    const w = createAtomicFileWriter(file, { writeSync: shortWrites(70_000) });
    const expected: Buffer[] = [];
    const reused = Buffer.alloc(300_000);
    for (let i = 0; i < 30; i++) {
      const text = `${i}:${'é€😀'.repeat(i * 3_000)}\n`;
      w.write(text);
      expected.push(Buffer.from(text, 'utf8'));
      // The caller's buffer is reused at once: the writer must have copied what it was given.
      const n = ((i * 97_013) % reused.length) + 1;
      reused.fill(97 + (i % 26), 0, n);
      w.write(reused.subarray(0, n));
      expected.push(Buffer.from(reused.subarray(0, n)));
      reused.fill(0);
    }
    const big = 'ü'.repeat(700_000);
    w.write(big);
    expected.push(Buffer.from(big, 'utf8'));
    w.commit();
    expect(readFileSync(file).equals(Buffer.concat(expected))).toBe(true);
  });

  it('fails in write() with the file named when a buffered flush hits a full disk, and the target stays', () => {
    const file = join(dir, 'results.json');
    writeFileSync(file, '{"previous":true}\n');
    const w = createAtomicFileWriter(file, { writeSync: diskWith(53_248) });
    expect(() => {
      for (let i = 0; i < 40; i++) w.write('z'.repeat(60_000));
      w.commit();
    }).toThrow(`cannot write ${file}: no space left on device (ENOSPC)`);
    w.abort();
    expect(readFileSync(file, 'utf8')).toBe('{"previous":true}\n');
    expect(readdirSync(dir)).toEqual(['results.json']);
  });
});

describe('createAtomicFileWriter commitAsync', () => {
  it('renames the whole file into place once its fsync is done, and takes no write after it is called', async () => {
    const file = join(dir, 'results.json');
    writeFileSync(file, '{"previous":true}\n');
    const w = createAtomicFileWriter(file, { writeSync: shortWrites(100_000) });
    const parts = writeParts(w);
    const committing = w.commitAsync();
    expect(() => w.write('late')).toThrow('written after commit or abort');
    // Until the commit ends, the previous file is what a reader sees.
    expect(readFileSync(file, 'utf8')).toBe('{"previous":true}\n');
    await committing;
    expect(readFileSync(file, 'utf8')).toBe(parts.join(''));
    expect(readdirSync(dir)).toEqual(['results.json']);
    // Committed: a later abort leaves the file.
    w.abort();
    expect(readFileSync(file, 'utf8')).toBe(parts.join(''));
  });

  it('fails with the file named when the rename cannot happen, leaving no temp file', async () => {
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true });
    const w = createAtomicFileWriter(target);
    w.write('{"x":1}\n');
    await expect(w.commitAsync()).rejects.toThrow(`cannot write ${target}`);
    w.abort();
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readdirSync(target)).toEqual(['inside']);
  });
});

describe('createAtomicFileWriter while commitAsync is pending', () => {
  // commitAsync used to mark the writer done before its fsync finished: a second commitAsync resolved
  // before the file was in place, commit() returned silently, and abort() did nothing, so the file
  // replaced the target after all.
  const body = `${'p'.repeat(200_000)}\n`;

  it('returns the pending promise to a second commitAsync, so awaiting it means the file is in place', async () => {
    const file = join(dir, 'results.json');
    writeFileSync(file, 'previous\n');
    const w = createAtomicFileWriter(file);
    w.write(body);
    const first = w.commitAsync();
    const second = w.commitAsync();
    await second;
    expect(readFileSync(file, 'utf8')).toBe(body);
    expect(readdirSync(dir)).toEqual(['results.json']);
    expect(second).toBe(first);
  });

  it('refuses commit() with an INTERNAL error, and the pending commit still completes', async () => {
    const file = join(dir, 'results.json');
    const w = createAtomicFileWriter(file);
    w.write(body);
    const committing = w.commitAsync();
    let err: unknown;
    try {
      w.commit();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RunspecError);
    expect((err as RunspecError).code).toBe('INTERNAL');
    expect((err as RunspecError).message).toBe(`${file}: commit() while commitAsync() is pending`);
    await committing;
    expect(readFileSync(file, 'utf8')).toBe(body);
  });

  it('lets abort() win: the target is untouched, the temp file gone, and the commit rejects as CANCELLED', async () => {
    const file = join(dir, 'results.json');
    writeFileSync(file, 'previous\n');
    const w = createAtomicFileWriter(file);
    w.write(body);
    const committing = w.commitAsync();
    w.abort();
    await expect(committing).rejects.toMatchObject({
      code: 'CANCELLED',
      message: `${file}: aborted before its rename; the previous file, if any, is unchanged`,
    });
    expect(readFileSync(file, 'utf8')).toBe('previous\n');
    expect(readdirSync(dir)).toEqual(['results.json']);
    expect(openAtomicWrites()).toEqual([]);
  });
});

describe('outputError', () => {
  it('ends with what its writer says is left when the file is not written whole or not at all (an appended log)', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(outputError('out/r.json', enospc).message).toBe(
      'cannot write out/r.json: no space left on device (ENOSPC); the previous file, if any, is unchanged',
    );
    const e = outputError('out/r.jsonl', enospc, { outcome: 'the log may be incomplete' });
    expect(e.message).toBe('cannot write out/r.jsonl: no space left on device (ENOSPC); the log may be incomplete');
    expect(EXIT_CODES[e.code]).toBe(3);
  });
});

describe('writeAllSync', () => {
  it('loops over short writes', () => {
    const file = join(dir, 'log');
    writeFileSync(file, '');
    const fd = openSync(file, 'a');
    writeAllSync(fd, Buffer.from('0123456789'), shortWrites(3));
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('0123456789');
  });
});

describe('writeAllAsync', () => {
  it("loops over short writes at the handle's position", async () => {
    const file = join(dir, 'log');
    writeFileSync(file, 'head\n');
    const fh = await open(file, 'a');
    const short: AsyncWritable = { write: (buf, off, len) => fh.write(buf, off, Math.min(3, len)) };
    try {
      await writeAllAsync(short, Buffer.from('0123456789'));
    } finally {
      await fh.close();
    }
    expect(readFileSync(file, 'utf8')).toBe('head\n0123456789');
  });

  it('fails a write that makes no progress as a full disk, worded as writeAllSync words it', async () => {
    const stuck: AsyncWritable = { write: () => Promise.resolve({ bytesWritten: 0 }) };
    let syncErr: unknown;
    try {
      writeAllSync(0, Buffer.from('abc'), () => 0);
    } catch (e) {
      syncErr = e;
    }
    await expect(writeAllAsync(stuck, Buffer.from('abc'))).rejects.toMatchObject({ code: 'ENOSPC', message: (syncErr as Error).message });
  });
});
