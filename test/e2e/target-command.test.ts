import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEvalSuite } from '../../src/app/run-suite.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { AGENTS, SCRIPT, makeProject } from '../targets/_project.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

describe('command targets', () => {
  it.each([
    { name: 'on stdin', how: '' },
    { name: 'in an environment variable', how: 'prompt = "env"\n' },
  ])('scores a Node agent process from the trace it exports, prompt $name', async ({ how }) => {
    const model = await startFakeOpenAI({ script: SCRIPT });
    cleanup.push(() => model.close());
    const dir = makeProject(
      `[targets.agent]\nkind = "command"\ncommand = ["${process.execPath}", "${join(AGENTS, 'command-agent.mjs')}"]\n${how}vars = { base_url = "${model.url}" }\n`,
    );
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const outcome = await runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir, PATH: process.env.PATH }, err: () => {}, warn: () => {} },
      { targets: ['cases.toml'], flags: { target: 'agent', out: join(dir, 'results.json'), quietMs: 50 } },
    );
    const v = Object.fromEntries(
      outcome.runs[0]!.result.results.map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string; reason: string } }).verdict]),
    );
    expect(v['weather-paris']).toMatchObject({ category: 'pass', reason: expect.stringContaining('calls read from the trace') });
    expect(v['time-tokyo']).toMatchObject({ category: 'wrong_tool' });
    expect(outcome.exitCode).toBe(1);
  });

  it('reports a process that exits non-zero as an errored sample with its last stderr line (exit 3)', async () => {
    const dir = makeProject(`[targets.agent]\nkind = "command"\ncommand = ["${process.execPath}", "-e", "console.error('agent broke'); process.exit(4)"]\n`);
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const outcome = await runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir }, err: () => {}, warn: () => {} },
      { targets: ['cases.toml'], flags: { target: 'agent', out: join(dir, 'results.json'), quietMs: 20 } },
    );
    const s = outcome.runs[0]!.result.results[0]!.samples[0] as { status: string; error: { message: string } };
    expect(s.status).toBe('errored');
    expect(s.error.message).toMatch(/exited with 4: agent broke$/);
    expect(outcome.exitCode).toBe(3);
  });
});
