import { existsSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { runCli } from '../helpers/run-cli.js';

// The demo used to write its traces without saying where they went. Through the built CLI.
describe('demo says where its traces went', { timeout: 120_000 }, () => {
  it('names the OTLP JSON lines directory of the embedded default, and how to score it', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'runspec-demo-traces-')));
    const r = await runCli(['demo'], { cwd: dir, spawn: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const traces = join(dir, '.runspec', 'traces');
    expect(r.stderr).toContain(`traces: ${traces} (OTLP JSON lines, one trace per case; score them back with \`runspec-eval score .runspec/traces\`)`);
    expect(readdirSync(traces).some((f) => f.endsWith('.jsonl'))).toBe(true);
  });

  it('names the OTLP endpoint when one is set, and says none were written with --no-telemetry', async () => {
    const sink = await startOtlpSink();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'runspec-demo-otlp-'));
      const sent = await runCli(['demo'], { cwd: dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, spawn: true });
      expect(sent.exitCode, sent.stderr).toBe(0);
      expect(sent.stderr).toContain(`traces: sent to ${sink.url}/v1/traces (OTLP)`);
      const off = await runCli(['demo', '--no-telemetry'], { cwd: dir, spawn: true });
      expect(off.stderr).toContain('traces: none written (--no-telemetry)');
      expect(existsSync(join(dir, '.runspec', 'traces'))).toBe(false);
    } finally {
      await sink.close();
    }
  });

  it("batches spans as the user's OTEL_BSP_MAX_EXPORT_BATCH_SIZE says (ours used to override it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-demo-bsp-'));
    const posts = async (env: Record<string, string>): Promise<{ posts: number; spans: number }> => {
      const sink = await startOtlpSink();
      try {
        const r = await runCli(['demo'], { cwd: dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...env }, spawn: true });
        expect(r.exitCode, r.stderr).toBe(0);
        return { posts: sink.requests.filter((q) => q.path.startsWith('/v1/traces')).length, spans: sink.spans().length };
      } finally {
        await sink.close();
      }
    };
    const ours = await posts({});
    const users = await posts({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2' });
    expect(users.spans).toBe(ours.spans);
    expect(ours.posts).toBeLessThan(Math.ceil(ours.spans / 2));
    // At most two spans a POST (a scheduled export may send a lone span early).
    expect(users.posts).toBeGreaterThanOrEqual(Math.ceil(users.spans / 2));
  });
});
