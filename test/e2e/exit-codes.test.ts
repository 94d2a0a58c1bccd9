import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { ATTR_RUNSPEC_EVAL_CATEGORY, ATTR_RUNSPEC_EVAL_PASS_RATE } from '../../src/semconv/attributes.js';
import { runCli } from '../helpers/run-cli.js';
import { allText, casesOf, cliEnv, readJson, SECRET, tempProject } from './_helpers.js';

const SUITE = `
[[eval]]
id           = "status-check"
prompt       = "is nginx running on web-02?"
expect_tool  = "service-status"
forbid_tools = ["restart-service"]
`;

describe('exit codes', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE);
    // The model restarts the service it was only asked about.
    model = await startFakeOpenAI({ toolCall: { name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } } });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });
  const run = (args: string[], env: Record<string, string> = {}) =>
    runCli(['--path', project.dir, ...args], { env: cliEnv(project.dir, env), cwd: project.dir });

  it('exits 1 when a case misses the threshold; the collector gets the verdict on the root span, never the key', async () => {
    const sink = await startOtlpSink();
    try {
      const cli = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--out', 'out/fail.json', '--capture-content'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      });
      expect(cli.exitCode).toBe(1);
      expect(cli.stdout).toContain('forbidden_tool');
      expect(casesOf(readJson(join(project.dir, 'out/fail.json')))['status-check'].meets_threshold).toBe(false);
      // Traces are emitted after the case is aggregated: the root span carries the final verdict and pass rate.
      const root = sink.rootSpan();
      expect(root.attributes[ATTR_RUNSPEC_EVAL_CATEGORY]).toBe('forbidden_tool');
      expect(root.attributes[ATTR_RUNSPEC_EVAL_PASS_RATE]).toBe(0);
      expect(cli.stdout + cli.stderr + sink.rawBodies() + allText(project.dir)).not.toContain(SECRET);
    } finally {
      await sink.close();
    }
  });

  it('exits 0 when the threshold is lowered to what the case reaches', async () => {
    const cli = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--threshold', '0', '--no-telemetry']);
    expect(cli.exitCode).toBe(0);
  });

  it.each([
    { name: 'a sample count of 0', args: ['run', 'evals/ops.toml', '--samples', '0'], message: /--samples/ },
    { name: 'a fixture file that does not exist', args: ['run', 'evals/missing.toml'], message: /missing\.toml/ },
    { name: 'an unknown case id', args: ['run', 'evals/ops.toml', '--fixture', 'nope'], message: /nope/ },
    { name: 'an unknown provider', args: ['run', 'evals/ops.toml', '--provider', 'nosuch'], message: /nosuch/ },
  ])('exits 2 on bad input: $name', async ({ args, message }) => {
    const cli = await run(args);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(message);
    expect(cli.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 3 when the provider is down (every sample errored), and says so without the key', async () => {
    const down = await startFakeOpenAI({ respond: () => ({ status: 503, body: { error: { message: 'overloaded' } } }) });
    try {
      const cli = await run(['run', 'evals/ops.toml', '--base-url', down.url, '--model', 'fake-model', '--retries', '1', '--out', 'out/down.json']);
      expect(cli.exitCode).toBe(3);
      expect(cli.stderr).toMatch(/status-check: every sample failed/);
      // --retries still works, and says it is now --attempts (it always counted attempts).
      expect(cli.stderr).toContain('warning: --retries is now --attempts');
      const c = casesOf(readJson(join(project.dir, 'out/down.json')))['status-check'];
      expect(c.runs[0].status).toBe('errored');
      expect(cli.stdout + cli.stderr + allText(project.dir)).not.toContain(SECRET);
    } finally {
      await down.close();
    }
  });
});
