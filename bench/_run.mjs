// Run benchmarks: `runspec-eval run` as a process against a fake OpenAI server (its own process), next to
// the floor: a bare undici loop (its own process) sending the same requests at the same concurrency.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLayout } from '../dist/toolset/layout.js';
import { toOpenAITools } from '../dist/providers/tools-wire.js';
import { loadToolset } from '../dist/toolset/index.js';
import { DEFAULT_DECISION_SYSTEM_PROMPT } from '../dist/engine/run-case.js';

const here = new URL('.', import.meta.url).pathname;
const cli = join(here, '..', 'dist', 'cli', 'main.js');

/** Start the fake model (and OTLP sink) in its own process. */
export async function startFakeModel(latencyMs = 0) {
  const child = spawn(process.execPath, [join(here, '_fake-openai.mjs')], { env: { ...process.env, LATENCY_MS: String(latencyMs) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`fake model exited ${code}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    /** Mean and max chat requests in flight since the last reset (a fresh server per measurement). */
    stats: async () => (await fetch(`${origin}/stats`)).json(),
    close: () => child.kill('SIGTERM'),
  };
}

/** Run a process to its end; resolves with wall ms, exit code, peak RSS (when preloaded) and output. */
export function timed(args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', opts.keepStdout ? 'pipe' : 'ignore', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 600_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t;
      const m = /BENCH_MAX_RSS (\d+)/.exec(stderr);
      const cpu = /BENCH_CPU_US (\d+)/.exec(stderr);
      resolve({ ms, code, rss: m ? Number(m[1]) : undefined, cpuMs: cpu ? Number(cpu[1]) / 1000 : undefined, stdout, stderr });
    });
  });
}

const HOSTS = ['web-01', 'web-02', 'web-03'];

/** A runspec fixture file of decision cases [from, to) (one suite). */
export function fixtureText(n, from = 0) {
  const parts = [];
  for (let i = from; i < n; i++) {
    parts.push(`[[eval]]\nid = "case-${i}"\nprompt = "restart nginx on ${HOSTS[i % 3]} (ticket ${i})"\nexpect_tool = "restart-service"\nexpect_host = "${HOSTS[i % 3]}"\nexpect_args = { service = "nginx" }\ntags = ["bench"]\n`);
  }
  return parts.join('\n');
}

/** The requests `run` sends for those cases: the shared body (model, params, tools) and each prompt. */
export async function requestBodies(n, dir) {
  const toolset = await loadToolset('builtin:fleet', { projectDir: dir, env: {} });
  const tools = toOpenAITools(createLayout('dedup', toolset).tools());
  const prompts = Array.from({ length: n }, (_, i) => `restart nginx on ${HOSTS[i % 3]} (ticket ${i})`);
  return JSON.stringify({ template: { model: 'bench-model', temperature: 0.7, stream: false, tools, tool_choice: 'auto' }, system: DEFAULT_DECISION_SYSTEM_PROMPT, prompts });
}

/**
 * One comparison at `cases` cases: the bare loop and `run` (each a fresh process), against the same
 * server. `telemetry`: also a run with traces exported over OTLP/HTTP to a bare receiver.
 */
export async function benchRun({ cases, concurrency = 8, latencyMs = 0, telemetry = false, telemetryEnv = {}, bare = true, timeoutMs = 600_000 }) {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-bench-run-'));
  const model = await startFakeModel(latencyMs);
  try {
    // Files of at most 50,000 cases (a fixture file is capped at 64 MiB; test/fixtures times one 100k file by hand).
    const fixtures = [];
    for (let from = 0; from < cases; from += 50_000) {
      const file = join(dir, `bench-${fixtures.length}.toml`);
      writeFileSync(file, fixtureText(Math.min(cases, from + 50_000), from));
      fixtures.push(file);
    }
    const bodies = join(dir, 'requests.json');
    writeFileSync(bodies, await requestBodies(cases, dir));
    const env = { OPENAI_API_KEY: 'sk-bench', RUNSPEC_TELEMETRY: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined };
    const runArgs = (extra) => [...(process.env.BENCH_RUN_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--import', join(here, '_rss.mjs'), cli, 'run', ...fixtures, '--base-url', model.url, '--model', 'bench-model', '--toolset', 'builtin:fleet',
      '--concurrency', String(concurrency), '--max-requests', String(concurrency), '--output', 'json', '--out', join(dir, 'results.json'), ...extra];
    const out = { cases, concurrency, latencyMs };
    if (bare) {
      await model.stats();
      const b = await timed(['--import', join(here, '_rss.mjs'), join(here, '_bare-loop.mjs'), model.url, bodies, String(concurrency)], { cwd: dir, timeoutMs });
      if (b.code !== 0) throw new Error(`bare loop failed: ${b.stderr.slice(-500)}`);
      out.bareMs = b.ms;
      out.bareRss = b.rss;
      out.bareCpuMs = b.cpuMs;
      out.bareMeanInFlight = (await model.stats()).meanInFlight;
    }
    await model.stats();
    const r = await timed(runArgs(['--no-telemetry']), { cwd: dir, env, timeoutMs });
    const inflight = await model.stats();
    out.meanInFlight = inflight.meanInFlight;
    // First request in to last answer out, as the server saw it: the run loop without process start-up.
    out.spanMs = inflight.spanMs;
    out.maxInFlight = inflight.maxInFlight;
    if (r.code !== 0 && r.code !== 1) throw new Error(`run failed (${r.code}): ${r.stderr.slice(-800)}`);
    out.runMs = r.ms;
    out.runRss = r.rss;
    out.runCpuMs = r.cpuMs;
    if (telemetry) {
      const t = await timed(runArgs(['--telemetry', '--endpoint', `${model.origin}/v1/traces`]), { cwd: dir, env: { ...env, ...telemetryEnv }, timeoutMs });
      if (t.code !== 0 && t.code !== 1) throw new Error(`run --telemetry failed (${t.code}): ${t.stderr.slice(-800)}`);
      out.telemetryMs = t.ms;
      out.telemetryRss = t.rss;
      out.telemetryCpuMs = t.cpuMs;
    }
    return out;
  } finally {
    model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
