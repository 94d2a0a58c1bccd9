// The packed tarball installed without the optional peers (gRPC, the MCP SDK), driven through every command
// as a user runs it: node_modules/.bin/runspec-eval in an empty project, its own HOME each time. This is the
// tier that sees what the bundle does (the bundled CLI once failed every Phoenix, LangSmith and doctor call
// with "UndiciAgent is not a constructor" while every in-process test passed).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { runInstalled, startInstalled, stop, waitForOutput } from './_cli.js';

const { bare } = inject('packed');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
const KEY = 'sk-packed-secret';
const proj = join(bare, 'work');
let model: FakeModelServer;
let sink: OtlpSink;

const run = (args: string[], env: Record<string, string> = {}) =>
  runInstalled(bare, ['--path', proj, ...args], { cwd: proj, env: { OPENAI_API_KEY: KEY, ...env } });
const verdictExit = (code: number | null): void => expect([0, 1]).toContain(code);

beforeAll(async () => {
  model = await startFakeOpenAI({ toolCall: { name: 'restart-service', arguments: { service: 'nginx', host: 'web-01' } } });
  sink = await startOtlpSink();
  mkdirSync(join(proj, 'evals'), { recursive: true });
  writeFileSync(
    join(proj, 'evals', 'ops.toml'),
    '[[eval]]\nid = "restart-nginx"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\nexpect_host = "web-01"\n\n' +
      '[[eval]]\nid = "status-api"\nprompt = "is the api up on web-02?"\nexpect_tool = "service-status"\n',
  );
  writeFileSync(
    join(proj, 'runspec.toml'),
    `[providers.good]\nkind = "openai"\nbase_url = "${model.url}"\nmodel = "good-model"\napi_key_env = "OPENAI_API_KEY"\n\n` +
      `[providers.bad]\nkind = "openai"\nbase_url = "${model.url}"\nmodel = "bad-model"\napi_key_env = "OPENAI_API_KEY"\n`,
  );
});
afterAll(async () => {
  await model.close();
  await sink.close();
});

describe('the installed CLI (without the optional peers)', () => {
  it('--help, list, validate, schema, config', async () => {
    const help = await runInstalled(bare, ['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/Usage: runspec-eval/);
    const list = await run(['list']);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/restart-nginx/);
    expect(list.stdout).toMatch(/fleet/);
    const validate = await run(['validate', '--toolset', 'builtin:fleet', 'evals/ops.toml']);
    expect(validate.exitCode, validate.stderr).toBe(0);
    const schema = await run(['schema', 'results']);
    expect(schema.exitCode).toBe(0);
    expect(JSON.parse(schema.stdout)).toHaveProperty('$schema');
    const config = await run(['config'], { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    expect(config.exitCode).toBe(0);
    expect(config.stdout).toMatch(/telemetry/);
  });

  it('run (OTLP/HTTP protobuf to a receiver), report, record, replay, compare, merge', async () => {
    const r = await run(['run', 'evals/ops.toml', '--provider', 'openai', '--base-url', model.url, '--model', 'fake-model', '--out', 'out/run.json'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    });
    verdictExit(r.exitCode);
    expect(r.stderr).not.toMatch(/warning|error/i);
    expect(model.chatRequests().length).toBeGreaterThanOrEqual(2);
    expect(sink.requests.every((q) => q.contentType === 'application/x-protobuf')).toBe(true);
    expect(
      sink
        .spans()
        .filter((s) => !s.parentSpanId)
        .map((s) => String(s.attributes['runspec.eval.case_id']))
        .sort(),
    ).toEqual(['restart-nginx', 'status-api']);
    expect(r.stdout + r.stderr).not.toContain(KEY);

    const report = await run(['report', 'out/run.json', '--output', 'junit']);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/<testsuites/);

    const rec = await run(['record', 'evals/ops.toml', '--out', 'rec.json', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry']);
    verdictExit(rec.exitCode);
    expect(existsSync(join(proj, 'rec.json'))).toBe(true);
    const replay = await run(['replay', 'evals/ops.toml', '--script', 'rec.json', '--no-telemetry', '--out', 'out/replayed.json']);
    verdictExit(replay.exitCode);
    expect(JSON.parse(readFileSync(join(proj, 'out/replayed.json'), 'utf8'))).toHaveProperty('iterations');

    const cmp = await run(['compare', 'good,bad', 'evals/ops.toml', '--output', 'json', '--no-telemetry']);
    verdictExit(cmp.exitCode);
    expect(cmp.stdout).toMatch(/good/);

    for (const shard of ['1/2', '2/2']) {
      const s = await run([
        'run',
        'evals/ops.toml',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--no-telemetry',
        '--shard',
        shard,
        '--out',
        `out/s${shard[0]}.json`,
      ]);
      verdictExit(s.exitCode);
    }
    const merged = await run(['merge', 'out/s1.json', 'out/s2.json', '--out', 'out/merged.json']);
    verdictExit(merged.exitCode);
    const doc = JSON.parse(readFileSync(join(proj, 'out/merged.json'), 'utf8')) as { iterations: Array<{ cases: Record<string, unknown> }> };
    expect(Object.keys(doc.iterations[0]!.cases).sort()).toEqual(['restart-nginx', 'status-api']);
  });

  it('demo writes traces to files; score reads them back; serve scores OTLP/JSON posted to it', async () => {
    const demo = await runInstalled(bare, ['--path', join(proj, 'demo'), 'demo'], { cwd: proj });
    expect(demo.exitCode, demo.stderr).toBe(0);
    expect(demo.stdout + demo.stderr).toMatch(/demo: \d+ of \d+ cases pass/);
    const traceDir = join(proj, 'demo', '.runspec', 'traces');
    const files = readdirSync(traceDir);
    expect(files.length).toBeGreaterThan(0);

    const score = await runInstalled(bare, ['--path', join(proj, 'demo'), 'score', traceDir, '--output', 'jsonl'], { cwd: proj });
    verdictExit(score.exitCode);
    expect(score.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(() =>
      score.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).not.toThrow();

    const serve = startInstalled(bare, ['--path', proj, 'serve', '--port', '0', '--quiet-ms', '50', '--rules', join(REPO_ROOT, 'examples', 'rules.toml')], {
      cwd: proj,
    });
    try {
      const [, url] = await waitForOutput(serve, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const line = readFileSync(join(traceDir, files[0]!), 'utf8').split('\n').find(Boolean)!;
      const ok = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: line });
      expect(ok.status).toBe(200);
      const bad = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans": [' });
      expect(bad.status).toBe(400);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      expect(await stop(serve)).not.toBeNull();
    }
  });

  it('import bfcl, schedule add and list, optimize, ui', async () => {
    const bfcl = await run(['import', 'bfcl', join(REPO_ROOT, 'test/fixtures/bfcl/BFCL_v4_irrelevance.json'), '--out', 'bfcl.json']);
    expect(bfcl.exitCode, bfcl.stderr).toBe(0);
    expect(existsSync(join(proj, 'bfcl.json'))).toBe(true);

    const add = await run(['schedule', 'add', '--id', 'nightly', '--fixture', 'fleet', '--cron', '0 6 * * *']);
    expect(add.exitCode, add.stderr).toBe(0);
    const list = await run(['schedule', 'list', '--output', 'json']);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/nightly/);

    const suite = {
      defaults: { n_runs: 1 },
      cases: [
        {
          id: 'fix-typo',
          user_prompt: 'Fix the typo in a.py',
          setup: { files: { 'a.py': 'pritn("hi")\n' } },
          expected_actions: [{ tool: 'read_file', args: { path: 'a.py' } }],
        },
      ],
    };
    writeFileSync(join(proj, 'suite.json'), JSON.stringify(suite));
    const opt = await run([
      'optimize',
      'suite.json',
      '--provider',
      'openai',
      '--base-url',
      model.url,
      '--model',
      'fake-model',
      '--out',
      'opt',
      '--no-optimize',
    ]);
    expect(opt.stderr).not.toMatch(/error:/i);
    verdictExit(opt.exitCode);

    const ui = startInstalled(bare, ['--path', proj, 'ui', '--port', '0'], { cwd: proj });
    try {
      const [, url] = await waitForOutput(ui, /console: (http:\/\/127\.0\.0\.1:\d+\/)/);
      const page = await fetch(url!);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    } finally {
      await stop(ui);
    }
  });

  it.each([
    ['serve --grpc', ['serve', '--port', '0', '--grpc', '0'], {}, '@grpc/grpc-js'],
    [
      'run with OTLP/gRPC export',
      ['run', 'evals/ops.toml', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      '@grpc/grpc-js',
    ],
    ['an mcp: toolset', ['validate', '--toolset', `mcp:${process.execPath} server.mjs`, 'evals/ops.toml'], {}, '@modelcontextprotocol/sdk'],
  ])('%s without the optional peer: exit 2 and the one install line', async (_name, args, env, peer) => {
    const r = await run(args as string[], env as Record<string, string>);
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`npm install -D ${peer}@${pkg.peerDependencies[peer]}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('installs none of the optional peers nor the servers the MCP SDK brings', () => {
    const nm = join(bare, 'node_modules');
    for (const name of ['@grpc/grpc-js', '@opentelemetry/exporter-trace-otlp-grpc', '@modelcontextprotocol/sdk', 'express', 'hono', 'jose'])
      expect(existsSync(join(nm, name)), name).toBe(false);
    expect(existsSync(join(nm, 'undici'))).toBe(true);
  });
});
