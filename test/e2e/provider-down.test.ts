import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, readJson, restartSuite, tempProject } from './_helpers.js';

const IDS = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);

/** A loopback port nothing listens on: bound, read and closed here (never assumed closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

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
  const run = (args: string[]) => runCli(['--path', project.dir, ...args], { env: cliEnv(project.dir), cwd: project.dir, spawn: true });

  it('--stop-after-errors 0 never stops early; -v shows every retry', async () => {
    const cli = await run(['run', 'evals/six.toml', '--base-url', deadUrl, '--model', 'm', '--no-telemetry', '--attempts', '2', '--concurrency', '1', '--stop-after-errors', '0', '-v', '--out', 'all.json']);
    expect(cli.exitCode).toBe(3);
    expect(cli.stderr.split('\n').filter((l) => l.startsWith('retrying:'))).toHaveLength(6);
    expect(cli.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(6);
  });
  it('stops after 5 samples in a row errored, with one line naming the cause, exit 3, and --resume finishes it', async () => {
    const cli = await run(['run', 'evals/many.toml', '--base-url', deadUrl, '--model', 'm', '--no-telemetry', '--attempts', '2', '--concurrency', '1', '--out', 'down.json']);
    expect(cli.exitCode).toBe(3);
    const lines = cli.stderr.trim().split('\n');
    // The retry lines collapse to one per cause; no line per failed case.
    expect(lines.filter((l) => l.startsWith('retrying:'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('error:'))).toEqual([]);
    const stopped = lines.filter((l) => l.startsWith('stopped:'));
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatch(/^stopped: 5 samples in a row failed \(.*connection failed.*\); 5 of 20 cases finished; when the provider is back, finish with --resume .*down\.jsonl$/);
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
