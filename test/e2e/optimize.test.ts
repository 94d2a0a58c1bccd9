import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer, type RecordedRequest } from '../helpers/fake-openai.js';
import { closedPort } from '../helpers/ports.js';
import { runCli } from '../helpers/run-cli.js';

const SUITE = {
  defaults: { n_runs: 1 },
  cases: [
    {
      id: 'fix-typo',
      user_prompt: 'Fix the typo in a.py',
      setup: { files: { 'a.py': 'pritn("hi")\n' } },
      expected_actions: [{ tool: 'read_file', args: { path: 'a.py' } }, { tool: 'edit_file' }],
    },
  ],
};

const BETTER = 'ALWAYS call read_file first, then edit_file. Never rewrite a file with write_file.';

/** The agent follows the prompt: with BETTER it reads then edits, otherwise it rewrites the file. */
function agent(req: RecordedRequest) {
  const messages = req.json.messages as Array<{ role: string; content?: string }>;
  if ((req.json.tools ?? []).length === 0) {
    // The optimiser (or observer) call: no tools offered.
    return { text: `<think>the agent used write_file</think>\n${BETTER}` };
  }
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.includes('ALWAYS')) {
    if (turn === 0) return { toolCalls: [{ name: 'read_file', arguments: { path: 'a.py' } }] };
    if (turn === 1) return { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.py', old_string: 'pritn', new_string: 'print' } }] };
    return { text: 'fixed' };
  }
  if (turn === 0) return { toolCalls: [{ name: 'write_file', arguments: { path: 'a.py', content: 'print("hi")\n' } }] };
  return { text: 'rewrote it' };
}

describe('runspec-eval optimize', () => {
  let model: FakeModelServer;
  let dir: string;
  beforeAll(async () => {
    model = await startFakeOpenAI({ respond: (req) => agent(req) });
    dir = mkdtempSync(join(tmpdir(), 'runspec-optimize-'));
    writeFileSync(join(dir, 'suite.json'), JSON.stringify(SUITE));
  });
  afterAll(async () => model?.close());

  it('rewrites the prompt until the case passes and saves every iteration', async () => {
    const out = join(dir, 'results.json');
    const cli = await runCli(
      [
        '--path',
        dir,
        'optimize',
        join(dir, 'suite.json'),
        '--provider',
        'openai',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--out',
        out,
        '--max-iter',
        '3',
      ],
      {
        env: { OPENAI_API_KEY: 'sk-test-secret' },
      },
    );
    expect(cli.stderr).not.toContain('sk-test-secret');
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('stopped: all_pass after 2 iteration(s)');
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.iterations).toHaveLength(2);
    expect(doc.iterations[0].cases['fix-typo'].pass_rate).toBe(0);
    expect(doc.iterations[1].prompt).toBe(BETTER);
    expect(doc.iterations[1].prompt_diff).toContain(`+${BETTER}`);
    expect(doc.iterations[1].cases['fix-typo'].pass_rate).toBe(1);
    expect(doc.iterations[1].aggregate.overall_pass_rate).toBe(1);
    // The optimiser saw the failing sequence against the expected one.
    const optimiserCall = model.chatRequests().find((r) => (r.json.tools ?? []).length === 0)!;
    expect(optimiserCall.json.messages[1].content).toContain('expected tools: read_file, edit_file');
    expect(optimiserCall.json.messages[1].content).toContain('actual: [write_file]');
  });

  it('evaluates once with --no-optimize and exits 1 when the case fails', async () => {
    const out = join(dir, 'once.json');
    const cli = await runCli([
      '--path',
      dir,
      'optimize',
      join(dir, 'suite.json'),
      '--provider',
      'openai',
      '--base-url',
      model.url,
      '--model',
      'fake-model',
      '--out',
      out,
      '--no-optimize',
    ]);
    expect(cli.exitCode, cli.stderr).toBe(1);
    expect(JSON.parse(readFileSync(out, 'utf8')).iterations).toHaveLength(1);
  });

  it('records the auto-detected model and n_runs_default (the suite default) in meta; -v logs every turn', async () => {
    const out = join(dir, 'meta.json');
    const cli = await runCli([
      '--path',
      dir,
      'optimize',
      join(dir, 'suite.json'),
      '--provider',
      'openai',
      '--base-url',
      model.url,
      '--out',
      out,
      '--no-optimize',
      '-v',
    ]);
    expect(cli.exitCode, cli.stderr).toBe(1);
    expect(cli.stderr).toMatch(/^\[fix-typo#0 turn 0\] tool write_file \{"path":"a\.py"/m);
    expect(JSON.parse(readFileSync(out, 'utf8')).meta).toMatchObject({ model: 'fake-model', n_runs_default: 1 });
  });
});

describe('runspec-eval optimize against a provider that is down', { timeout: 120_000 }, () => {
  let dir: string;
  let deadUrl: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runspec-optimize-down-'));
    writeFileSync(join(dir, 'suite.json'), JSON.stringify({ ...SUITE, defaults: { n_runs: 3 } }));
    deadUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  });
  const optimize = (out: string, env: Record<string, string>) =>
    runCli(
      ['--path', dir, 'optimize', join(dir, 'suite.json'), '--base-url', deadUrl, '--model', 'm', '--out', join(dir, out), '--no-optimize', '--attempts', '2'],
      {
        env: { OPENAI_API_KEY: 'sk-test', ...env },
        spawn: true,
      },
    );

  it('counts the retries it did not show, in one line, when it ends', async () => {
    const cli = await optimize('retried.json', { RUNSPEC_UNREACHABLE_AFTER_MS: '0' });
    expect(cli.exitCode, cli.stderr).toBe(3);
    const lines = cli.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('retrying:'))).toHaveLength(1);
    // 3 samples, one retry each: the first is shown, the other two counted.
    expect(lines.filter((l) => l.startsWith('retried:'))).toEqual(['retried: openai: 2 more time(s) after connection failed (ECONNREFUSED)']);
  });

  it('stops with one line and exit 3 once every request in flight failed to connect for the window', async () => {
    const cli = await optimize('gone.json', { RUNSPEC_UNREACHABLE_AFTER_MS: '200' });
    expect(cli.exitCode, cli.stderr).toBe(3);
    expect(cli.stderr).toMatch(
      /^error: optimize stopped in iteration 0: every request in flight failed to connect for 0\.2 s \(openai.*connection failed \(ECONNREFUSED\)\)$/m,
    );
  });
});
