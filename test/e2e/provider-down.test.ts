import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { closedPort } from '../helpers/ports.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, readJson, restartSuite, tempProject } from './_helpers.js';

const IDS = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);

describe.sequential('a run against a provider that is down', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer | undefined;
  let port: number;
  let deadUrl: string;
  beforeAll(async () => {
    project.write('evals/many.toml', restartSuite(IDS));
    project.write('evals/six.toml', restartSuite(IDS.slice(0, 6)));
    port = await closedPort();
    deadUrl = `http://127.0.0.1:${port}/v1`;
  });
  afterAll(async () => {
    await model?.close();
    project.cleanup();
  });
  // Only the errored-samples stop here: the unreachable window (10 s by default) is the next describe's.
  const run = (args: string[]) =>
    runCli(['--path', project.dir, ...args], { env: cliEnv(project.dir, { RUNSPEC_UNREACHABLE_AFTER_MS: '0' }), cwd: project.dir, spawn: true });

  it('--stop-after-errors 0 never stops early; -v shows every retry', async () => {
    const cli = await run([
      'run',
      'evals/six.toml',
      '--base-url',
      deadUrl,
      '--model',
      'm',
      '--no-telemetry',
      '--attempts',
      '2',
      '--concurrency',
      '1',
      '--stop-after-errors',
      '0',
      '-v',
      '--out',
      'all.json',
    ]);
    expect(cli.exitCode).toBe(3);
    expect(cli.stderr.split('\n').filter((l) => l.startsWith('retrying:'))).toHaveLength(6);
    expect(cli.stderr).not.toContain('retried:');
    expect(cli.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(6);
  });
  it('stops after 5 samples in a row errored, with one line naming the cause, exit 3, and --resume finishes it', async () => {
    const cli = await run([
      'run',
      'evals/many.toml',
      '--base-url',
      deadUrl,
      '--model',
      'm',
      '--no-telemetry',
      '--attempts',
      '2',
      '--concurrency',
      '1',
      '--out',
      'down.json',
    ]);
    expect(cli.exitCode).toBe(3);
    const lines = cli.stderr.trim().split('\n');
    // The retry lines collapse to one per cause; no line per failed case.
    expect(lines.filter((l) => l.startsWith('retrying:'))).toHaveLength(1);
    // ...and when the run ends, one line counts the rest (5 samples, one retry each).
    expect(lines.filter((l) => l.startsWith('retried:'))).toEqual(['retried: openai: 4 more time(s) after connection failed (ECONNREFUSED)']);
    expect(lines.filter((l) => l.startsWith('error:'))).toEqual([]);
    const stopped = lines.filter((l) => l.startsWith('stopped:'));
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatch(
      /^stopped: 5 samples in a row failed \(.*connection failed.*\); 5 of 20 cases finished; when the provider is back, finish with --resume .*down\.jsonl$/,
    );
    // Finished (errored) cases are kept in the log; the run stopped starting new ones.
    const logged = readFileSync(join(project.dir, 'down.jsonl'), 'utf8').trim().split('\n').slice(1);
    expect(logged).toHaveLength(5);

    // The provider comes back where it was.
    model = await startFakeOpenAI({ port, toolCall: { name: 'restart-service', arguments: { host: 'web-01', service: 'svc0' } } });
    const resumed = await run(['run', '--resume', 'down.jsonl']);
    // Resume runs the 15 cases never started and the 5 that errored: every case is now judged (only c1 is
    // answered right, so exit 1, not 3).
    expect(model.chatRequests()).toHaveLength(20);
    expect(resumed.stderr).not.toContain('stopped:');
    expect(resumed.exitCode).toBe(1);
    const doc = readJson(`${project.dir}/down.json`) as { iterations: Array<{ cases: Record<string, { errored: boolean }> }> };
    const cases = Object.values(doc.iterations[0]!.cases);
    expect(cases).toHaveLength(20);
    expect(cases.filter((c) => c.errored)).toEqual([]);
  });
});

describe('a run against a provider that refuses every connection, several requests in flight', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer | undefined;
  afterAll(async () => {
    await model?.close();
    project.cleanup();
  });

  it('stops once every request in flight failed to connect for the window, with one line, exit 3, and --resume finishes it', async () => {
    project.write('evals/many.toml', restartSuite(IDS));
    const port = await closedPort();
    // The window comes from the environment (10 s by default); the samples' own retries (1 s and more) would
    // take longer, and --stop-after-errors 0 rules the other stop out.
    const env = cliEnv(project.dir, { RUNSPEC_UNREACHABLE_AFTER_MS: '200' });
    const run = (args: string[]) => runCli(['--path', project.dir, ...args], { env, cwd: project.dir, spawn: true });
    const cli = await run([
      'run',
      'evals/many.toml',
      '--base-url',
      `http://127.0.0.1:${port}/v1`,
      '--model',
      'm',
      '--no-telemetry',
      '--concurrency',
      '4',
      '--stop-after-errors',
      '0',
      '--out',
      'gone.json',
    ]);
    expect(cli.exitCode, cli.stderr).toBe(3);
    const lines = cli.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('error:'))).toEqual([]);
    const stopped = lines.filter((l) => l.startsWith('stopped:'));
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatch(
      /^stopped: every request in flight failed to connect for 0\.2 s \(openai.*connection failed \(ECONNREFUSED\)\); 0 of 20 cases finished; when the provider is back, finish with --resume .*gone\.jsonl$/,
    );
    // The requests in flight were cancelled in their retry waits: no case finished, none was started after.
    expect(readFileSync(join(project.dir, 'gone.jsonl'), 'utf8').trim().split('\n').slice(1)).toEqual([]);

    model = await startFakeOpenAI({ port, toolCall: { name: 'restart-service', arguments: { host: 'web-01', service: 'svc0' } } });
    const resumed = await run(['run', '--resume', 'gone.jsonl']);
    expect(resumed.stderr).not.toContain('stopped:');
    expect(resumed.exitCode).toBe(1);
    expect(model.chatRequests()).toHaveLength(20);
    const doc = readJson(`${project.dir}/gone.json`) as { iterations: Array<{ cases: Record<string, { errored: boolean }> }> };
    expect(Object.values(doc.iterations[0]!.cases).filter((c) => !c.errored)).toHaveLength(20);
  });
});
