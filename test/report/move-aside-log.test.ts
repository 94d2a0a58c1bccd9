// A new run that finds another run's log at its path moves it aside under that run's id, reading only the
// head of the file (a 100,000-case log is ~190 MB; its header line alone holds every case id and digest).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { moveAsideOldLog } from '../../src/report/resume-check.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'runspec-move-aside-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('moveAsideOldLog', () => {
  it('names the moved log after its run, with a header line longer than the head it reads', () => {
    const dir = tmp();
    const log = join(dir, 'r.jsonl');
    const caseIds = Array.from({ length: 20_000 }, (_, i) => `case-${i}`);
    const header = JSON.stringify({
      type: 'run',
      version: 2,
      runId: '20261130T170000Z-abc123',
      startedAt: 't',
      finalFile: join(dir, 'r.json'),
      caseIds,
      options: {},
    });
    expect(header.length).toBeGreaterThan(64 * 1024);
    writeFileSync(log, `${header}\n{"type":"case","caseId":"case-0","entry":{}}\n`);
    const moved = moveAsideOldLog(log);
    expect(moved).toBe(join(dir, 'r.20261130T170000Z-abc123.jsonl'));
    expect(existsSync(log)).toBe(false);
    expect(readFileSync(moved!, 'utf8').startsWith(header)).toBe(true);
  });

  it('moves a file that is not one of our logs aside as "previous", and a second one beside it', () => {
    const dir = tmp();
    const log = join(dir, 'r.jsonl');
    writeFileSync(log, 'not json\n');
    expect(moveAsideOldLog(log)).toBe(join(dir, 'r.previous.jsonl'));
    writeFileSync(log, '{"runId":"../escape"}\n');
    expect(moveAsideOldLog(log)).toBe(join(dir, 'r.previous-2.jsonl'));
    expect(moveAsideOldLog(log)).toBeUndefined();
  });
});
