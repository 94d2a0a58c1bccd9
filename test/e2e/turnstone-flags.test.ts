import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// turnstone parity: the tool log in the results, `-v` per-turn log, --reasoning-effort on agent
// requests (and absent when unset), --context-window.

const project = tempProject('runspec-turnstone-');
let model: FakeModelServer;
const BIG = 'x'.repeat(2000);

beforeAll(async () => {
  project.write(
    'suite.json',
    JSON.stringify({
      defaults: { n_runs: 1 },
      cases: [{ id: 'read-big', user_prompt: 'Read big.txt twice.', setup: { files: { 'big.txt': BIG } }, expected_actions: [{ tool: 'read_file' }] }],
    }),
  );
  model = await startFakeOpenAI({
    script: {
      'Read big.txt twice.': [
        { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'big.txt' } }], usage: { prompt: 50, completion: 10 } },
        { toolCalls: [{ id: 'r2', name: 'read_file', arguments: { path: 'big.txt' } }], usage: { prompt: 60, completion: 10 } },
        { text: 'done' },
      ],
    },
  });
});
afterAll(async () => {
  await model.close();
  project.cleanup();
});

const run = (extra: string[], out: string) =>
  runCli(['--path', project.dir, 'run', 'suite.json', '--base-url', model.url, '--model', 'fake-model', '--out', out, '--no-telemetry', ...extra], {
    env: cliEnv(project.dir),
    cwd: project.dir,
  });

describe('turnstone flags', () => {
  it('writes the tool log per sample, logs every turn with -v, and sends reasoning_effort only when set', async () => {
    const before = model.chatRequests().length;
    const cli = await run(['-v', '--reasoning-effort', 'low'], 'out/v.json');
    expect(cli.exitCode).toBe(0);
    const sent = model.chatRequests().slice(before);
    expect(sent.map((r) => r.json.reasoning_effort)).toEqual(['low', 'low', 'low']);
    expect(cli.stderr).toContain('[read-big#0 turn 0] model fake-model: 1 tool call (read_file); 60 tokens');
    expect(cli.stderr).toMatch(/\[read-big#0 turn 1\] tool read_file \{"path":"big.txt"\} → .*x{10}/);
    const entry = JSON.parse(readFileSync(join(project.dir, 'out/v.json'), 'utf8')).iterations[0].cases['read-big'].runs[0];
    expect(entry.tool_log).toHaveLength(2);
    expect(entry.tool_log[0]).toMatchObject({ tool: 'read_file', args: { path: 'big.txt' }, turn: 0 });
    expect(entry.tool_log[0].result.length).toBe(500);

    const plain = model.chatRequests().length;
    expect((await run([], 'out/plain.json')).exitCode).toBe(0);
    expect(
      model
        .chatRequests()
        .slice(plain)
        .every((r) => !('reasoning_effort' in r.json)),
    ).toBe(true);
  });

  it('stops a trajectory as truncated once a request fills --context-window', async () => {
    const before = model.chatRequests().length;
    const cli = await run(['--context-window', '60'], 'out/window.json');
    expect(cli.exitCode).toBe(0);
    expect(model.chatRequests().length - before).toBe(1);
    const entry = JSON.parse(readFileSync(join(project.dir, 'out/window.json'), 'utf8')).iterations[0].cases['read-big'].runs[0];
    expect(entry.run_status).toBe('truncated');
    expect(entry.tool_sequence).toEqual(['read_file']);
  });

  it('applies --context-window when recording, and the replay truncates where the recording did', async () => {
    const before = model.chatRequests().length;
    const rec = await runCli(
      [
        '--path',
        project.dir,
        'record',
        'suite.json',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--out',
        'window.recording.json',
        '--context-window',
        '60',
        '--no-telemetry',
      ],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(rec.exitCode, rec.stderr).toBe(0);
    expect(model.chatRequests().length - before).toBe(1);
    expect(JSON.parse(readFileSync(join(project.dir, 'window.recording.json'), 'utf8')).contextWindow).toBe(60);
    const replay = await runCli(
      ['--path', project.dir, 'replay', 'suite.json', '--script', 'window.recording.json', '--out', 'out/replayed.json', '--no-telemetry'],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project.dir, 'out/replayed.json'), 'utf8')).iterations[0].cases['read-big'].runs[0].run_status).toBe('truncated');

    // A scripted (mock) model takes the flag too.
    project.write(
      'mock.json',
      JSON.stringify({ cases: { 'read-big': [{ toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] }, { text: 'done' }] } }),
    );
    const mock = await runCli(
      ['--path', project.dir, 'run', 'suite.json', '--provider', 'mock:mock.json', '--context-window', '1', '--out', 'out/mock.json', '--no-telemetry'],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(mock.exitCode, mock.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project.dir, 'out/mock.json'), 'utf8')).iterations[0].cases['read-big'].runs[0].run_status).toBe('truncated');
  });
});
