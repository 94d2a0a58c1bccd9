import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, runCli, isolatedEnv } from '../helpers/run-cli.js';

const RECORDING = join(REPO_ROOT, 'fixtures/recordings/demo.json');

describe('progress bar', () => {
  it('draws on stderr when it is a terminal (util-linux script gives the CLI a pty)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-progress-'));
    const cmd = `${process.execPath} ${CLI} --path ${dir} replay fleet --script ${RECORDING} --no-telemetry --output json > ${join(dir, 'out.json')}`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), HOME: dir, TERM: 'xterm' },
      timeout: 60_000,
    });
    // The fleet recording holds one deliberate wrong answer: exit 1, passed through by `script -e`.
    expect(r.status).toBe(1);
    const screen = r.stdout;
    expect(screen).toMatch(/replay \[.*\] 0\/12 samples/);
    expect(screen).toMatch(/12\/12 samples/);
  });

  it('stays silent when stderr is not a terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-progress-'));
    const r = await runCli(['--path', dir, 'replay', 'fleet', '--script', RECORDING, '--no-telemetry', '--output', 'json']);
    expect(r.stderr).not.toContain('samples');
    expect(r.stderr).toMatch(/^results: .*\.json\n$/);
  });
});
