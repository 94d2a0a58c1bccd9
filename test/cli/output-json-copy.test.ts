// `run --output json` prints the results file itself, copied from disk a chunk at a time: the copy must be
// the file byte for byte whether stdout takes each chunk at once (a file, a pipe) or queues it (a slow
// stream), with multi-byte characters cut at chunk boundaries.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';

describe('run --output json copies the results file to stdout', () => {
  let dir: string;
  let model: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runspec-output-json-'));
    // Each case's entry holds a ~700 KB argument of two-byte characters: three cases pass 1 MiB chunks.
    model = await startFakeOpenAI({ toolCall: { name: 'restart-service', arguments: { service: 'é'.repeat(350_000), host: 'web-01' } } });
    const cases = ['a', 'b', 'c'].map((id) => `[[eval]]\nid = "${id}"\nprompt = "restart nginx (${id})"\nexpect_tool = "restart-service"\n`);
    writeFileSync(join(dir, 'evals.toml'), cases.join('\n'));
  });
  afterAll(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    { how: 'takes each chunk at once', slowStdout: false },
    { how: 'queues each chunk', slowStdout: true },
  ])('to a stream that $how', async ({ slowStdout }) => {
    const out = `res-${slowStdout ? 'slow' : 'fast'}.json`;
    const r = await runCli(
      ['run', 'evals.toml', '--base-url', model.url, '--model', 'fake-model', '--toolset', 'builtin:fleet', '--no-telemetry', '--out', out, '--output', 'json'],
      {
        cwd: dir,
        env: { OPENAI_API_KEY: 'sk-test' },
        slowStdout,
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const file = readFileSync(join(dir, out), 'utf8');
    expect(Buffer.byteLength(file)).toBeGreaterThan(2 ** 21);
    expect(r.stdout).toBe(file);
  });
});
