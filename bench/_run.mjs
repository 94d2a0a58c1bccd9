// Run benchmarks: `runspec-eval run` as a process against the fake model (its own process), paired in the
// same repetition with the floor, a bare undici loop (its own process) sending the same request bodies at
// the same concurrency. Every measurement is checked: the fake model must have counted one request per
// case (and, for the floor, the same body bytes as the run sent), and the results file must hold one
// verdict per case with exactly the passes the fake model's answers make.
import { spawn } from 'node:child_process';
import { createReadStream, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TOOLS, expectedPasses, suiteText } from './_cases.mjs';

const here = new URL('.', import.meta.url).pathname;
export const cli = join(here, '..', 'dist', 'cli', 'main.js');
export const probe = join(here, '_probe.mjs');

export class CheckError extends Error {}
export const check = (ok, message) => {
  if (!ok) throw new CheckError(message);
};

/** Start the fake model (and OTLP sink) in its own process. */
export async function startFakeModel(latencyMs = 0, env = {}) {
  const child = spawn(process.execPath, [join(here, '_fake-openai.mjs')], {
    env: { ...process.env, ...env, LATENCY_MS: String(latencyMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
    /** What the server saw since the last call (and a reset). */
    stats: async () => (await fetch(`${origin}/stats`)).json(),
    close: () => child.kill('SIGTERM'),
  };
}

/** Run a node process to its end; wall ms, exit code and the probe's peak RSS, CPU and longest loop block. */
export function timed(args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', opts.keepStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(1000, opts.timeoutMs ?? 600_000),
    );
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t;
      if (timedOut) return reject(new CheckError(`${args.slice(-3).join(' ')}: timed out after ${Math.round(ms / 1000)} s`));
      resolve({ ms, code, ...probed(stderr), stdout, stderr });
    });
  });
}

/** The figures _probe.mjs printed on stderr. */
export function probed(stderr) {
  const num = (re) => {
    const m = re.exec(stderr);
    return m ? Number(m[1]) : undefined;
  };
  const cpuUs = num(/BENCH_CPU_US (\d+)/);
  return { rss: num(/BENCH_MAX_RSS (\d+)/), cpuMs: cpuUs === undefined ? undefined : cpuUs / 1000, loopMaxMs: num(/BENCH_LOOP_MAX_MS ([\d.]+)/) };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Write the toolset and the fixture files: one `[[suite]]` file of `cases`, or `files` files of equal share. */
export function writeWorkload(dir, cases, files = 1) {
  writeFileSync(join(dir, 'tools.json'), JSON.stringify(TOOLS, null, 2));
  const paths = [];
  const per = Math.ceil(cases / files);
  for (let f = 0, from = 0; from < cases; f++, from += per) {
    const path = join(dir, files === 1 ? `cases-${cases}.toml` : `cases-${cases}-part-${f + 1}-of-${files}.toml`);
    writeFileSync(path, suiteText(from, Math.min(cases, from + per), files === 1 ? 'bench' : `bench-${f + 1}`));
    paths.push(path);
  }
  return paths;
}

const ENV = {
  OPENAI_API_KEY: 'sk-bench',
  RUNSPEC_TELEMETRY: '',
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_SDK_DISABLED: '',
};

/** argv of `runspec-eval run` over `fixtures` as a user runs it, results to `out`. */
export function runArgs({ fixtures, model, dir, out, concurrency, telemetry }) {
  return [
    '--import',
    probe,
    cli,
    'run',
    ...fixtures,
    '--base-url',
    model.url,
    '--model',
    'bench-model',
    '--toolset',
    join(dir, 'tools.json'),
    '--validate-args',
    '--concurrency',
    String(concurrency),
    '--max-requests',
    String(concurrency),
    '--output',
    'json',
    '--out',
    out,
    ...(telemetry ? ['--telemetry', '--endpoint', `${model.origin}/v1/traces`] : ['--no-telemetry']),
  ];
}

/** Count the verdicts (by category) in a results document, streamed (it is ~2 KB per case). */
export async function countVerdicts(file) {
  const counts = {};
  let total = 0;
  let carry = '';
  const re = /"verdict":\s*\{\s*"category":\s*"([a-z_]+)"/g;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = carry + chunk;
    let last = 0;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      counts[m[1]] = (counts[m[1]] ?? 0) + 1;
      total++;
      last = re.lastIndex;
    }
    carry = text.slice(Math.max(last, text.length - 64));
  }
  return { total, counts };
}

/** Run `run` once and check its work: exit 1 (some cases fail by design), requests, verdicts, passes. */
export async function measureRun({ fixtures, cases, model, dir, concurrency, telemetry = false, timeoutMs }) {
  const out = join(dir, 'results.json');
  await model.stats();
  const r = await timed(runArgs({ fixtures, model, dir, out, concurrency, telemetry }), { cwd: dir, env: ENV, timeoutMs });
  const seen = await model.stats();
  check(r.code === 1, `run exited ${r.code} (expected 1: some verdicts fail by design): ${r.stderr.trim().split('\n').slice(-4).join(' | ')}`);
  check(seen.requests === cases, `run: the fake model counted ${seen.requests} requests for ${cases} cases`);
  const v = await countVerdicts(out);
  check(v.total === cases, `run: ${v.total} verdicts in the results file for ${cases} cases`);
  const passes = expectedPasses(cases);
  check(v.counts.pass === passes, `run: ${v.counts.pass ?? 0} passing verdicts, expected ${passes}`);
  if (telemetry) check(seen.otlpCases === cases, `run --telemetry: the OTLP sink saw traces of ${seen.otlpCases} cases of ${cases} (${seen.otlpPosts} posts)`);
  rmSync(out, { force: true });
  rmSync(out.replace(/\.json$/, '.jsonl'), { force: true });
  return {
    ms: r.ms,
    cpuMs: r.cpuMs,
    rss: r.rss,
    loopMaxMs: r.loopMaxMs,
    firstBody: seen.firstBody,
    bodyBytes: seen.bodyBytes,
    meanInFlight: seen.meanInFlight,
    maxInFlight: seen.maxInFlight,
    spanMs: seen.spanMs,
    otlpPosts: seen.otlpPosts,
    otlpBytes: seen.otlpBytes,
    verdicts: v.counts,
  };
}

/** The bare loop once, checked: one request per case, and the same body bytes the run sent. */
export async function measureBare({ template, cases, model, dir, concurrency, timeoutMs, runBodyBytes }) {
  await model.stats();
  const b = await timed(['--import', probe, join(here, '_bare-loop.mjs'), model.url, template, String(cases), String(concurrency)], { cwd: dir, timeoutMs });
  const seen = await model.stats();
  check(b.code === 0, `bare loop exited ${b.code}: ${b.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  check(seen.requests === cases, `bare loop: the fake model counted ${seen.requests} requests for ${cases} cases`);
  if (runBodyBytes !== undefined)
    check(seen.bodyBytes === runBodyBytes, `bare loop sent ${seen.bodyBytes} body bytes, the run ${runBodyBytes}: not the same requests`);
  return { ms: b.ms, cpuMs: b.cpuMs, rss: b.rss, bodyBytes: seen.bodyBytes, meanInFlight: seen.meanInFlight };
}

/** The body `run` sends (one small run of this workload), saved as the bare loop's template. */
export async function captureTemplate({ dir, concurrency, timeoutMs }) {
  const model = await startFakeModel(0);
  try {
    const fixtures = writeWorkload(dir, 50);
    const { firstBody } = await measureRun({ fixtures, cases: 50, model, dir, concurrency, timeoutMs });
    check(typeof firstBody === 'string', 'capturing the request template: the fake model saw no request');
    const path = join(dir, 'template.json');
    writeFileSync(path, firstBody);
    return path;
  } finally {
    model.close();
  }
}
