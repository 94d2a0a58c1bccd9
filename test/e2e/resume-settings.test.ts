import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/ports.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { restartSuite, tempProject } from './_helpers.js';

// Resume that cannot lie, whatever the source of a setting: the log header holds the resolved settings
// that change results (model, temperature, tool mode, base URL, system prompt...), so a change made in
// runspec.toml or the environment between a run and its --resume is refused like a changed flag.

const project = tempProject('runspec-resume-settings-');
afterAll(() => project.cleanup());
project.write('evals/two.toml', restartSuite(['a', 'b']));
// Case b fails as infrastructure, so the run exits 3 and leaves a resumable log.
project.write(
  'flaky.json',
  JSON.stringify({
    cases: { a: [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'svc0' } }] }], b: [{ error: { message: 'provider down' } }] },
  }),
);
const TOML = '[llm]\ntemperature = 0.2\nsystem_prompt = "be careful"\n';
const PASSWORD = 'hunter2-resume';
const QUERY_KEY = 'qk-resume-secret';

async function cli(args: string[], env: Record<string, string> = {}) {
  return runCli(['--path', project.dir, ...args], { cwd: project.dir, env: { HOME: project.dir, ...env } });
}

/** A fresh interrupted-looking run (exit 3) with runspec.toml as TOML; returns its log. */
async function firstRun(name: string): Promise<string> {
  writeFileSync(join(project.dir, 'runspec.toml'), TOML);
  const r = await cli(['run', 'evals/two.toml', '--provider', 'mock', '--script', 'flaky.json', '--no-telemetry', '--out', `${name}.json`]);
  expect(r.exitCode, r.stderr).toBe(3);
  return join(project.dir, `${name}.jsonl`);
}

function errorLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.startsWith('error'));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('--resume compares the resolved settings, not only the flags', { timeout: 60_000 }, () => {
  it('refuses a change made in runspec.toml or the environment, naming the setting and both values', async () => {
    const log = await firstRun('res');
    const header = JSON.parse(readFileSync(log, 'utf8').split('\n')[0]!);
    expect(header.options.resolved).toMatchObject({ temperature: 0.2, toolMode: 'dedup', model: null });

    writeFileSync(join(project.dir, 'runspec.toml'), TOML.replace('0.2', '0.7'));
    const temp = await cli(['run', '--resume', log]);
    expect(temp.exitCode).toBe(2);
    expect(errorLine(temp.stderr)).toMatch(/settings differ from the logged run \(temperature: 0\.2 → 0\.7\)/);

    writeFileSync(join(project.dir, 'runspec.toml'), TOML.replace('be careful', 'be bold'));
    const prompt = await cli(['run', '--resume', log]);
    expect(prompt.exitCode).toBe(2);
    expect(errorLine(prompt.stderr)).toMatch(/systemPrompt: "sha256:[0-9a-f]{12}" → "sha256:[0-9a-f]{12}"/);

    writeFileSync(join(project.dir, 'runspec.toml'), TOML);
    const model = await cli(['run', '--resume', log], { RUNSPEC_MODEL: 'other-model', RUNSPEC_TOOL_MODE: 'per_host' });
    expect(model.exitCode).toBe(2);
    expect(errorLine(model.stderr)).toMatch(/\(model: \(unset\) → "other-model", toolMode: "dedup" → "per_host"\)/);

    const port = await closedPort();
    const url = await cli(['run', '--resume', log], { RUNSPEC_BASE_URL: `http://user:${PASSWORD}@127.0.0.1:${port}/v1?api-key=${QUERY_KEY}` });
    expect(url.exitCode).toBe(2);
    expect(errorLine(url.stderr)).toContain(`baseUrl: (unset) → "http://***:***@127.0.0.1:${port}/v1?api-key=***")`);
    expect(url.stderr + url.stdout).not.toContain(PASSWORD);
    expect(url.stderr + url.stdout).not.toContain(QUERY_KEY);

    // Nothing was appended by the refused attempts.
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  // A model target's `system` was left out of the compared settings: a resume after editing it mixed two prompts.
  it("refuses a change of a model target's system prompt", async () => {
    const target = (system: string) => `${TOML}[targets.m]\nkind = "model"\nprovider = "mock"\nsystem = "${system}"\n`;
    writeFileSync(join(project.dir, 'runspec.toml'), target('be terse'));
    const r = await cli(['run', 'evals/two.toml', '--target', 'm', '--script', 'flaky.json', '--no-telemetry', '--out', 'target.json']);
    expect(r.exitCode, r.stderr).toBe(3);
    const log = join(project.dir, 'target.jsonl');
    writeFileSync(join(project.dir, 'runspec.toml'), target('be chatty'));
    const changed = await cli(['run', '--resume', log]);
    expect(changed.exitCode).toBe(2);
    expect(errorLine(changed.stderr)).toMatch(/systemPrompt: "sha256:[0-9a-f]{12}" → "sha256:[0-9a-f]{12}"/);
    writeFileSync(join(project.dir, 'runspec.toml'), target('be terse'));
    const same = await cli(['run', '--resume', log]);
    expect(same.stderr).toContain('1 of 2 cases already finished');
  });

  it('resumes when the resolved settings are the same', async () => {
    const log = await firstRun('same');
    const again = await cli(['run', '--resume', log]);
    expect(again.stderr).toContain('1 of 2 cases already finished');
    expect(again.exitCode).not.toBe(2);
  });

  // A relative --toolset used to be refused on resume: "settings differ (toolset: "ts.toml" → "/abs/ts.toml")".
  it('resumes with the log alone after a run given a relative --toolset (built CLI)', async () => {
    writeFileSync(join(project.dir, 'runspec.toml'), TOML);
    copyFileSync(join(REPO_ROOT, 'fixtures/toolsets/fleet.toml'), join(project.dir, 'ts.toml'));
    const env = { HOME: project.dir };
    const first = await runCli(
      [
        '--path',
        project.dir,
        'run',
        'evals/two.toml',
        '--toolset',
        'ts.toml',
        '--provider',
        'mock',
        '--script',
        'flaky.json',
        '--no-telemetry',
        '--out',
        'rel.json',
      ],
      { cwd: project.dir, env, spawn: true },
    );
    expect(first.exitCode, first.stderr).toBe(3);
    const again = await runCli(['run', '--resume', 'rel.jsonl'], { cwd: project.dir, env, spawn: true });
    expect(again.stderr).not.toContain('settings differ');
    expect(again.stderr).toContain('1 of 2 cases already finished');
    expect(again.exitCode).toBe(3);
  });

  it('resumes a log written before the resolved settings were stored (unknown is not a mismatch)', async () => {
    const log = await firstRun('old');
    const [first, ...rest] = readFileSync(log, 'utf8').split('\n');
    const header = JSON.parse(first!);
    delete header.options.resolved;
    writeFileSync(log, [JSON.stringify(header), ...rest].join('\n'));
    writeFileSync(join(project.dir, 'runspec.toml'), TOML.replace('0.2', '0.7'));
    const resumed = await cli(['run', '--resume', log]);
    expect(resumed.stderr).toContain('1 of 2 cases already finished');
    expect(resumed.exitCode).not.toBe(2);
  });
});

describe('--resume of something that is not a log', () => {
  it('a directory is one line and exit 2 (it was EISDIR, exit 3)', async () => {
    const r = await cli(['run', '--resume', project.dir]);
    expect(r.exitCode).toBe(2);
    expect(errorLine(r.stderr)).toBe(`error: ${project.dir}: a directory, not a results log`);
    expect(r.stderr).not.toMatch(/EISDIR|\n\s+at /);
  });
});
