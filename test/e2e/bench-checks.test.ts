// The bench's work checks can fail: with a fake model that leaves one request uncounted (as if the run
// had skipped a case), the row is reported as failed and `node bench/run.mjs` exits 1; with the plain fake
// model the same row passes. One row (`capture`: a 50-case `run` of the bench workload through dist/) in
// quick mode, results not written (BENCH_ONLY); and the `score` and `serve` rows, whose ceilings must write
// our lines byte for byte. Timings are never asserted.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

function bench(env: Record<string, string>, timeoutMs = 60_000) {
  const results = join(mkdtempSync(join(tmpdir(), 'runspec-bench-test-')), 'results.json');
  const r = spawnSync(process.execPath, [join(root, 'bench', 'run.mjs')], {
    cwd: root,
    env: { ...process.env, BENCH_QUICK: '1', BENCH_ONLY: 'capture', BENCH_RESULTS: results, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, wroteResults: existsSync(results) };
}

describe('npm run bench checks the work was done', () => {
  it('passes a row whose requests and verdicts are all there', () => {
    const r = bench({});
    expect(r.out).toContain('checked: 50 requests, 50 verdicts, 30 passes');
    expect(r.code, r.out).toBe(0);
    expect(r.wroteResults).toBe(false);
  }, 60_000);

  it('fails the row, and exits 1, when the fake model misses one request', () => {
    const r = bench({ BENCH_FAKE_DROP: '1' });
    expect(r.out).toMatch(/FAILED: run: the fake model counted 49 requests for 50 cases/);
    expect(r.out).toContain('1 row(s) FAILED their work checks: capture');
    expect(r.code, r.out).toBe(1);
  }, 60_000);

  it('runs score and serve against their ceilings, whose lines are ours byte for byte', () => {
    const r = bench({ BENCH_ONLY: 'score,serve' }, 150_000);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^score -, 20 MB .*; ceiling \(least program writing the same lines\) \d+\.\d\d, CPU \d+\.\d\d$/m);
    expect(r.out).toMatch(/^serve ingest, .*; ceiling \(least program writing the same final lines\) \d+\.\d\d, CPU \d+\.\d\d$/m);
  }, 150_000);
});
