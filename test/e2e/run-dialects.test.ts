import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import {
  allText,
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

// End to end: the CLI (main() in-process), against a scripted OpenAI-compatible server, on all three dialects.

const RUNSPEC_SUITE = RUNSPEC_RESTART_AND_STATUS;
const REPLIO_FIXTURE = REPLIO_READ_APP;
const TURNSTONE_SUITE = TURNSTONE_CREATE_HELLO;

describe('run, end to end against a scripted OpenAI-compatible server', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/fleet.toml', RUNSPEC_SUITE);
    project.write('evals/read-app.json', JSON.stringify(REPLIO_FIXTURE));
    project.write('evals/workspace.json', JSON.stringify(TURNSTONE_SUITE));
    model = await startFakeOpenAI({
      script: {
        'restart nginx on web-01': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] }],
        'is nginx running on web-02?': [{ toolCalls: [{ name: 'service-status', arguments: { host: 'web-02', service: 'nginx' } }] }],
        ...TRAJECTORY_ANSWERS,
      },
    });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('scores a runspec suite in decision mode, exits 0, and never leaks the API key', async () => {
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        join(project.dir, 'evals/fleet.toml'),
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--out',
        join(project.dir, 'out/runspec.json'),
      ],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(0);
    expect(cli.stdout).toContain('restart-nginx');
    const chat = model.chatRequests().filter((r) => r.json.messages.some((m: any) => m.content === 'restart nginx on web-01'));
    expect(chat[0]!.json.tools.map((t: any) => t.function.name)).toContain('restart-service');
    // The key crosses the wire to the model, and nowhere else.
    expect(chat[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const doc = readJson(join(project.dir, 'out/runspec.json'));
    const cases = casesOf(doc);
    expect(cases['restart-nginx'].runs[0].verdict.category).toBe('pass');
    expect(cases['restart-nginx'].runs[0].verdict.observed.host).toBe('web-01');
    expect(cases['status-check'].meets_threshold).toBe(true);
    expect(existsSync(join(project.dir, 'out/runspec.jsonl'))).toBe(true);
    // Telemetry went to the embedded default under the project.
    expect(readdirSync(join(project.dir, '.runspec/traces')).length).toBeGreaterThan(0);
    expect(cli.stdout + cli.stderr + allText(project.dir)).not.toContain(SECRET);
  });

  it('lays the toolset out as --tool-mode says and scores the call the search way', async () => {
    const search = await startFakeOpenAI({
      toolCall: { name: 'run_runnable', arguments: { id: 'restart-service', host: 'web-01', args: { service: 'nginx' } } },
    });
    try {
      const cli = await runCli(
        [
          '--path',
          project.dir,
          'run',
          'evals/fleet.toml',
          '--fixture',
          'restart-nginx',
          '--tool-mode',
          'search',
          '--base-url',
          search.url,
          '--model',
          'fake-model',
          '--no-telemetry',
          '--out',
          'out/search.json',
        ],
        { env: cliEnv(project.dir), cwd: project.dir },
      );
      expect(cli.exitCode).toBe(0);
      const offered = search.chatRequests()[0]!.json.tools.map((t: any) => t.function.name);
      expect(offered).toContain('run_runnable');
      expect(offered).not.toContain('restart-service');
      const run = casesOf(readJson(join(project.dir, 'out/search.json')))['restart-nginx'].runs[0];
      expect(run.verdict).toMatchObject({ category: 'pass', tool_mode: 'search', observed: { tool: 'restart-service', host: 'web-01' } });
    } finally {
      await search.close();
    }
  });

  it('with --validate-args grades an out-of-range argument as a bounce and exits 1', async () => {
    project.write(
      'evals/scale.toml',
      '[[eval]]\nid = "scale-api"\nprompt = "scale api"\nexpect_tool = "scale-deployment"\nexpect_args = { deployment = "api" }\n',
    );
    const scale = await startFakeOpenAI({ toolCall: { name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api', replicas: 99 } } });
    try {
      const cli = await runCli(
        [
          '--path',
          project.dir,
          'run',
          'evals/scale.toml',
          '--validate-args',
          '--base-url',
          scale.url,
          '--model',
          'fake-model',
          '--no-telemetry',
          '--out',
          'out/scale.json',
        ],
        { env: cliEnv(project.dir), cwd: project.dir },
      );
      expect(cli.exitCode).toBe(1);
      expect(casesOf(readJson(join(project.dir, 'out/scale.json')))['scale-api'].runs[0].verdict.category).toBe('out_of_range');
    } finally {
      await scale.close();
    }
  });

  it('runs a replio fixture in a worktree: the tool really executes and its result goes back to the model', async () => {
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        'evals/read-app.json',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--output',
        'json',
        '--out',
        'out/replio.json',
        '--no-telemetry',
      ],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(cli.exitCode).toBe(0);
    const second = model.chatRequests().find((r) => r.json.messages.some((m: any) => m.role === 'tool' && m.tool_call_id === 'call_r'));
    expect(second).toBeDefined();
    const toolMsg = second!.json.messages.find((m: any) => m.role === 'tool');
    expect(toolMsg.content).toContain('def main()');
    const run = casesOf(readJson(join(project.dir, 'out/replio.json')))['read-app'].runs[0];
    expect(run.replio).toMatchObject({ names: ['file_read'], accuracy: 1, pass: true, calls: 1, redundant: 0 });
    expect(JSON.parse(cli.stdout).iterations[0].cases['read-app'].pass_rate).toBe(1);
    // --output json is the results file itself, copied from disk (the run holds no document in memory).
    expect(cli.stdout).toBe(readFileSync(join(project.dir, 'out/replio.json'), 'utf8'));
  });

  it('runs a turnstone suite with its n_runs default and the exact match mode', async () => {
    const cli = await runCli(
      ['--path', project.dir, 'run', 'evals/workspace.json', '--base-url', model.url, '--model', 'fake-model', '--out', 'out/turnstone.json', '--no-telemetry'],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(cli.exitCode).toBe(0);
    const c = casesOf(readJson(join(project.dir, 'out/turnstone.json')))['create-hello'];
    expect(c.runs).toHaveLength(2);
    expect(c.runs.map((r: any) => r.match.pass)).toEqual([true, true]);
    expect(c.pass_rate).toBe(1);
  });
});
