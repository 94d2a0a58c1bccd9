import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';
import { OPERATIONS_SYSTEM_PROMPT } from '../../src/core/system-prompts.js';

// Domain-neutral defaults, through the built CLI: a generic OpenAI toolset gets no system prompt and no ops
// columns; builtin:fleet keeps the operations prompt; recordings keep the system prompt they were made with.

const CASES = `
[[eval]]
id = "weather"
prompt = "What is the weather in Paris?"
expect_tool = "get_weather"
`;
const TOOLS = JSON.stringify([
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
]);

describe('domain-neutral defaults', { timeout: 120_000 }, () => {
  const project = tempProject('runspec-neutral-');
  let model: FakeModelServer;
  beforeAll(async () => {
    model = await startFakeOpenAI({ toolCall: { name: 'get_weather', arguments: { city: 'Paris' } } });
    project.write('cases.toml', CASES);
    project.write('tools.json', TOOLS);
    project.write('fleet.toml', '[[eval]]\nid = "restart"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\n');
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });
  const cli = (args: string[], env: Record<string, string> = cliEnv(project.dir)) =>
    runCli(['--path', project.dir, ...args], { env, cwd: project.dir, spawn: true });

  it('sends no system prompt with an OpenAI tools file, and the table has no command, autonomy or host column', async () => {
    const before = model.chatRequests().length;
    const r = await cli([
      'run',
      'cases.toml',
      '--toolset',
      'tools.json',
      '--base-url',
      model.url,
      '--model',
      'fake-model',
      '--no-telemetry',
      '--output',
      'table',
    ]);
    expect(r.exitCode).toBe(0);
    expect(model.chatRequests()[before]!.json.messages).toEqual([{ role: 'user', content: 'What is the weather in Paris?' }]);
    const header = r.stdout.split('\n').find((l) => l.includes('VERDICT'))!;
    expect(header).toMatch(/CASE\s+VERDICT\s+TOOL\s+PASS RATE\s+REASON/);
  });

  it('keeps the operations prompt for the bundled fleet toolset', async () => {
    const before = model.chatRequests().length;
    await cli(['run', 'fleet.toml', '--toolset', 'builtin:fleet', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry']);
    expect(model.chatRequests()[before]!.json.messages[0]).toEqual({ role: 'system', content: OPERATIONS_SYSTEM_PROMPT });
  });

  it('stores the system prompt in a recording, and replay uses it without being told', async () => {
    project.write('prompt.txt', 'You are a weather bot.');
    const rec = await cli([
      'record',
      'cases.toml',
      '--toolset',
      'tools.json',
      '--system-prompt',
      'prompt.txt',
      '--out',
      'rec.json',
      '--base-url',
      model.url,
      '--model',
      'fake-model',
      '--no-telemetry',
    ]);
    expect(rec.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(join(project.dir, 'rec.json'), 'utf8')).systemPrompt).toBe('You are a weather bot.');
    const rep = await cli(['replay', 'cases.toml', '--toolset', 'tools.json', '--script', 'rec.json', '--no-telemetry'], { HOME: project.dir });
    expect(rep.stderr).not.toMatch(/^error/m);
    expect(rep.exitCode).toBe(0);
  });

  it('says so when an older recording differs only by the operations prompt it was made with (exit 2)', async () => {
    writeFileSync(join(project.dir, 'ops.txt'), OPERATIONS_SYSTEM_PROMPT);
    const made = await cli([
      'record',
      'cases.toml',
      '--toolset',
      'tools.json',
      '--system-prompt',
      'ops.txt',
      '--out',
      'old.json',
      '--base-url',
      model.url,
      '--model',
      'fake-model',
      '--no-telemetry',
    ]);
    expect(made.exitCode).toBe(0);
    // A recording from before recordings kept their system prompt.
    const old = JSON.parse(readFileSync(join(project.dir, 'old.json'), 'utf8'));
    delete old.systemPrompt;
    writeFileSync(join(project.dir, 'old.json'), JSON.stringify(old));
    const rep = await cli(['replay', 'cases.toml', '--toolset', 'tools.json', '--script', 'old.json', '--no-telemetry'], { HOME: project.dir });
    expect(rep.exitCode).toBe(2);
    expect(rep.stderr).toMatch(/differs only by the default system prompt: it was made with the operations prompt/);
  });
});
