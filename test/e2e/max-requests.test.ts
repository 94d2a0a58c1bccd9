import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';

describe('per-provider request limit', () => {
  let model: FakeModelServer;
  let inFlight = 0;
  let peak = 0;
  beforeAll(async () => {
    model = await startFakeOpenAI({
      respond: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(150);
        inFlight--;
        return { text: 'I would rather ask first.' };
      },
    });
  });
  afterAll(async () => model?.close());

  it.each([
    { name: '--max-requests 1 serialises model calls', flag: ['--max-requests', '1'], env: {}, limit: 1 },
    { name: 'RUNSPEC_MAX_REQUESTS=2 caps them at two', flag: [], env: { RUNSPEC_MAX_REQUESTS: '2' }, limit: 2 },
  ])('$name while 4 case samples run at once', async ({ flag, env, limit }) => {
    peak = 0;
    const dir = mkdtempSync(join(tmpdir(), 'runspec-maxreq-'));
    const cli = await runCli(
      [
        '--path',
        dir,
        'run',
        'fleet',
        '--provider',
        'openai',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--concurrency',
        '4',
        '--samples',
        '2',
        '--no-telemetry',
        '--tag',
        'smoke',
        ...flag,
      ],
      { env },
    );
    expect(cli.exitCode, cli.stderr).toBe(1);
    expect(peak).toBe(limit);
  });
});
