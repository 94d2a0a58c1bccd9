// Regression: traces written with the default settings (no content capture) carry no tool arguments, and
// scoring them back used to report wrong_args / wrong_host / wrong_command where the live run passed.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

describe('round trip on the embedded default (no content capture)', () => {
  it('scores the demo traces back to the demo verdicts, saying they are recorded verdicts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-rt-default-'));
    const demo = await runCli(['--path', dir, 'demo', '--output', 'json']);
    expect(demo.exitCode, demo.stderr).toBe(0);
    const resultsDir = join(dir, '.runspec', 'results');
    const doc = JSON.parse(readFileSync(join(resultsDir, readdirSync(resultsDir).find((f) => f.endsWith('.json'))!), 'utf8'));
    const live = new Map<string, string>();
    for (const [caseId, entry] of Object.entries(doc.iterations[0].cases as Record<string, { runs: Array<{ sample: number; verdict: { category: string } }> }>)) {
      for (const run of entry.runs) live.set(`${caseId}#${run.sample}`, run.verdict.category);
    }
    const scored = await runCli(['--path', dir, 'score', join(dir, '.runspec', 'traces'), '--output', 'jsonl']);
    const lines = scored.stdout.trim().split('\n').map((l) => JSON.parse(l) as { case: string; sample: number; category: string; reason: string; calls: unknown[] });
    const offline = new Map(lines.map((l) => [`${l.case}#${l.sample}`, l.category]));
    expect(offline).toEqual(live);
    const withCalls = lines.filter((l) => l.calls.length > 0);
    expect(withCalls.length).toBeGreaterThan(0);
    for (const l of withCalls) expect(l.reason).toContain('recorded without capture_content');
    // The demo holds deliberate failures, so the offline exit code says so too.
    expect(scored.exitCode).toBe(1);
  });
});
