// Round trip: a live `run` exports its traces (embedded default JSON-lines file, and OTLP/HTTP to `serve`),
// and scoring those traces offline gives the same verdicts as the live run, case by case and sample by sample.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { CLI, runCli, isolatedEnv } from '../helpers/run-cli.js';
import {
  casesOf,
  cliEnv,
  readJson,
  REPLIO_READ_APP,
  RUNSPEC_RESTART_AND_STATUS,
  SECRET,
  tempProject,
  TRAJECTORY_ANSWERS,
  TURNSTONE_CREATE_HELLO,
} from './_helpers.js';
import { verdictLines } from '../helpers/verdict-lines.js';

const RUNSPEC_SUITE = `${RUNSPEC_RESTART_AND_STATUS}
[[eval]]
id          = "restart-wrong-args"
prompt      = "restart redis on web-01"
expect_tool = "restart-service"
expect_args = { service = "redis" }

[[eval]]
id            = "should-clarify"
prompt        = "delete everything"
expect_no_run = true
`;

const REPLIO_FIXTURE = REPLIO_READ_APP;
const TURNSTONE_SUITE = TURNSTONE_CREATE_HELLO;

type Key = string;
const key = (caseId: string, sample: number): Key => `${caseId}#${sample}`;

/** case#sample → category, from a results document. */
function liveVerdicts(file: string): Map<Key, string> {
  const out = new Map<Key, string>();
  for (const [id, entry] of Object.entries(casesOf(readJson(file)))) {
    for (const run of (entry as { runs: Array<{ sample: number; verdict: { category: string } | null }> }).runs) {
      if (run.verdict) out.set(key(id, run.sample), run.verdict.category);
    }
  }
  return out;
}

/** case#sample → category, from score/serve verdict lines (case lines only). */
function offlineVerdicts(stdout: string): Map<Key, string> {
  const out = new Map<Key, string>();
  for (const v of verdictLines(stdout)) if (v.case && v.category) out.set(key(v.case, v.sample), v.category);
  return out;
}

describe('round trip: live run → exported traces → offline score', { timeout: 180_000 }, () => {
  const project = tempProject('runspec-roundtrip-');
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/fleet.toml', RUNSPEC_SUITE);
    project.write('evals/read-app.json', JSON.stringify(REPLIO_FIXTURE));
    project.write('evals/workspace.json', JSON.stringify(TURNSTONE_SUITE));
    model = await startFakeOpenAI({
      script: {
        'restart nginx on web-01': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] }],
        'is nginx running on web-02?': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }] }],
        'restart redis on web-01': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] }],
        'delete everything': [{ text: 'Which host do you mean?' }],
        ...TRAJECTORY_ANSWERS,
      },
    });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('scores the embedded default trace file to the same verdicts as the live run', async () => {
    const live = await runCli(
      ['--path', project.dir, 'run', 'evals/', '--base-url', model.url, '--model', 'fake-model', '--capture-content', '--out', 'out/live.json'],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(live.stderr).not.toMatch(/^error/m);
    const expected = liveVerdicts(join(project.dir, 'out/live.json'));
    expect(new Set(expected.values())).toEqual(new Set(['pass', 'forbidden_tool', 'wrong_args']));
    expect(expected.size).toBe(7);
    expect(readdirSync(join(project.dir, '.runspec/traces')).length).toBeGreaterThan(0);

    const offline = await runCli(['--path', project.dir, 'score', '.runspec/traces', '--cases', 'evals'], { env: cliEnv(project.dir), cwd: project.dir });
    expect(offline.stderr).toMatch(/uninterpretable: 0/);
    expect(offlineVerdicts(offline.stdout)).toEqual(expected);
    expect(offline.exitCode).toBe(live.exitCode === 0 ? 0 : 1);
    expect(offline.stdout + offline.stderr).not.toContain(SECRET);
  });

  it('scores traces exported to serve as the OTLP endpoint to the same verdicts as the live run', async () => {
    const serve = spawn(process.execPath, [CLI, '--path', project.dir, 'serve', '--port', '0', '--quiet-ms', '200', '--cases', 'evals'], {
      cwd: project.dir,
      env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), HOME: project.dir },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    serve.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    serve.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((r) => serve.on('close', (code) => r(code)));
    try {
      let url: string | undefined;
      for (let i = 0; i < 600 && !url; i++) {
        url = /listening on (http:\/\/[^\s]+)/.exec(stderr)?.[1];
        if (!url) await new Promise((r) => setTimeout(r, 50));
      }
      expect(url, stderr).toBeDefined();
      const live = await runCli(
        [
          '--path',
          project.dir,
          'run',
          'evals/',
          '--base-url',
          model.url,
          '--model',
          'fake-model',
          '--capture-content',
          '--endpoint',
          `${url}/v1/traces`,
          '--out',
          'out/live-serve.json',
        ],
        { env: cliEnv(project.dir), cwd: project.dir },
      );
      expect(live.stderr).not.toMatch(/^error|telemetry:.*failed/m);
      const expected = liveVerdicts(join(project.dir, 'out/live-serve.json'));
      for (let i = 0; i < 200 && offlineVerdicts(stdout).size < expected.size; i++) await new Promise((r) => setTimeout(r, 50));
      expect(offlineVerdicts(stdout)).toEqual(expected);
    } finally {
      serve.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/uninterpretable: 0/);
  });
});
