import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from './_helpers.js';

// Bad input fails before any work, with one line naming what to fix (exit 2): a hosted provider without
// its key, a mock script that does not cover a case, a fixture plugin that throws.

const project = tempProject('runspec-failfast-');
let model: FakeModelServer;

beforeAll(async () => {
  project.write('evals/one.toml', '[[eval]]\nid = "restart-nginx"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\n');
  project.write('mock.json', JSON.stringify({ cases: { 'some-other-case': [{ text: 'hi' }] } }));
  project.write('mock-default.json', JSON.stringify({ cases: {}, default: [{ text: 'no tools needed' }] }));
  model = await startFakeOpenAI({ toolCall: { name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } } });
});
afterAll(async () => {
  await model.close();
  project.cleanup();
});

const env = () => ({ HOME: project.dir });
const run = (args: string[]) => runCli(['--path', project.dir, ...args, '--no-telemetry'], { env: env(), cwd: project.dir });

describe('fail fast', () => {
  it.each([
    { name: 'openai', args: ['--provider', 'openai'], variable: 'OPENAI_API_KEY' },
    { name: 'anthropic', args: ['--provider', 'anthropic'], variable: 'ANTHROPIC_API_KEY' },
  ])('refuses the hosted $name API without its key before any request (exit 2)', async ({ args, variable }) => {
    const cli = await run(['run', 'evals/one.toml', ...args, '--out', 'out/x.json']);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr.split('\n')[0]).toMatch(new RegExp(`^error: ${variable} is not set: provider "\\w+" talks to https://`));
  });

  it('needs no key for a local base URL', async () => {
    const cli = await run(['run', 'evals/one.toml', '--base-url', model.url, '--model', 'fake-model', '--out', 'out/local.json']);
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(model.chatRequests()[0]!.headers.authorization).toBeUndefined();
  });

  it('refuses a case the mock script does not mention, naming it (exit 2)', async () => {
    const cli = await run(['run', 'evals/one.toml', '--provider', 'mock', '--script', 'mock.json', '--out', 'out/mock.json']);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/mock provider: .*mock\.json has no answers for case "restart-nginx"/);
  });

  it('answers from the script default when it has one', async () => {
    const cli = await run(['run', 'evals/one.toml', '--provider', 'mock', '--script', 'mock-default.json', '--out', 'out/mock-default.json']);
    expect(cli.exitCode).toBe(1);
    expect(cli.stdout).toContain('no_run');
  });

  it('names the plugin file when its registerFixtures throws (exit 2)', async () => {
    const dir = tempProject('runspec-plugin-');
    try {
      dir.write('plugin.mjs', 'export function registerFixtures() { throw new Error("plugin boom"); }\n');
      dir.write('runspec.toml', '[fixtures]\nplugins = ["./plugin.mjs"]\n');
      const cli = await runCli(['--path', dir.dir, 'list'], { env: { HOME: dir.dir }, cwd: dir.dir });
      expect(cli.exitCode).toBe(2);
      expect(cli.stderr).toMatch(/^error: fixture plugin "\.\/plugin\.mjs" \(.*plugin\.mjs\): registerFixtures threw: plugin boom$/m);
      expect(cli.stderr).not.toMatch(/\n\s+at /);
    } finally {
      dir.cleanup();
    }
  });
});
