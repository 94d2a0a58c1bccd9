import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// A provider that fails mid-trajectory: the sample is errored (exit 3), but its calls, tokens, tool
// sequence and replio metrics (status "error") are kept instead of `replio: null` and 0 tokens.

const project = tempProject('runspec-partial-');
let model: FakeModelServer;

beforeAll(async () => {
  project.write(
    'evals/read.json',
    JSON.stringify({ id: 'read-then-fail', task: 'Read app.py twice.', files: { 'app.py': 'print(1)\n' }, expected: ['file_read', 'file_read'] }),
  );
  model = await startFakeOpenAI({
    script: {
      'Read app.py twice.': [
        { toolCalls: [{ id: 'r1', name: 'file_read', arguments: { path: 'app.py' } }], usage: { prompt: 100, completion: 20, total: 120 } },
        { status: 400, body: { error: { message: 'context length exceeded' } } },
      ],
    },
  });
});
afterAll(async () => {
  await model.close();
  project.cleanup();
});

describe('partial runs', () => {
  it('keeps the calls, tokens and sequence of a sample whose provider failed mid-run', async () => {
    const cli = await runCli(
      ['--path', project.dir, 'run', 'evals/read.json', '--base-url', model.url, '--model', 'fake-model', '--out', 'out/partial.json', '--no-telemetry'],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(cli.exitCode).toBe(3);
    const doc = JSON.parse(readFileSync(join(project.dir, 'out/partial.json'), 'utf8'));
    const run = doc.iterations[0].cases['read-then-fail'].runs[0];
    expect(run).toMatchObject({ status: 'errored', run_status: 'error', tool_sequence: ['file_read'], tokens: 120 });
    expect(run.replio).toMatchObject({ names: ['file_read'], calls: 1, tokens: 120, status: 'error', errors: 1 });
    expect(doc.iterations[0].aggregate).toMatchObject({ errored_runs: 1, scored_runs: 0, calls: 1, tokens: 120 });
  });
});
