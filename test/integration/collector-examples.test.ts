// The shipped examples/collector files pass their own tools: `otelcol validate` on gateway.yaml (the
// Collector built from builder-config.yaml, defaults only and with the test's variables), with no
// deprecated component name; `promtool check rules` and `promtool test rules` on alerts.yml.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLLECTOR_DIR, GATEWAY, ensureCollector, type CollectorBuild } from './setup/collector.js';

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
  it('gateway.yaml validates with its defaults, and names no deprecated component', async () => {
    const r = await validate({});
    expect(r.output).not.toMatch(/deprecat/i);
    expect(r.code, r.output).toBe(0);
  });

  it('gateway.yaml validates with every format and compression a user can set', async () => {
    for (const [format, compression] of [['json', ''], ['json', 'zstd'], ['proto', ''], ['proto', 'zstd']]) {
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
