// `runspec-eval serve` (the built CLI, as a process) counts final verdicts: GET /metrics on its own port,
// behind its token, and an OTLP push with OTEL_METRICS_EXPORTER=otlp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLI, runCli } from '../helpers/run-cli.js';
import { request, span } from '../traces/_otlp.js';
import { tempProject } from './_helpers.js';

const TOKEN = 'metrics-e2e-token';
const SUITE = { cases: [{ id: 'find-todos', user_prompt: 'find TODOs', expected_actions: [{ tool: 'grep', args: { pattern: 'TODO' } }] }] };

function trace(t: number, tool: string) {
  return request([
    span({
      trace: t,
      id: 1,
      name: 'invoke_agent',
      start: 0,
      end: 100,
      attrs: { 'gen_ai.operation.name': 'invoke_agent', 'runspec.eval.case_id': 'find-todos' },
    }),
    span({
      trace: t,
      id: 2,
      parent: 1,
      name: 'chat m',
      start: 1,
      end: 10,
      attrs: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'find todo markers' }] }]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: `c${t}`, name: tool, arguments: { pattern: 'TODO' } }] },
        ]),
      },
    }),
  ]);
}

let project: ReturnType<typeof tempProject>;
let child: ChildProcess;
let url = '';
let stderr = '';
let collector: Server;
const pushed: Array<{ path: string; body: string }> = [];

beforeAll(async () => {
  project = tempProject('runspec-serve-metrics-');
  project.write('suite.json', JSON.stringify(SUITE));
  collector = createServer((req, res) => {
    let b = '';
    req
      .setEncoding('utf8')
      .on('data', (c: string) => (b += c))
      .on('end', () => {
        pushed.push({ path: req.url ?? '', body: b });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const otlp = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  // Verdicts count once final: with the revision model that is when --reopen-window closes (keep it short).
  const help = await runCli(['serve', '--help']);
  const reopen = help.stdout.includes('--reopen-window') ? ['--reopen-window', '500'] : [];
  child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet-ms', '100', ...reopen, '--cases', 'suite.json', '--token-env', 'SERVE_TOKEN'], {
    cwd: project.dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: project.dir,
      XDG_CONFIG_HOME: project.dir,
      TMPDIR: project.dir,
      SERVE_TOKEN: TOKEN,
      OTEL_METRICS_EXPORTER: 'prometheus,otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout!.resume();
  const deadline = Date.now() + 20_000;
  while (!/listening on (http:\S+)/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  url = /listening on (http:\S+)/.exec(stderr)![1]!;
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
  }
  await new Promise((r) => collector?.close(r));
  project?.cleanup();
});

async function metricsText(): Promise<string> {
  return (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
}

describe('serve verdict metrics', () => {
  it('serves /metrics behind the token, counting each judged verdict once', async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    for (const [t, tool] of [
      [1, 'glob'],
      [2, 'glob'],
      [3, 'grep'],
    ] as const) {
      const res = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(trace(t, tool)),
      });
      expect(res.status).toBe(200);
    }
    const deadline = Date.now() + 20_000;
    let text = await metricsText();
    while (!/runspec_verdicts_calls_total\{[^}]*runspec_eval_pass="true"[^}]*\} 1/.test(text) || !/runspec_eval_pass="false"[^}]*\} 2/.test(text)) {
      if (Date.now() > deadline) throw new Error(`counters never reached 2 failing + 1 passing:\n${text}`);
      await new Promise((r) => setTimeout(r, 100));
      text = await metricsText();
    }
    expect(text).toMatch(/# TYPE runspec_verdicts_calls_total counter/);
    expect(text).not.toContain(TOKEN);
  });

  it('pushes the same counter over OTLP on shutdown', async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const metrics = pushed.filter((p) => p.path === '/v1/metrics');
    expect(metrics.length).toBeGreaterThan(0);
    const last = JSON.parse(metrics[metrics.length - 1]!.body) as {
      resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string; sum: { dataPoints: Array<{ asInt: string | number }> } }> }> }>;
    };
    const m = last.resourceMetrics[0]!.scopeMetrics[0]!.metrics.find((x) => x.name === 'runspec.verdicts.calls')!;
    expect(m.sum.dataPoints.map((d) => Number(d.asInt)).sort((a, b) => a - b)).toEqual([1, 2]);
  });
});

describe('run verdict metrics', () => {
  it('demo (run) with OTEL_METRICS_EXPORTER=otlp pushes one count per sample verdict', async () => {
    const dir = tempProject('runspec-run-metrics-');
    const bodies: string[] = [];
    const sink = createServer((req, res) => {
      let b = '';
      req
        .setEncoding('utf8')
        .on('data', (c: string) => (b += c))
        .on('end', () => {
          if (req.url === '/v1/metrics') bodies.push(b);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    try {
      const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/metrics`;
      const r = await runCli(['--path', dir.dir, 'demo', '--output', 'json'], {
        spawn: true,
        env: {
          HOME: dir.dir,
          XDG_CONFIG_HOME: dir.dir,
          TMPDIR: dir.dir,
          OTEL_METRICS_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as { iterations: Array<{ cases: Record<string, { runs: unknown[] }> }> };
      const samples = Object.values(doc.iterations[0]!.cases).reduce((n, c) => n + c.runs.length, 0);
      expect(bodies.length).toBeGreaterThan(0);
      const last = JSON.parse(bodies[bodies.length - 1]!) as {
        resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string; sum: { dataPoints: Array<{ asInt: string | number }> } }> }> }>;
      };
      const m = last.resourceMetrics[0]!.scopeMetrics[0]!.metrics.find((x) => x.name === 'runspec.verdicts.calls')!;
      expect(m.sum.dataPoints.reduce((n, d) => n + Number(d.asInt), 0)).toBe(samples);
    } finally {
      await new Promise((r) => sink.close(r));
      dir.cleanup();
    }
  });
});
