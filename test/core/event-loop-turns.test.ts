import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createEventLoopTurns } from '../../src/core/event-loop-turns.js';
import { loadFixtureFile, loadFixtureFileYielding } from '../../src/fixtures/load.js';
import { loadCasesFromPaths, loadCasesFromPathsYielding } from '../../src/fixtures/discover.js';
import { caseDigests, caseDigestsYielding } from '../../src/report/resume-check.js';

// Loading many cases gives the event loop turns between them (a slice of 0 ms: a turn after every case),
// and loads what the synchronous load does.
describe('loading with event-loop turns', () => {
  const dir = mkdtempSync(join(tmpdir(), 'turns-'));
  const file = join(dir, 'many.toml');
  writeFileSync(file, Array.from({ length: 50 }, (_, i) => `[[eval]]\nid = "c${i}"\nprompt = """\n[[eval]] ${i}\n"""\nexpect_tool = "t"\n`).join('\n'));

  it('lets timers run between cases and loads the same cases', async () => {
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (turns < 1000) setImmediate(tick);
    };
    setImmediate(tick);
    const suites = await loadFixtureFileYielding(file, {}, createEventLoopTurns(0));
    expect(turns).toBeGreaterThanOrEqual(50);
    expect(suites).toEqual(loadFixtureFile(file));
    expect(suites[0]!.cases).toHaveLength(50);
  });

  it('loads paths and digests cases as the synchronous versions do', async () => {
    const suites = await loadCasesFromPathsYielding([dir]);
    expect(suites).toEqual(loadCasesFromPaths([dir]));
    const cases = suites[0]!.cases;
    expect(await caseDigestsYielding(cases)).toEqual(caseDigests(cases));
  });

  it('reports a bad file the same way', async () => {
    await expect(loadFixtureFileYielding(join(dir, 'missing.toml'))).rejects.toThrow(/fixture file not found/);
  });
});
