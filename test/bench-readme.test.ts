// The README's performance table is the rendering of bench/results.json (node bench/render-readme.mjs),
// so it quotes the committed bench run and nothing else.
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

describe('README performance table', () => {
  it('is bench/results.json rendered', () => {
    const r = spawnSync(process.execPath, [join(root, 'bench', 'render-readme.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it("shows a row's ceiling, and renders rows measured before there were ceilings without one", () => {
    const row = { status: 'ok', data: '50 MB', reps: 3, oursMs: 1846, floorMs: 564, ratio: 0.31, targets: [] };
    const dir = mkdtempSync(join(tmpdir(), 'runspec-bench-render-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const results = join(dir, 'results.json');
    writeFileSync(
      results,
      JSON.stringify({
        node: 'v20.0.0',
        date: '2026-12-02T00:00:00.000Z',
        mode: 'default',
        cores: 2,
        seconds: 1,
        failed: 0,
        rows: [
          { ...row, id: 'score-50MB', what: 'with a ceiling', ceilingMs: 880, ceilingRatio: 0.641, ceilingCpuRatio: 0.7 },
          { ...row, id: 'score-500MB', what: 'from an older run' },
        ],
      }),
    );
    const r = spawnSync(process.execPath, [join(root, 'bench', 'render-readme.mjs'), '--print'], {
      cwd: root,
      env: { ...process.env, BENCH_RESULTS: results },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('| with a ceiling |'))).toContain('| 0.31 | ceiling 0.64 |');
    expect(lines.find((l) => l.startsWith('| from an older run |'))).toContain('| 0.31 |  |');
  });
});
