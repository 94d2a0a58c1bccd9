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

// Its own file: the module's global provider stays registered for the rest of the process.
describe('a module with its own tracer provider', () => {
  it('scores a module that registers its own global provider, and says how its own spans reach the run', async () => {
    const { verdicts, lines } = await runTarget('module', `module = "${AGENTS}own-provider.mjs"\nvars = { base_url = "BASE_URL" }`);
    expect(lines.join('\n')).toMatch(
      /the module registers its own global tracer provider; the run's stays registered, so what its instrumentation records through the global API is captured in process, and spans of its own provider reach the run only if it exports them to http:\/\/127\.0\.0\.1:\d+/,
    );
    // Its register() also meets the run's context manager and propagator: expected, so no diag warning.
    expect(lines.filter((l) => l.startsWith('warning:'))).toEqual([]);
    expect(verdicts['weather-paris']).toMatchObject({ status: 'scored', verdict: { category: 'pass' } });
    expect(verdicts['time-tokyo']).toMatchObject({ status: 'scored', verdict: { category: 'wrong_tool' } });
  });
});
