import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { casesOf, cliEnv, readJson, tempProject } from './_helpers.js';

// A replay runs as the nightly recording was made: its samples and its threshold. Before, a replay without
// --samples ran one sample of a three-sample recording, and judged it against threshold 1.

const SUITE = '[[eval]]\nid = "restart-nginx"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\nexpect_args = { service = "nginx" }\n';

describe('replay honours the recorded samples and threshold', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE);
    // Two of three samples pick the right service.
    model = await startFakeOpenAI({
      respond: (_req, i) => ({ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: i === 2 ? 'apache' : 'nginx' } }] }),
    });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('records samples 3 and threshold 0.6, and replays with them when none are given', async () => {
    const rec = await runCli(
      [
        '--path',
        project.dir,
        'record',
        'evals/ops.toml',
        '--out',
        'recordings/ops.json',
        '--base-url',
        model.url,
        '--model',
        'm',
        '--samples',
        '3',
        '--threshold',
        '0.6',
        '--concurrency',
        '1',
        '--no-telemetry',
      ],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(rec.exitCode, rec.stderr).toBe(0);
    const recording = JSON.parse(readFileSync(join(project.dir, 'recordings/ops.json'), 'utf8')) as { samples?: number; threshold?: number };
    expect([recording.samples, recording.threshold]).toEqual([3, 0.6]);
    const rep = await runCli(
      ['--path', project.dir, 'replay', 'evals/ops.toml', '--script', 'recordings/ops.json', '--out', 'replayed.json', '--no-telemetry'],
      { env: { HOME: project.dir }, cwd: project.dir },
    );
    expect(rep.exitCode, rep.stderr).toBe(0);
    const c = casesOf(readJson(join(project.dir, 'replayed.json')))['restart-nginx'] as { runs: unknown[]; threshold: number; pass_rate: number };
    expect(c.runs).toHaveLength(3);
    expect(c.threshold).toBe(0.6);
    expect(c.pass_rate).toBeCloseTo(2 / 3);
    // A threshold given now still wins.
    const strict = await runCli(
      ['--path', project.dir, 'replay', 'evals/ops.toml', '--script', 'recordings/ops.json', '--threshold', '1', '--out', 'strict.json', '--no-telemetry'],
      { env: { HOME: project.dir }, cwd: project.dir },
    );
    expect(strict.exitCode).toBe(1);
  });
});
