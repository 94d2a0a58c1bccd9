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

describe('run -v --keep-worktrees on one lane', { timeout: 60_000 }, () => {
  const project = tempProject('runspec-kept-order-');
  afterAll(() => project.cleanup());

  it("prints a sample's kept worktree with its own turn lines, before the next sample's", async () => {
    // A trajectory case, then a decision case on the same lane: the scripted model answers at once, so the
    // decision case's first turn is printed while the trajectory sample waits to be scored. The kept line
    // used to be printed then (with the sample's progress), after "[then-decide#0 turn 0]".
    project.write('evals/a-read-app.json', JSON.stringify(REPLIO_READ_APP));
    project.write('evals/b-decide.toml', '[[eval]]\nid = "then-decide"\nprompt = "is nginx running on web-02?"\nexpect_tool = "service-status"\n');
    project.write(
      'mock.json',
      JSON.stringify({
        cases: {
          'read-app': [{ toolCalls: [{ name: 'file_read', arguments: { path: 'src/app.py' } }] }, { text: 'src/app.py has 4 lines.' }],
          'then-decide': [{ toolCalls: [{ name: 'service-status', arguments: { host: 'web-02' } }] }],
        },
      }),
    );
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        'evals/',
        '--provider',
        'mock',
        '--script',
        'mock.json',
        '--no-telemetry',
        '-v',
        '--keep-worktrees',
        '--concurrency',
        '1',
        '--out',
        'out/r.json',
      ],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(cli.exitCode, cli.stderr).toBe(0);
    const lines = cli.stderr.split('\n');
    const kept = lines.findIndex((l) => l.startsWith('kept worktree of read-app sample 0: '));
    const before = lines.findIndex((l) => l.startsWith('[read-app#0 turn 1] model'));
    const after = lines.findIndex((l) => l.startsWith('[then-decide#0 turn 0] model'));
    expect(Math.min(kept, before, after), cli.stderr).toBeGreaterThanOrEqual(0);
    expect(kept, cli.stderr).toBeGreaterThan(before);
    expect(kept, cli.stderr).toBeLessThan(after);
    rmSync(lines[kept]!.slice(lines[kept]!.indexOf(': ') + 2), { recursive: true, force: true });
  });
});

describe('a trajectory run whose temp folder does not exist', { timeout: 60_000 }, () => {
  const project = tempProject('runspec-no-tmp-');
  afterAll(() => project.cleanup());

  it.each([[[]], [['--unsafe-host-commands']]])('exits 3 with one line naming the folder it could not make (%j)', async (extra) => {
    // The worktree and both sandbox probes make their folder through one owner (engine/owned-dir.ts); their
    // mkdtemp used to fail as a raw "ENOENT: no such file or directory, mkdtemp '…'".
    project.write('evals/read-app.json', JSON.stringify(REPLIO_READ_APP));
    project.write(
      'mock.json',
      JSON.stringify({ cases: { 'read-app': [{ toolCalls: [{ name: 'file_read', arguments: { path: 'src/app.py' } }] }, { text: 'done' }] } }),
    );
    const missing = join(project.dir, 'no-such-tmp');
    const cli = await runCli(
      ['--path', project.dir, 'run', 'evals/', '--provider', 'mock', '--script', 'mock.json', '--no-telemetry', '--out', 'out/r.json', ...extra],
      {
        env: cliEnv(project.dir, { TMPDIR: missing }),
        cwd: project.dir,
        spawn: true, // the built CLI, whose os.tmpdir() reads the TMPDIR given
      },
    );
    expect(cli.exitCode, cli.stderr).toBe(3);
    const errors = cli.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors, cli.stderr).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^error: cannot write ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/runspec-eval-(probe-)?pid\\d+-XXXXXX: no such file or directory \\(ENOENT\\); (command tools could not be checked|the disk budget could not be checked|the sample has no worktree)$`,
      ),
    );
    expect(cli.stderr).not.toMatch(/mkdtemp|at .*\.js:\d+/);
  });
});
