import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { handleInterrupts } from '../../src/cli/commands/_interrupt.js';
import type { CliContext } from '../../src/cli/context.js';
import { createAtomicFileWriter } from '../../src/core/atomic-write.js';

// The first interrupt says what it waits for: in-flight samples, or (once they are done) the results
// document being written between event-loop turns.

const dir = mkdtempSync(join(tmpdir(), 'interrupt-message-'));
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Install the handlers on a context that keeps stderr lines; returns the lines and the SIGINT listener. */
function install(): { lines: string[]; signal: () => void; ac: AbortController } {
  const lines: string[] = [];
  const ctx = { err: (l: string) => lines.push(l) } as unknown as CliContext;
  const ac = new AbortController();
  const before = process.listeners('SIGINT');
  cleanups.push(handleInterrupts(ctx, ac));
  const added = process.listeners('SIGINT').filter((l) => !before.includes(l));
  expect(added).toHaveLength(1);
  return { lines, ac, signal: () => (added[0] as (s: NodeJS.Signals) => void)('SIGINT') };
}

describe('the first interrupt', () => {
  it('finishes in-flight samples when no document is being written', () => {
    const { lines, signal, ac } = install();
    signal();
    expect(ac.signal.aborted).toBe(true);
    expect(lines).toEqual(['interrupted (SIGINT): finishing in-flight samples as cancelled (interrupt again to stop at once)']);
  });

  it('names the results document while it is being written', () => {
    const file = join(dir, 'out', 'results.json');
    const w = createAtomicFileWriter(file);
    cleanups.push(() => w.abort());
    w.write('{');
    const { lines, signal, ac } = install();
    signal();
    expect(ac.signal.aborted).toBe(true);
    expect(lines).toEqual([`interrupted (SIGINT): finishing writing ${file} (interrupt again to stop at once without it)`]);
  });

  it('forgets a write once it is committed', () => {
    const w = createAtomicFileWriter(join(dir, 'done.json'));
    w.write('{}');
    w.commit();
    const { lines, signal } = install();
    signal();
    expect(lines[0]).toContain('finishing in-flight samples');
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
