import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { allText, casesOf, cliEnv, readJson, SECRET, tempProject } from './_helpers.js';

const SUITE = `
[[eval]]
id          = "restart-nginx"
prompt      = "restart nginx on web-01"
expect_tool = "restart-service"
expect_host = "web-01"
expect_args = { service = "nginx" }

[[eval]]
id            = "ambiguous"
prompt        = "delete everything"
expect_no_run = true
`;

describe('record and replay (live and replay CI tiers)', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE);
    model = await startFakeOpenAI({
      script: {
        'restart nginx on web-01': [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] }],
        'delete everything': [{ text: 'Which host and which path?' }],
      },
    });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('records a live run, then replays it keyless and offline with the same verdicts', async () => {
    const rec = await runCli(
      [
        '--path',
        project.dir,
        'record',
        'evals/ops.toml',
        '--out',
        'rec.json',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--results',
        'live.json',
        '--threshold',
        '1',
        '--no-telemetry',
      ],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(rec.exitCode).toBe(0);
    expect(readFileSync(join(project.dir, 'rec.json'), 'utf8')).not.toContain(SECRET);
    const live = casesOf(readJson(join(project.dir, 'live.json')));

    // No key, and a base URL where nothing listens: replay must not need either.
    const rep = await runCli(['--path', project.dir, 'replay', 'evals/ops.toml', '--script', 'rec.json', '--out', 'replayed.json'], {
      env: { HOME: project.dir },
      cwd: project.dir,
    });
    expect(rep.exitCode).toBe(0);
    const replayed = casesOf(readJson(join(project.dir, 'replayed.json')));
    // Same verdicts; only the replay (telemetry on) links its trace.
    const untraced = (v: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(v).filter(([k]) => !['trace_id', 'root_span_id', 'trace_url'].includes(k)));
    for (const id of ['restart-nginx', 'ambiguous']) expect(untraced(replayed[id].runs[0].verdict)).toEqual(untraced(live[id].runs[0].verdict));
    expect(allText(project.dir)).not.toContain(SECRET);
  });

  it('re-records one case: --merge keeps the other entries, without it they are dropped', async () => {
    const cases = (file: string): string[] =>
      [...new Set((readJson(join(project.dir, file)) as { entries: Array<{ case: string }> }).entries.map((e) => e.case))].sort();
    const args = (out: string, extra: string[] = []) => [
      '--path',
      project.dir,
      'record',
      'evals/ops.toml',
      '--fixture',
      'ambiguous',
      '--out',
      out,
      '--base-url',
      model.url,
      '--model',
      'fake-model',
      '--no-telemetry',
      ...extra,
    ];
    const base = await runCli(
      ['--path', project.dir, 'record', 'evals/ops.toml', '--out', 'merge.json', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry'],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(base.exitCode).toBe(0);
    expect(cases('merge.json')).toEqual(['ambiguous', 'restart-nginx']);
    const merged = await runCli(args('merge.json', ['--merge']), { env: cliEnv(project.dir), cwd: project.dir });
    expect(merged.exitCode).toBe(0);
    expect(cases('merge.json')).toEqual(['ambiguous', 'restart-nginx']);
    const replaced = await runCli(args('merge.json'), { env: cliEnv(project.dir), cwd: project.dir });
    expect(replaced.exitCode).toBe(0);
    expect(cases('merge.json')).toEqual(['ambiguous']);
  });

  it('exits 2 with a stale-recording message when the case changed since it was recorded', async () => {
    project.write('evals/changed.toml', SUITE.replace('restart nginx on web-01', 'restart nginx on web-02, please'));
    const rep = await runCli(['--path', project.dir, 'replay', 'evals/changed.toml', '--script', 'rec.json', '--no-telemetry'], {
      env: { HOME: project.dir },
      cwd: project.dir,
    });
    expect(rep.exitCode).toBe(2);
    expect(rep.stderr).toMatch(/stale|changed|record/i);
  });

  it('record exits 1 below the threshold but still writes the recording', async () => {
    const wrong = await startFakeOpenAI({ toolCall: { name: 'service-status', arguments: { host: 'web-01', service: 'nginx' } } });
    try {
      const rec = await runCli(
        [
          '--path',
          project.dir,
          'record',
          'evals/ops.toml',
          '--fixture',
          'restart-nginx',
          '--out',
          'rec-bad.json',
          '--base-url',
          wrong.url,
          '--model',
          'fake-model',
          '--no-telemetry',
        ],
        {
          env: cliEnv(project.dir),
          cwd: project.dir,
        },
      );
      expect(rec.exitCode).toBe(1);
      expect(readdirSync(project.dir)).toContain('rec-bad.json');
    } finally {
      await wrong.close();
    }
  });
});

describe('demo', { timeout: 120_000 }, () => {
  const project = tempProject();
  afterAll(() => project.cleanup());

  it('runs the bundled suites on the bundled recording: no key, no network, not stale, exit 0', async () => {
    const cli = await runCli(['--path', project.dir, 'demo'], { env: { HOME: project.dir }, cwd: project.dir });
    expect(cli.stderr).not.toMatch(/stale|error:/i);
    expect(cli.exitCode).toBe(0);
    expect(cli.stderr).toMatch(/demo: \d+ of \d+ cases pass/);
    // The deliberate wrong answers show as failing verdicts.
    expect(cli.stdout).toContain('status-not-restart');
    expect(cli.stdout).toContain('forbidden_tool');
    // Traces went to the embedded default file sink.
    expect(readdirSync(join(project.dir, '.runspec/traces')).length).toBeGreaterThan(0);
  });
});
