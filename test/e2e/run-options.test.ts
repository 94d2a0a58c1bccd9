import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { casesOf, cliEnv, readJson, REPLIO_READ_APP, tempProject } from './_helpers.js';

// --system-prompt, --max-turns and --keep-worktrees, through the CLI against a model that never stops
// calling tools.
describe('run options that shape the agent loop', { timeout: 60_000 }, () => {
  const project = tempProject('runspec-run-options-');
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/read-app.json', JSON.stringify(REPLIO_READ_APP));
    project.write('prompt.txt', 'You are the inspection agent. Always read before answering.');
    model = await startFakeOpenAI({ respond: () => ({ toolCalls: [{ name: 'file_read', arguments: { path: 'src/app.py' } }] }) });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('sends the system prompt file, stops at --max-turns as truncated, and keeps the worktree', async () => {
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        'evals/',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--no-telemetry',
        '--output',
        'json',
        '--system-prompt',
        'prompt.txt',
        '--max-turns',
        '2',
        '--keep-worktrees',
        '--out',
        'out/r.json',
      ],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(cli.stderr).not.toMatch(/^error/m);
    const chats = model.chatRequests();
    expect(chats).toHaveLength(2);
    expect(chats[0]!.json.messages[0]).toEqual({ role: 'system', content: 'You are the inspection agent. Always read before answering.' });
    const run = casesOf(readJson(join(project.dir, 'out/r.json')))['read-app'].runs[0];
    expect(run.run_status).toBe('truncated');
    const kept = /kept worktree of read-app sample 0: (\S+)/.exec(cli.stderr);
    expect(kept, cli.stderr).not.toBeNull();
    expect(readFileSync(join(kept![1]!, 'src/app.py'), 'utf8')).toContain('def main()');
    rmSync(kept![1]!, { recursive: true, force: true });
  });

  it('removes the worktree without --keep-worktrees', async () => {
    const cli = await runCli(
      ['--path', project.dir, 'run', 'evals/', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry', '--max-turns', '1', '--out', 'out/s.json'],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(cli.stderr).not.toContain('kept worktree');
    expect(existsSync(join(project.dir, 'out/s.json'))).toBe(true);
  });
});
