import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCase } from '../../src/engine/run-case.js';
import { loadFixtureFile } from '../../src/fixtures/load.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import { createRecordingProvider, createReplayProvider } from '../../src/providers/recording.js';
import { loadToolset } from '../../src/toolset/load.js';
import { WORKSPACE_TOOLSET } from '../../src/toolset/workspace.js';
import type { Run } from '../../src/types/run.js';
import type { Toolset } from '../../src/types/toolset.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const replio = loadFixtureFile(join(REPO_ROOT, 'fixtures/replio/find-then-read.json'))[0]!.cases[0]!;
const fleetCase = loadFixtureFile(join(REPO_ROOT, 'fixtures/runspec/fleet.toml'))[0]!.cases.find((c) => c.id === 'restart-nginx-targeted')!;

/** What a run decided, without times, ids of the server or latency. */
const decisions = (run: Run) => ({
  status: run.status,
  calls: run.toolCalls.map((t) => ({ name: t.call.name, args: t.call.arguments, executed: t.executed, result: t.result })),
  terminal: run.terminal?.resolved,
  finalText: run.finalText,
  usage: run.usage,
});

describe('record → replay through runCase', () => {
  it('replays a trajectory and a decision run keyless with the same decisions, and flags a changed description as stale', async () => {
    const fleet = await loadToolset('builtin:fleet', { projectDir: REPO_ROOT, env: {} });
    const server = await startFakeOpenAI({
      script: {
        [replio.prompt]: [
          { toolCalls: [{ name: 'glob', arguments: { pattern: '**/settings.py' } }] },
          { toolCalls: [{ name: 'file_read', arguments: { path: 'src/shop/config/settings.py' } }] },
          { text: 'DEBUG is False' },
        ],
        [fleetCase.prompt]: [
          { toolCalls: [{ name: 'search_runnables', arguments: { query: 'restart service' } }] },
          { toolCalls: [{ name: 'run_runnable', arguments: { id: 'restart-service', host: 'web-01', args: { service: 'nginx' } } }] },
        ],
      },
    });
    const file = join(dir, 'recording.json');
    const recorder = createRecordingProvider(createOpenAIProvider({ baseUrl: server.url, model: 'gpt-rec', apiKey: 'sk-rec-secret-77' }), { file });
    let live: Run[];
    try {
      live = [
        await runCase({ case: replio, sample: 0, provider: recorder }),
        await runCase({ case: fleetCase, sample: 0, provider: recorder, toolset: fleet, toolMode: 'search' }),
      ];
      await recorder.save();
    } finally {
      await recorder.close();
      await server.close();
    }
    expect(live.map((r) => r.status)).toEqual(['ok', 'ok']);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk-rec-secret-77');
    expect(JSON.parse(text).entries).toHaveLength(5);

    const replay = createReplayProvider({ file });
    const again = [
      await runCase({ case: replio, sample: 0, provider: replay }),
      await runCase({ case: fleetCase, sample: 0, provider: replay, toolset: fleet, toolMode: 'search' }),
    ];
    expect(again.map(decisions)).toEqual(live.map(decisions));
    expect(again[1]!.terminal!.resolved).toMatchObject({ runnable: 'restart-service', host: 'web-01', args: { service: 'nginx' } });

    // A tool description edit changes what the model would see: the recording no longer vouches for it.
    const edited: Toolset = {
      ...WORKSPACE_TOOLSET,
      runnables: WORKSPACE_TOOLSET.runnables.map((r) => (r.name === 'glob' ? { ...r, description: `${r.description} Prefer this.` } : r)),
    };
    const stale = await runCase({ case: replio, sample: 0, provider: replay, toolset: edited });
    expect(stale.status).toBe('error');
    expect(stale.error!.code).toBe('REPLAY_STALE');
    expect(stale.error!.message).toContain(
      'recording for case find-then-read sample 0 turn 0 is stale: the request changed (tool schemas); re-record with `runspec-eval record`',
    );

    const missing = await runCase({ case: replio, sample: 1, provider: replay });
    expect(missing.status).toBe('error');
    expect(missing.error!.code).toBe('REPLAY_MISSING');
  });
});
