import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEvalSuite } from '../../src/app/run-suite.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { AGENTS, SCRIPT, makeProject } from '../targets/_project.js';
import { freePort, startAgentProcess } from '../targets/_agent-process.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const SECRET = 'agent-secret-token-123';
const TEMPLATE = `{
  "headers": { "authorization": "Bearer {{env.AGENT_TOKEN}}", "x-case": "{{case_id}}" },
  "body": { "messages": "{{messages}}", "note": "case {{case_id}}" }
}
`;

async function setup(opts: { agentEnv?: Record<string, string>; template?: string; cases?: string } = {}) {
  const model = await startFakeOpenAI({ script: SCRIPT });
  cleanup.push(() => model.close());
  const port = await freePort();
  const agent = await startAgentProcess(join(AGENTS, 'http-agent.mjs'), {
    MODEL_URL: model.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    AGENT_TOKEN: SECRET,
    ...opts.agentEnv,
  });
  cleanup.push(() => agent.stop());
  const dir = makeProject(`[targets.agent]\nkind = "http"\nurl = "${agent.url}"\ntemplate = "request.json"\nreceiver_port = ${port}\n`);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'request.json'), opts.template ?? TEMPLATE);
  if (opts.cases) writeFileSync(join(dir, 'cases.toml'), opts.cases);
  const lines: string[] = [];
  const run = (flags: Record<string, unknown> = {}) =>
    runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir, AGENT_TOKEN: SECRET }, err: (l) => lines.push(l), warn: (l) => lines.push(`warning: ${l}`) },
      { targets: ['cases.toml'], flags: { target: 'agent', out: join(dir, 'results.json'), quietMs: 50, ...flags } },
    );
  return { model, dir, lines, run };
}

describe('http targets', () => {
  it('scores 8 concurrent cases from the traces the agent exports, matched by trace id', async () => {
    const { run, lines, dir, model } = await setup();
    const outcome = await run({ samples: 4, concurrency: 8 });
    const result = outcome.runs[0]!.result;
    for (const r of result.results) {
      const cats = r.samples.map((s) => (s as { verdict: { category: string; reason: string } }).verdict);
      expect(cats.map((v) => v.category)).toEqual(Array(4).fill(r.caseId === 'weather-paris' ? 'pass' : 'wrong_tool'));
      for (const v of cats) expect(v.reason).toContain('calls read from the trace');
    }
    expect(lines.join('\n')).toMatch(/target agent \(http\): the run receives the agent's traces at OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+/);
    // Every request carried a traceparent, and the template's env value never reached any output.
    expect(model.chatRequests()).toHaveLength(8);
    expect(lines.join('\n') + readFileSync(join(dir, 'results.json'), 'utf8')).not.toContain(SECRET);
    expect(result.doc.meta).toMatchObject({ target: { name: 'agent', kind: 'http' } });
  });

  it('reads calls from the response when the agent emits no trace, and says so', async () => {
    const { run } = await setup({ agentEnv: { NO_EXPORT: '1' } });
    const outcome = await run();
    const v = Object.fromEntries(
      outcome.runs[0]!.result.results.map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string; reason: string } }).verdict]),
    );
    expect(v['weather-paris']).toMatchObject({ category: 'pass', reason: expect.stringContaining('calls read from the response: tool_calls') });
    expect(v['time-tokyo']).toMatchObject({ category: 'wrong_tool' });
  });

  it('sends a prompt with a quote, a newline and }} through the template as written', async () => {
    const prompt = 'Say "hi"\nthen }} and {{ stop';
    const { run, model } = await setup({ cases: `[[eval]]\nid = "odd"\nprompt = ${JSON.stringify(prompt)}\nexpect_tool = "get_weather"\n` });
    await run();
    const sent = model.chatRequests()[0]!.json.messages;
    expect(sent).toEqual([{ role: 'user', content: prompt }]);
  });

  it('refuses an unknown placeholder with the template file and line (exit 2)', async () => {
    const { run, dir } = await setup({ template: '{\n  "body": {\n    "input": "{{promt}}"\n  }\n}\n' });
    await expect(run()).rejects.toMatchObject({ code: 'CONFIG', message: `${join(dir, 'request.json')}:3: unknown placeholder {{promt}}` });
  });
});
