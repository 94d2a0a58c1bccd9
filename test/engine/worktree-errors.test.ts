import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorktree } from '../../src/engine/worktree.js';
import { isRunspecError } from '../../src/errors.js';

// A worktree that cannot be made is an output error (exit 3) naming the path, and says what is left: no
// worktree. It used to end "the previous file, if any, is unchanged", the wording of a whole-file write.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wt-errors-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function failure(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(err).toBeInstanceOf(Error);
  return err!;
}

describe('createWorktree failures', () => {
  it('a temp folder that cannot be made names it and says the sample has no worktree', async () => {
    const prefix = join(dir, 'missing', 'wt-');
    const err = await failure(createWorktree({ 'a.txt': 'a' }, { prefix: prefix.slice(tmpdir().length + 1) }));
    expect(isRunspecError(err) && err.code).toBe('OUTPUT');
    expect(err.message).toBe(`cannot write ${prefix}XXXXXX: no such file or directory (ENOENT); the sample has no worktree`);
  });

  it('a file that cannot be written names it, removes what was written and says the sample has no worktree', async () => {
    // A file where the case wants a folder: the case's second file cannot be written.
    const err = await failure(createWorktree({ 'a.txt': 'a', 'a.txt/b.txt': 'b' }, { prefix: `${dir.slice(tmpdir().length + 1)}/wt-` }));
    expect(isRunspecError(err) && err.code).toBe('OUTPUT');
    expect(err.message).toMatch(/^cannot write .*\/a\.txt\/b\.txt: .*; the sample has no worktree$/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
