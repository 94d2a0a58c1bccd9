// npm run bench — throughput as a fraction of a floor measured in the same run, on the same data (these
// machines are shared and noisy: read the fractions, not the milliseconds). 1.00 = as fast as the floor.
//
//   run, N cases, concurrency 8   vs  a bare undici loop sending the same requests to the same fake server
//   run at 200 ms model latency   vs  the ideal: ceil(cases / concurrency) × 200 ms
//   telemetry share               =   (run with traces exported over OTLP − run without) / run with
//   score - (streamed JSON lines) vs  a bare process that JSON.parses every line of the same stream
//   serve ingest                  vs  a bare HTTP receiver that only JSON.parses each POST body
//   startup (--help, list, score --help) vs `node -e 0`
//   scoreRun (decision)           vs  JSON.parse of the same Runs' JSON
//
// Every timed thing runs in its own process (the fake model and receivers too); peak RSS comes from
// `process.resourceUsage().maxRSS` at exit. Results: bench/results.json.
//
//   BENCH_QUICK=1 (or --quick)  about a minute: 1k cases, 50 MB, fewer repeats
//   default                     adds 10k cases and 500 MB
//   BENCH_LARGE=1 (or --large)  adds 100k cases and 5 GB (streamed; minutes)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { benchRun, timed } from './_run.mjs';
import { lines } from './_traces.mjs';
import { telemetryCostPerTrace } from './_telemetry-cost.mjs';
import { scoreRun } from '../dist/scoring/index.js';
import { loadToolset } from '../dist/toolset/index.js';
import { loadFixtureFile } from '../dist/fixtures/index.js';

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const LARGE = process.env.BENCH_LARGE === '1' || process.argv.includes('--large');
const here = new URL('.', import.meta.url).pathname;
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const rssHook = join(here, '_rss.mjs');
const rows = [];
const MB = 1e6;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmtMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const fmtMb = (b) => (b === undefined ? '' : `${(b / 2 ** 20).toFixed(0)} MB`);

function row(r) {
  rows.push(r);
  const frac = r.fraction === undefined ? '' : r.fraction.toFixed(2);
  const target = r.target === undefined ? '' : `≥ ${r.target}`;
  console.log(
    `${r.what.padEnd(30)}${r.data.padEnd(22)}${fmtMs(r.oursMs).padStart(10)}${(r.floorMs === undefined ? '' : fmtMs(r.floorMs)).padStart(10)}${frac.padStart(7)}${target.padStart(8)}${fmtMb(r.peakRssBytes).padStart(9)}${r.note ? `  ${r.note}` : ''}`,
  );
}

async function runRows() {
  for (const cases of [1000, ...(QUICK ? [] : [10_000]), ...(LARGE ? [100_000] : [])]) {
    const r = await benchRun({ cases, concurrency: 8, timeoutMs: 3_600_000 });
    row({ id: `run-${cases}`, what: 'run, zero latency, conc. 8', data: `${cases} cases`, oursMs: r.runMs, floorMs: r.bareMs, fraction: r.bareMs / r.runMs, target: cases >= 100_000 ? undefined : cases >= 10_000 ? 0.7 : 0.8, peakRssBytes: r.runRss, floorRssBytes: r.bareRss, msPerCase: r.runMs / cases, runCpuMs: r.runCpuMs, bareCpuMs: r.bareCpuMs, cpuFraction: r.bareCpuMs / r.runCpuMs, note: `${(r.runMs / cases).toFixed(2)} ms/case; CPU ${fmtMs(r.runCpuMs)} vs ${fmtMs(r.bareCpuMs)} (${(r.bareCpuMs / r.runCpuMs).toFixed(2)})` });
  }
  const latencyCases = 200;
  const l = await benchRun({ cases: latencyCases, concurrency: 8, latencyMs: 200 });
  const ideal = Math.ceil(latencyCases / 8) * 200;
  row({ id: 'run-latency-200ms', what: 'run, 200 ms latency, conc. 8', data: `${latencyCases} cases`, oursMs: l.runMs, floorMs: ideal, fraction: ideal / l.runMs, target: 0.95, peakRssBytes: l.runRss, meanInFlight: l.meanInFlight, maxInFlight: l.maxInFlight, bareMs: l.bareMs, spanMs: l.spanMs, spanFraction: ideal / l.spanMs, note: `floor = ideal; bare loop ${fmtMs(l.bareMs)} (${(ideal / l.bareMs).toFixed(2)}); first request to last answer ${fmtMs(l.spanMs)} (${(ideal / l.spanMs).toFixed(2)}); ${l.meanInFlight.toFixed(2)} of 8 in flight on average, first to last` });
  const telCases = QUICK ? 500 : 1000;
  for (const [id, what, telemetryEnv] of [['telemetry-share', 'telemetry share (OTLP/proto)', {}]]) {
    const t = await benchRun({ cases: telCases, concurrency: 8, telemetry: true, telemetryEnv, bare: false });
    const share = (t.telemetryMs - t.runMs) / t.telemetryMs;
    const cpuShare = (t.telemetryCpuMs - t.runCpuMs) / t.telemetryCpuMs;
    row({ id, what, data: `${telCases} cases`, oursMs: t.telemetryMs, floorMs: t.runMs, fraction: t.runMs / t.telemetryMs, share, cpuShare, peakRssBytes: t.telemetryRss, note: `share ${(share * 100).toFixed(1)} % of wall, ${(cpuShare * 100).toFixed(1)} % of CPU (target ≤ 10 %)` });
  }
  const cost = await telemetryCostPerTrace(QUICK ? 2000 : 5000);
  row({ id: 'telemetry-per-trace', what: 'telemetry per trace (in proc.)', data: `${cost.spansPerTrace} spans`, oursMs: (cost.renderUs + cost.protobufUs) / 1000, ...cost, note: `render+SDK ${cost.renderUs.toFixed(0)} µs, protobuf ${cost.protobufUs.toFixed(0)} µs (JSON ${cost.jsonUs.toFixed(0)} µs)` });
}

/** Pipe the generated stream of `bytes` into `args` (a node process); time it to its exit. */
function streamInto(bytes, args) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const gen = spawn(process.execPath, [join(here, '_traces.mjs'), String(bytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    gen.stdout.pipe(child.stdin);
    child.stdin.on('error', () => {});
    child.on('error', reject);
    child.on('exit', (code) => {
      gen.kill();
      const m = /BENCH_MAX_RSS (\d+)/.exec(stderr);
      if (code !== 0 && code !== 1) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-600)}`));
      else resolve({ ms: performance.now() - t, rss: m ? Number(m[1]) : undefined, stderr });
    });
  });
}

async function scoreRows(dir) {
  const rules = join(dir, 'rules.toml');
  writeFileSync(rules, '[[rule]]\nname = "no-restart"\nforbid_tools = ["restart-service"]\n\n[[rule]]\nname = "budget"\nmax_calls = 3\n');
  for (const bytes of [50 * MB, ...(QUICK ? [] : [500 * MB]), ...(LARGE ? [5000 * MB] : [])]) {
    const floor = await streamInto(bytes, ['--import', rssHook, join(here, '_bare-parse.mjs')]);
    const ours = await streamInto(bytes, ['--import', rssHook, cli, '--path', dir, 'score', '-', '--rules', rules, '--cases', join(dir, 'no-cases')]);
    row({ id: `score-${bytes / MB}MB`, what: 'score - (JSON lines, streamed)', data: `${bytes / MB} MB`, oursMs: ours.ms, floorMs: floor.ms, fraction: floor.ms / ours.ms, target: 0.5, peakRssBytes: ours.rss, floorRssBytes: floor.rss, note: 'RSS target < 250 MB' });
  }
}

async function startProcess(args, cwd) {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /127\.0\.0\.1:(\d+)/.exec(err) ?? /PORT (\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err.slice(-400)}`)));
  });
  return { port, child };
}

async function post(port, bodies, concurrency = 8) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
  let next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await pool.request({ path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}`);
    }
  }));
  const ms = performance.now() - t;
  await pool.close();
  return ms;
}

async function serveRow(dir) {
  const bodies = [...lines(QUICK ? 10 * MB : 40 * MB)];
  const bare = spawn(process.execPath, [join(here, '_bare-receiver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve) => bare.stdout.on('data', (d) => resolve(Number(/PORT (\d+)/.exec(String(d))[1]))));
  const floorMs = await post(barePort, bodies);
  bare.kill('SIGTERM');
  const { port, child } = await startProcess(['--import', rssHook, cli, '--path', dir, 'serve', '--port', '0', '--cases', join(dir, 'no-cases'), '--quiet-ms', '200'], dir);
  const oursMs = await post(port, bodies);
  const exited = new Promise((r) => child.on('exit', r));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.kill('SIGTERM');
  await exited;
  const m = /BENCH_MAX_RSS (\d+)/.exec(stderr);
  const mb = bodies.reduce((n, b) => n + b.length, 0) / MB;
  row({ id: 'serve-ingest', what: 'serve ingest (POST, conc. 8)', data: `${mb.toFixed(0)} MB, ${bodies.length} req`, oursMs, floorMs, fraction: floorMs / oursMs, target: 0.5, peakRssBytes: m ? Number(m[1]) : undefined });
}

async function startupRows(dir) {
  const reps = QUICK ? 5 : 9;
  const time = async (args) => median(await Promise.all([]).then(async () => {
    const xs = [];
    for (let i = 0; i < reps; i++) xs.push((await timed(args, { cwd: dir })).ms);
    return xs;
  }));
  const floor = await time(['-e', '0']);
  for (const args of [['--help'], ['list'], ['score', '--help']]) {
    const ms = await time([cli, ...args]);
    row({ id: `startup-${args.join(' ').replace(/^-+/, '').replace(/[^a-z]+/g, '-')}`, what: `startup: ${args.join(' ')}`, data: `median of ${reps}`, oursMs: ms, floorMs: floor, fraction: floor / ms, target: 0.5, note: 'floor = node -e 0' });
  }
}

async function scoreRunRow(dir) {
  const toolset = await loadToolset('builtin:fleet', { projectDir: dir, env: {} });
  const suite = loadFixtureFile(join(here, '..', 'fixtures', 'runspec', 'fleet.toml'))[0];
  const c = suite.cases.find((x) => x.id === 'restart-nginx-targeted');
  const n = QUICK ? 5000 : 20_000;
  const runs = Array.from({ length: n }, (_, i) => ({
    caseId: c.id, sample: i, mode: 'decision', provider: 'openai', startTimeMs: 0, endTimeMs: 1, modelCalls: [], toolCalls: [],
    terminal: { turn: 0, modelCallIndex: 0, startTimeMs: 0, endTimeMs: 0, executed: false, call: { id: `c${i}`, name: 'restart-service', arguments: { service: i % 2 ? 'nginx' : 'NGINX ', host: 'web-01' } } },
    status: 'ok', usage: {},
  }));
  const json = runs.map((r) => JSON.stringify(r));
  const t0 = performance.now();
  for (const j of json) JSON.parse(j);
  const floorMs = performance.now() - t0;
  const t1 = performance.now();
  for (const r of runs) scoreRun(c, r, { toolset, toolMode: 'dedup' });
  const oursMs = performance.now() - t1;
  row({ id: 'scoreRun', what: 'scoreRun (decision, dedup)', data: `${n} runs, in process`, oursMs, floorMs, fraction: floorMs / oursMs, note: 'floor = JSON.parse of each Run' });
}

const dir = mkdtempSync(join(tmpdir(), 'runspec-bench-'));
// Traces are graded by rules only: an empty fixtures directory keeps the bundled suites out.
mkdirSync(join(dir, 'no-cases'));
const started = performance.now();
try {
  console.log(`runspec-eval bench · node ${process.version} · ${QUICK ? 'quick' : LARGE ? 'large' : 'default'} · fraction = floor time / our time (1.00 = the floor)`);
  console.log(`${'what'.padEnd(30)}${'data'.padEnd(22)}${'ours'.padStart(10)}${'floor'.padStart(10)}${'frac'.padStart(7)}${'target'.padStart(8)}${'peak RSS'.padStart(9)}`);
  await startupRows(dir);
  await runRows();
  await scoreRows(dir);
  await serveRow(dir);
  await scoreRunRow(dir);
  const out = { node: process.version, date: new Date().toISOString(), mode: QUICK ? 'quick' : LARGE ? 'large' : 'default', seconds: Math.round((performance.now() - started) / 1000), rows };
  writeFileSync(join(here, 'results.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(`bench/results.json written (${out.seconds} s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
