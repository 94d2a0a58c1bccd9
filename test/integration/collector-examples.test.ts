// The shipped examples/collector files pass their own tools: `otelcol validate` on gateway.yaml (the
// Collector built from builder-config.yaml, defaults only and with the test's variables), with no
// deprecated component name; `promtool check rules` and `promtool test rules` on alerts.yml.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLLECTOR_DIR, GATEWAY, ensureCollector, freePort, startCollector, type CollectorBuild } from './setup/collector.js';

const run = promisify(execFile);
let build: CollectorBuild;

beforeAll(async () => {
  build = await ensureCollector();
});

async function validate(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const r = await run(build.binary, ['validate', '--config', `file:${GATEWAY}`], { env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, output: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

describe('examples/collector as shipped', () => {
  it('gateway.yaml validates with its defaults', async () => {
    const r = await validate({});
    expect(r.code, r.output).toBe(0);
  });

  it('gateway.yaml starts without a deprecated-alias warning (the old names log one)', async () => {
    // `otelcol validate` passes the old names silently: the warning comes when the components are built.
    const dir = mkdtempSync(join(tmpdir(), 'runspec-it-alias-'));
    const old = join(dir, 'old-names.yaml');
    writeFileSync(old, readFileSync(GATEWAY, 'utf8').replaceAll('span_metrics/', 'spanmetrics/').replaceAll('otlp_http/', 'otlphttp/'));
    try {
      const warnings: string[][] = [];
      for (const config of [GATEWAY, old]) {
        const ports = await Promise.all(Array.from({ length: 7 }, () => freePort()));
        const c = await startCollector(build.binary, config, {
          HOME: dir,
          GATEWAY_OTLP_GRPC_ENDPOINT: `127.0.0.1:${ports[0]}`,
          GATEWAY_OTLP_HTTP_ENDPOINT: `127.0.0.1:${ports[1]}`,
          GATEWAY_VERDICTS_ENDPOINT: `127.0.0.1:${ports[2]}`,
          GATEWAY_PROMETHEUS_ENDPOINT: `127.0.0.1:${ports[3]}`,
          GATEWAY_ARCHIVE_DIR: join(dir, 'archive'),
          GATEWAY_SCORER_1: `127.0.0.1:${ports[4]}`,
          GATEWAY_SCORER_2: `127.0.0.1:${ports[5]}`,
          GATEWAY_SCORER_3: `127.0.0.1:${ports[6]}`,
          GATEWAY_BACKEND_ENDPOINT: `http://127.0.0.1:${ports[1]}`,
        });
        await c.stop();
        warnings.push(c.deprecations());
      }
      expect(warnings[0]).toEqual([]);
      expect(warnings[1]!.join('\n')).toMatch(/"spanmetrics" alias is deprecated/);
      expect(warnings[1]!.join('\n')).toMatch(/"otlphttp" alias is deprecated/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gateway.yaml validates with every format and compression a user can set', async () => {
    for (const [format, compression] of [
      ['json', ''],
      ['json', 'zstd'],
      ['proto', ''],
      ['proto', 'zstd'],
    ]) {
      const r = await validate({ GATEWAY_ARCHIVE_FORMAT: format!, GATEWAY_ARCHIVE_COMPRESSION: compression!, GATEWAY_ARCHIVE_DIR: '/tmp/unused' });
      expect(r.code, `${format}/${compression}: ${r.output}`).toBe(0);
    }
  });

  it('gateway.yaml fails validation on a bad value (validate is not a no-op)', async () => {
    const r = await validate({ GATEWAY_ARCHIVE_FORMAT: 'xml' });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/format/i);
  });

  it('alerts.yml passes promtool check rules and its unit tests', async () => {
    const check = await run('promtool', ['check', 'rules', join(COLLECTOR_DIR, 'alerts.yml')]);
    expect(check.stdout + check.stderr).toContain('SUCCESS');
    const test = await run('promtool', ['test', 'rules', join(COLLECTOR_DIR, 'alerts.test.yml')]);
    expect(test.stdout + test.stderr).toContain('SUCCESS');
  });
});
