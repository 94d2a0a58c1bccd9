import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCasesFromPaths } from '../../src/fixtures/discover.js';
import { jsonSchemaFor } from '../../src/fixtures/schemas.js';
import { runEvalSuite } from '../../src/app/run-suite.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { AGENTS } from './_project.js';

const dirs: string[] = [];
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-case-input-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const SUITE_TOML = `
[[suite]]
name = "support"
system = "You are the support desk of {{vars.shop}}."
vars = { shop = "Acme", city = "Lyon" }
headers = { x-team = "support" }

[[suite.eval]]
id = "history"
prompt = "And the weather in {{vars.city}}?"
vars = { city = "Paris" }
messages = [
  { role = "user", content = "Hi, I am in {{vars.city}}." },
  { role = "assistant", content = "Hello! How can I help?" },
]
headers = { x-case = "history" }
expect_tool = "get_weather"
`;

describe('richer cases: messages, system, vars, headers', () => {
  it("load in all three dialects, suite defaults under the case's own values", () => {
    const dir = tmp({
      'cases.toml': SUITE_TOML,
      'replio.json': JSON.stringify({ id: 'r', task: 'go {{vars.x}}', system: 'sys', vars: { x: 1 }, messages: [{ role: 'user', content: 'before' }] }),
      'turnstone.json': JSON.stringify({
        defaults: { system: 'suite sys', vars: { x: 'a', y: 'b' } },
        cases: [{ id: 't', user_prompt: 'p', vars: { y: 'c' } }],
      }),
    });
    const cases = loadCasesFromPaths([join(dir, 'cases.toml'), join(dir, 'replio.json'), join(dir, 'turnstone.json')]).flatMap((s) => s.cases);
    const byId = Object.fromEntries(cases.map((c) => [c.id, c]));
    expect(byId.history).toMatchObject({
      system: 'You are the support desk of {{vars.shop}}.',
      vars: { shop: 'Acme', city: 'Paris' },
      headers: { 'x-team': 'support', 'x-case': 'history' },
      messages: [
        { role: 'user', content: 'Hi, I am in {{vars.city}}.' },
        { role: 'assistant', content: 'Hello! How can I help?' },
      ],
    });
    expect(byId.r).toMatchObject({ system: 'sys', vars: { x: 1 }, messages: [{ role: 'user', content: 'before' }] });
    expect(byId.t).toMatchObject({ system: 'suite sys', vars: { x: 'a', y: 'c' } });
  });

  it.each(['runspec', 'replio', 'turnstone'] as const)('are in the %s JSON Schema', (dialect) => {
    const text = JSON.stringify(jsonSchemaFor(dialect));
    for (const field of ['"messages"', '"system"', '"vars"', '"headers"']) expect(text).toContain(field);
  });

  it('refuses a message with an unknown role, with file and line (exit 2)', () => {
    const dir = tmp({ 'bad.toml': '[[eval]]\nid = "a"\nprompt = "p"\nmessages = [{ role = "robot", content = "x" }]\n' });
    expect(() => loadCasesFromPaths([join(dir, 'bad.toml')])).toThrow(/bad\.toml:4: .*messages.*role/);
  });

  it.each([
    { name: 'a model target', target: 'bare' },
    { name: 'an AI SDK module target', target: 'aisdk' },
  ])('reach the model as written on $name (asserted on the wire)', async ({ target }) => {
    const model = await startFakeOpenAI({ text: 'ok' });
    cleanup.push(() => model.close());
    const dir = tmp({
      'cases.toml': SUITE_TOML,
      'tools.json': JSON.stringify([{ type: 'function', function: { name: 'get_weather', description: 'w', parameters: { type: 'object', properties: {} } } }]),
      'runspec.toml': `[telemetry]\nenabled = false\n[providers.fake]\nkind = "openai"\nbase_url = "${model.url}"\nmodel = "fake-model"\n[targets.bare]\nkind = "model"\nprovider = "fake"\ntoolset = "tools.json"\n[targets.aisdk]\nkind = "module"\nmodule = "${join(AGENTS, 'ai-sdk.mjs')}"\nvars = { base_url = "${model.url}" }\nquiet_ms = 20\n`,
    });
    await runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir, OPENAI_API_KEY: 'sk-test' }, err: () => {}, warn: () => {} },
      { targets: ['cases.toml'], flags: { target, out: join(dir, 'r.json') } },
    );
    const sent = model.chatRequests()[0]!.json.messages as Array<{ role: string; content: unknown }>;
    const text = (c: unknown): string => (typeof c === 'string' ? c : (c as Array<{ text: string }>).map((p) => p.text).join(''));
    expect(sent.map((m) => ({ role: m.role, content: text(m.content) }))).toEqual([
      { role: 'system', content: 'You are the support desk of Acme.' },
      { role: 'user', content: 'Hi, I am in Paris.' },
      { role: 'assistant', content: 'Hello! How can I help?' },
      { role: 'user', content: 'And the weather in Paris?' },
    ]);
  });

  it('refuses a prompt whose {{vars.NAME}} nothing defines, naming the case and its file (exit 2)', async () => {
    const dir = tmp({
      'cases.toml': '[[eval]]\nid = "a"\nprompt = "hi {{vars.who}}"\nexpect_tool = "x"\n',
      'runspec.toml': '[telemetry]\nenabled = false\n[providers.fake]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n',
    });
    const err = await runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir }, err: () => {}, warn: () => {} },
      { targets: ['cases.toml'], flags: { provider: 'fake', out: join(dir, 'r.json') } },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'FIXTURE_SCHEMA',
      message: expect.stringMatching(/cases\.toml:1: case a: prompt: unknown placeholder \{\{vars\.who\}\}/),
    });
  });
});
