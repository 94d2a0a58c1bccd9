import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEvalSuite } from '../../src/app/run-suite.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { AGENTS, SCRIPT, makeProject } from './_project.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

async function runTarget(kind: string, body: string, extra: { flags?: Record<string, unknown> } = {}) {
  const model: FakeModelServer = await startFakeOpenAI({ script: SCRIPT });
  cleanup.push(() => model.close());
  const dir = makeProject(`[targets.agent]\nkind = "${kind}"\n${body.replaceAll('BASE_URL', model.url)}\n`);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  const outcome = await runEvalSuite(
    { projectDir: dir, cwd: dir, env: { HOME: dir }, err: (l) => lines.push(l), warn: (l) => lines.push(`warning: ${l}`) },
    { targets: ['cases.toml'], flags: { target: 'agent', out: join(dir, 'results.json'), quietMs: 50, ...extra.flags } },
  );
  const result = outcome.runs[0]!.result;
  const verdicts = Object.fromEntries(result.results.map((r) => [r.caseId, r.samples[0]]));
  return { outcome, result, verdicts, model, lines };
}

describe('module targets', () => {
  it('scores an AI SDK 6 agent from its ai.* spans: one case passes, one picks the wrong tool', async () => {
    // Four samples a case, eight in flight at once: each sample's spans must stay under its own root.
    const { outcome, result, verdicts, model } = await runTarget('module', `module = "${AGENTS}ai-sdk.mjs"\nvars = { base_url = "BASE_URL" }`, {
      flags: { samples: 4, concurrency: 8 },
    });
    for (const r of result.results)
      expect(r.samples.map((x) => (x as { verdict: { category: string } }).verdict.category)).toEqual(
        Array(4).fill(r.caseId === 'weather-paris' ? 'pass' : 'wrong_tool'),
      );
    expect(verdicts['weather-paris']).toMatchObject({ status: 'scored', verdict: { category: 'pass' } });
    expect(verdicts['time-tokyo']).toMatchObject({ status: 'scored', verdict: { category: 'wrong_tool' } });
    expect((verdicts['weather-paris'] as { verdict: { reason: string } }).verdict.reason).toContain('calls read from the trace');
    expect(outcome.exitCode).toBe(1);
    expect(result.doc.meta).toMatchObject({ provider: 'agent', target: { name: 'agent', kind: 'module' } });
    // vars reached the model as written.
    expect(model.chatRequests().some((r) => JSON.stringify(r.json.messages).includes('What is the weather in Paris?'))).toBe(true);
  });

  it('scores a LangChain.js agent from its OpenInference spans', async () => {
    const { verdicts } = await runTarget('module', `module = "${AGENTS}langchain.mjs"\nvars = { base_url = "BASE_URL" }`);
    expect(verdicts['weather-paris']).toMatchObject({ status: 'scored', verdict: { category: 'pass' } });
    expect(verdicts['time-tokyo']).toMatchObject({ status: 'scored', verdict: { category: 'wrong_tool', observed: { tool: 'get_weather' } } });
  });

  it('calls a module with telemetry off unscorable, naming the switch, never an empty-trace verdict', async () => {
    const { verdicts } = await runTarget('module', `module = "${AGENTS}ai-sdk.mjs"\nvars = { base_url = "BASE_URL", telemetry = "off" }`);
    for (const id of ['weather-paris', 'time-tokyo']) {
      expect(verdicts[id]).toMatchObject({ status: 'scored', verdict: { category: 'unscorable', pass: false } });
      expect((verdicts[id] as { verdict: { reason: string } }).verdict.reason).toContain('experimental_telemetry: { isEnabled: true }');
    }
  });

  it('refuses a module that exports no such function, naming the target (exit 2)', async () => {
    const err = await runTarget('module', `module = "${AGENTS}silent.mjs"\nexport = "nope"`).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'CONFIG',
      message: expect.stringMatching(/^runspec\.toml: targets\.agent\.module: .*silent\.mjs exports no function "nope" \(exports: default\)$/),
    });
  });

  it('asks for tsx, in one line, to load a .ts module when tsx is not installed', async () => {
    const err = await runTarget('module', `module = "${AGENTS}../_project.ts"`).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/a \.ts module needs the optional package tsx$/),
      hint: expect.stringContaining('npm install --save-dev tsx'),
    });
  });
});

describe('the target on the root span', () => {
  it('names a model target as the agent of every case trace', async () => {
    const { startOtlpSink } = await import('../helpers/otlp-sink.js');
    const { writeFileSync } = await import('node:fs');
    const sink = await startOtlpSink();
    cleanup.push(() => sink.close());
    const model = await startFakeOpenAI({ script: SCRIPT });
    cleanup.push(() => model.close());
    const dir = makeProject(
      `[providers.fake]\nkind = "openai"\nbase_url = "${model.url}"\nmodel = "fake-model"\n[targets.baseline]\nkind = "model"\nprovider = "fake"\ntoolset = "tools.json"\n`,
    );
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'tools.json'),
      JSON.stringify([
        { type: 'function', function: { name: 'get_weather', description: 'w', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ]),
    );
    await runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir, OPENAI_API_KEY: 'sk-test' }, err: () => {}, warn: () => {} },
      { targets: ['cases.toml'], flags: { target: 'baseline', out: join(dir, 'r.json'), telemetry: true, endpoint: `${sink.url}/v1/traces` } },
    );
    const roots = sink.spans().filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(2);
    for (const r of roots) expect(r.attributes['gen_ai.agent.name']).toBe('baseline');
  });
});

describe('trace completion', () => {
  it('judges a trace that never goes quiet as incomplete at --trace-timeout', async () => {
    const { verdicts } = await runTarget('module', `module = "${AGENTS}lingering.mjs"`, {
      flags: { quietMs: 100, traceTimeout: 300, fixture: ['weather-paris'] },
    });
    expect(verdicts['weather-paris']).toMatchObject({ status: 'scored', verdict: { category: 'incomplete', pass: false } });
    expect((verdicts['weather-paris'] as { verdict: { reason: string } }).verdict.reason).toMatch(/^the trace did not complete within 300 ms/);
  });
});
