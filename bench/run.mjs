// npm run bench — what users meet, next to a floor measured in the same run on the same data (the machines
// are shared and noisy: read the paired ratios, not the milliseconds). ratio = floor time / our time,
// the median over repetitions of each repetition's pair (1.00 = as fast as the floor).
//
//   run, N cases (5 tools with JSON Schemas, expect_tool + 3 expect_args incl. $one_of and $regex,
//     --validate-args, one [[suite]] file per N)     vs a bare undici loop sending the same bodies
//   run, 100,000 cases as ten 10k files and as one file: peak RSS, marginal time per case, longest
//     event-loop block
//   run, 200 cases at 200 ms model latency          vs the ideal: ceil(200 / 8) × 200 ms
//   telemetry on (OTLP/protobuf to a local sink)    vs off, at zero and at 100 ms latency
//   score - (streamed OTLP JSON lines)              vs a process that JSON.parses every line
//   serve ingest (gzip'd OTLP/protobuf POSTs)        vs node:http + gunzip + protobuf decode
//     both also against a ceiling: the least program writing the same verdict lines (bench/_ceiling-*.mjs),
//     so the floor's target can be read against what the mandated output costs at least
//   --help, list, score --help                      vs node -e 0
//
// Every measured process runs on its own (the fake model and sinks too), preloaded with bench/_probe.mjs
// for its peak RSS, CPU time and longest event-loop block. Every measurement checks the work was done
// (requests counted by the fake model, verdicts counted in the output); a row whose check fails is
// reported as failed and the bench exits 1. Each row has a time limit.
//
//   BENCH_QUICK=1 (or --quick)  a smoke check: small N, one repetition (about a minute or two)
//   default                     1k, 10k, 100k cases; 50 and 500 MB; median of 3 (about 15 minutes on 2 cores)
//   BENCH_LARGE=1 (or --large)  adds `score` over 5 GB
//   BENCH_ONLY=id,id            only these rows: an id, or a prefix ending at a dash (`run` is every run-* row,
//                               `run-1000` only that row); the capture row runs when a run or telemetry row
//                               needs its template (no results.json written)
//   BENCH_RESULTS=FILE          where to write the results (default bench/results.json)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { CheckError, captureTemplate, check, cli, measureBare, measureRun, median, probe, probed, startFakeModel, timed, writeWorkload } from './_run.mjs';
import { keysDiffer } from './_ceiling-keys.mjs';
import { traceBodies } from './_otlp.mjs';

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const LARGE = process.env.BENCH_LARGE === '1' || process.argv.includes('--large');
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const here = new URL('.', import.meta.url).pathname;
const RESULTS = process.env.BENCH_RESULTS ?? join(here, 'results.json');
const REPS = QUICK ? 1 : 3;
const CONC = 8;
const MB = 1e6;
const N = QUICK ? { small: 300, mid: 1000, big: 3000 } : { small: 1000, mid: 10_000, big: 100_000 };
const rows = [];
const fmtMs = (ms) => (ms === undefined ? '' : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const fmtMb = (b) => (b === undefined ? '' : `${(b / 2 ** 20).toFixed(0)} MB`);
const num = (n) => n.toLocaleString('en-US');

/** A target: `value op limit`, and whether it is met. */
const target = (name, value, op, limit, unit = '') => ({
  name,
  value,
  op,
  limit,
  unit,
  met: value === undefined ? undefined : op === '>=' ? value >= limit : value <= limit,
});

const COLS = [
  ['what', 44],
  ['ours', 9],
  ['floor', 9],
  ['ratio', 6],
  ['RSS', 7],
  ['loop', 7],
];
function printHeader() {
  console.log(COLS.map(([h, w], i) => (i === 0 ? h.padEnd(w) : h.padStart(w))).join(' ') + '  targets / notes');
}
function print(r) {
  if (r.status === 'failed') {
    console.log(`${r.what.padEnd(44)} FAILED: ${r.error}`);
    return;
  }
  const cells = [
    r.what.padEnd(44),
    fmtMs(r.oursMs).padStart(9),
    fmtMs(r.floorMs).padStart(9),
    (r.ratio === undefined ? '' : r.ratio.toFixed(2)).padStart(6),
    fmtMb(r.peakRssBytes).padStart(7),
    (r.loopMaxMs === undefined ? '' : `${r.loopMaxMs.toFixed(0)} ms`).padStart(7),
  ];
  const t = (r.targets ?? []).map(
    (x) =>
      `${x.name} ${fmtValue(x.value, x.unit)} ${x.op === '>=' ? '≥' : '≤'} ${fmtValue(x.limit, x.unit)} ${x.met === undefined ? 'n/a' : x.met ? 'met' : 'MISSED'}`,
  );
  console.log(`${cells.join(' ')}  ${[...t, ...(r.notes ?? [])].join('; ')}`);
}
function fmtValue(v, unit) {
  if (v === undefined) return '?';
  if (unit === 'MB') return `${(v / 2 ** 20).toFixed(0)} MB`;
  if (unit === '%') return `${(v * 100).toFixed(1)} %`;
  if (unit === 'ms') return v < 10 ? `${v.toFixed(3)} ms` : `${v.toFixed(0)} ms`;
  return v.toFixed(2);
}

const selected = (id) => ONLY.length === 0 || ONLY.some((p) => id === p || id.startsWith(`${p}-`));
/** Whether a selected row needs the capture row's request template. */
const needsTemplate = () =>
  ONLY.length === 0 || ONLY.some((p) => ['capture', 'run', 'telemetry'].some((r) => r === p || r.startsWith(`${p}-`) || p.startsWith(`${r}-`)));

/** Run one row under a time limit; a failed check or error marks it failed, never stops the bench. */
async function row(id, what, limitMs, fn, { force = false } = {}) {
  if (!force && !selected(id)) return;
  const deadline = performance.now() + limitMs;
  const started = performance.now();
  let timer;
  try {
    const out = await Promise.race([
      fn(() => Math.max(1000, deadline - performance.now())),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new CheckError(`row timed out after ${Math.round(limitMs / 1000)} s`)), limitMs))),
    ]);
    const r = { id, what, status: 'ok', seconds: Math.round((performance.now() - started) / 100) / 10, ...out };
    rows.push(r);
    print(r);
  } catch (err) {
    const r = {
      id,
      what,
      status: 'failed',
      error:
        err instanceof CheckError
          ? err.message
          : String(err?.stack ?? err)
              .split('\n')
              .slice(0, 3)
              .join(' | '),
    };
    rows.push(r);
    print(r);
  } finally {
    clearTimeout(timer);
  }
}

/** Stop repeating (keep the median of what ran) when another repetition would not fit the row's limit. */
const enoughTime = (left, repStarted) => left() < 1.5 * (performance.now() - repStarted);

const rowById = (id) => rows.find((r) => r.id === id && r.status === 'ok');

// ---------------------------------------------------------------------------------------------- run

/**
 * `reps` repetitions at `cases`: per repetition the bare loop and each layout of `run`, in rotating order.
 * layouts: { key: files } (1 = one file; 10 = ten files).
 */
async function pairedRuns({ dir, template, cases, layouts, latencyMs = 0, telemetry = [false], reps = REPS, left }) {
  const work = mkdtempSync(join(dir, `run-${cases}-`));
  const fixtures = Object.fromEntries(
    Object.entries(layouts).map(([k, files]) => {
      const sub = join(work, k);
      mkdirSync(sub);
      return [k, writeWorkload(sub, cases, files).map((p) => p)];
    }),
  );
  writeWorkload(work, 0);
  const model = await startFakeModel(latencyMs);
  const samples = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const repStarted = performance.now();
      const jobs = [['bare', null, false]];
      for (const k of Object.keys(layouts)) for (const t of telemetry) jobs.push(['run', k, t]);
      const order = jobs.map((_, i) => jobs[(i + rep) % jobs.length]);
      const s = {};
      for (const [kind, k, t] of order) {
        if (kind === 'bare') s.bare = await measureBare({ template, cases, model, dir: work, concurrency: CONC, timeoutMs: left() });
        else
          s[`${k}${t ? '+telemetry' : ''}`] = await measureRun({
            fixtures: fixtures[k],
            cases,
            model,
            dir: work,
            concurrency: CONC,
            telemetry: t,
            timeoutMs: left(),
          });
      }
      for (const [key, m] of Object.entries(s))
        if (key !== 'bare')
          check(m.bodyBytes === s.bare.bodyBytes, `${key}: the run sent ${m.bodyBytes} body bytes, the bare loop ${s.bare.bodyBytes}: not the same requests`);
      samples.push(s);
      if (enoughTime(left, repStarted)) break;
    }
  } finally {
    model.close();
    rmSync(work, { recursive: true, force: true });
  }
  return samples;
}

/** The figures of layout `key` against the bare loop, over paired samples. */
function runFigures(samples, key, cases) {
  const ours = samples.map((s) => s[key]);
  const bare = samples.map((s) => s.bare);
  const ownCpu = median(samples.map((s) => (s[key].cpuMs - s.bare.cpuMs) / cases));
  return {
    cases,
    reps: samples.length,
    oursMs: median(ours.map((m) => m.ms)),
    floorMs: median(bare.map((m) => m.ms)),
    ratio: median(samples.map((s) => s.bare.ms / s[key].ms)),
    cpuRatio: median(samples.map((s) => s.bare.cpuMs / s[key].cpuMs)),
    oursCpuMs: median(ours.map((m) => m.cpuMs)),
    floorCpuMs: median(bare.map((m) => m.cpuMs)),
    ownCpuPerCaseMs: ownCpu,
    floorCpuPerCaseMs: median(bare.map((m) => m.cpuMs / cases)),
    peakRssBytes: Math.max(...ours.map((m) => m.rss)),
    floorRssBytes: Math.max(...bare.map((m) => m.rss)),
    loopMaxMs: Math.max(...ours.map((m) => m.loopMaxMs)),
    meanInFlight: median(ours.map((m) => m.meanInFlight)),
    verdicts: ours[0].verdicts,
    samples: samples.map((s) => ({
      oursMs: s[key].ms,
      floorMs: s.bare.ms,
      oursCpuMs: s[key].cpuMs,
      floorCpuMs: s.bare.cpuMs,
      rss: s[key].rss,
      loopMaxMs: s[key].loopMaxMs,
    })),
  };
}

async function runRows(dir, template) {
  for (const [cases, limit] of [
    [N.small, 240_000],
    [N.mid, 600_000],
  ]) {
    await row(`run-${cases}`, `run, ${num(cases)} cases, zero latency, conc. ${CONC}`, limit, async (left) => {
      const f = runFigures(await pairedRuns({ dir, template, cases, layouts: { one: 1 }, left }), 'one', cases);
      const targets = [target('ratio', f.ratio, '>=', 0.6)];
      if (cases === N.mid) targets.push(target('own CPU/case', f.ownCpuPerCaseMs, '<=', 0.071, 'ms'));
      return {
        ...f,
        data: `${num(cases)} cases, 1 file`,
        targets,
        notes: [`own CPU ${f.ownCpuPerCaseMs.toFixed(3)} ms/case (floor ${f.floorCpuPerCaseMs.toFixed(3)})`, `CPU ratio ${f.cpuRatio.toFixed(2)}`],
      };
    });
  }
  const big = N.big;
  const ids = { ten: `run-${big}-ten-files`, one: `run-${big}-one-file` };
  let bigSamples;
  const bigRow = (key, files) =>
    row(
      ids[key],
      `run, ${num(big)} cases, ${files === 1 ? 'one file' : `${files} files of ${num(big / files)}`}`,
      QUICK ? 300_000 : 1_200_000,
      async (left) => {
        // One set of paired repetitions serves both rows (a failure fails both).
        bigSamples ??= pairedRuns({ dir, template, cases: big, layouts: { ten: 10, one: 1 }, left });
        const f = runFigures(await bigSamples, key, big);
        const small = rowById(`run-${N.small}`);
        const mid = rowById(`run-${N.mid}`);
        const marginal =
          small && mid ? { from1k: (mid.oursMs - small.oursMs) / (N.mid - N.small), from10k: (f.oursMs - mid.oursMs) / (big - N.mid) } : undefined;
        return {
          ...f,
          data: `${num(big)} cases, ${files === 1 ? '1 file' : `${files} files`}`,
          marginalMsPerCase: marginal,
          targets: [
            target('peak RSS', f.peakRssBytes, '<=', 250 * 2 ** 20, 'MB'),
            target(`marginal ${num(N.mid)}→${num(big)} / ${num(N.small)}→${num(N.mid)}`, marginal && marginal.from10k / marginal.from1k, '<=', 1.2),
            target('loop block', f.loopMaxMs, '<=', 200, 'ms'),
          ],
          notes: [
            marginal
              ? `marginal ${(marginal.from10k * 1000).toFixed(0)} µs/case vs ${(marginal.from1k * 1000).toFixed(0)}`
              : 'marginal: the smaller rows failed',
            `own CPU ${f.ownCpuPerCaseMs.toFixed(3)} ms/case`,
          ],
        };
      },
    );
  await bigRow('ten', 10);
  await bigRow('one', 1);

  const lat = 200;
  await row('run-latency-200ms', `run, ${lat} cases at 200 ms latency, conc. ${CONC}`, 180_000, async (left) => {
    const samples = await pairedRuns({ dir, template, cases: lat, layouts: { one: 1 }, latencyMs: 200, left });
    const ideal = Math.ceil(lat / CONC) * 200;
    const f = runFigures(samples, 'one', lat);
    const ratio = median(samples.map((s) => ideal / s.one.ms));
    const bareRatio = median(samples.map((s) => ideal / s.bare.ms));
    const spanRatio = median(samples.map((s) => ideal / s.one.spanMs));
    return {
      ...f,
      data: `${lat} cases`,
      floorMs: ideal,
      ratio,
      bareRatio,
      spanRatio,
      targets: [target('of ideal', ratio, '>=', 0.95)],
      notes: [
        `floor = ideal ${ideal} ms`,
        `bare loop ${bareRatio.toFixed(2)} of ideal`,
        `first request to last answer ${spanRatio.toFixed(2)}`,
        `${f.meanInFlight.toFixed(2)} of ${CONC} in flight`,
      ],
    };
  });

  for (const [latencyMs, cases, limit] of [
    [0, QUICK ? 500 : 2000, 300_000],
    [100, QUICK ? 160 : 400, 240_000],
  ]) {
    await row(`telemetry-${latencyMs}ms`, `telemetry on vs off, ${latencyMs} ms latency`, limit, async (left) => {
      const samples = await pairedRuns({ dir, template, cases, layouts: { one: 1 }, latencyMs, telemetry: [false, true], left });
      const overhead = median(samples.map((s) => (s['one+telemetry'].ms - s.one.ms) / s.one.ms));
      const cpuOverhead = median(samples.map((s) => (s['one+telemetry'].cpuMs - s.one.cpuMs) / s.one.cpuMs));
      const on = samples.map((s) => s['one+telemetry']);
      return {
        cases,
        reps: samples.length,
        data: `${num(cases)} cases`,
        oursMs: median(on.map((m) => m.ms)),
        floorMs: median(samples.map((s) => s.one.ms)),
        ratio: median(samples.map((s) => s.one.ms / s['one+telemetry'].ms)),
        overhead,
        cpuOverhead,
        peakRssBytes: Math.max(...on.map((m) => m.rss)),
        loopMaxMs: Math.max(...on.map((m) => m.loopMaxMs)),
        otlpBytesPerCase: median(on.map((m) => m.otlpBytes / cases)),
        targets: [target('added', overhead, '<=', latencyMs === 0 ? 0.15 : 0.02, '%')],
        notes: [
          `floor = the same run, telemetry off`,
          `CPU +${(cpuOverhead * 100).toFixed(1)} %`,
          `${median(on.map((m) => m.otlpBytes / cases)).toFixed(0)} OTLP bytes/case`,
        ],
      };
    });
  }
}

// ------------------------------------------------------------------------------------------ ceiling

/** Fail unless the ceiling's line has the shape of ours for the same trace and rule (bench/_ceiling-keys.mjs). */
const checkSameKeys = (ceiling, ours) => {
  const differs = keysDiffer(ceiling, ours);
  check(differs === undefined, differs);
};

/** The order of a repetition's members: floor, ours and the ceiling, rotated by the repetition. */
const rotated = (kinds, rep) => kinds.map((_, i) => kinds[(i + rep) % kinds.length]);

// -------------------------------------------------------------------------------------------- score

/** Pipe `bytes` of generated trace lines into a node process; time it to its exit; count its stdout lines, keep the first, hash them all. */
function streamInto(bytes, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const gen = spawn(process.execPath, [join(here, '_traces.mjs'), String(bytes)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let genErr = '';
    let stderr = '';
    let lines = 0;
    let head = '';
    let firstLine;
    const digest = createHash('sha256');
    gen.stderr.on('data', (d) => (genErr += d));
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
    child.stdout.on('data', (d) => {
      if (firstLine === undefined) {
        head += d;
        if (head.includes('\n')) firstLine = head.slice(0, head.indexOf('\n'));
      }
      digest.update(d);
      for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
    });
    gen.stdout.pipe(child.stdin);
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      gen.kill('SIGKILL');
      reject(new CheckError(`${args.at(-1)}: timed out after ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t;
      const done = () => {
        const traces = Number(/TRACES (\d+)/.exec(genErr)?.[1]);
        resolve({ ms, code, lines, firstLine, sha256: digest.digest('hex'), stderr, traces, ...probed(stderr) });
      };
      if (gen.exitCode !== null) done();
      else gen.on('close', done);
    });
  });
}

async function scoreRows(dir) {
  const rules = join(dir, 'rules.toml');
  writeFileSync(rules, '[[rule]]\nname = "no-restart"\nforbid_tools = ["restart-service"]\n\n[[rule]]\nname = "budget"\nmax_calls = 3\n');
  const sizes = QUICK
    ? [[20 * MB, 1, 120_000]]
    : [
        [50 * MB, REPS, 300_000],
        [500 * MB, REPS, 900_000],
      ];
  if (LARGE) sizes.push([5000 * MB, 1, 1_800_000]);
  for (const [bytes, reps, limit] of sizes) {
    await row(`score-${bytes / MB}MB`, `score -, ${bytes / MB} MB of OTLP JSON lines`, limit, async (left) => {
      const samples = [];
      for (let rep = 0; rep < reps; rep++) {
        const repStarted = performance.now();
        const pair = {};
        for (const kind of rotated(['floor', 'ours', 'ceiling'], rep)) {
          if (kind === 'floor') {
            const f = await streamInto(bytes, ['--import', probe, join(here, '_bare-parse.mjs')], left());
            check(f.code === 0, `bare JSON.parse loop exited ${f.code}: ${f.stderr.slice(-300)}`);
            check(
              Number(/TRACES (\d+)/.exec(f.stderr)?.[1]) === f.traces,
              `bare JSON.parse loop: parsed ${/TRACES (\d+)/.exec(f.stderr)?.[1]} traces of ${f.traces}`,
            );
            pair.floor = f;
          } else if (kind === 'ceiling') {
            const c = await streamInto(bytes, ['--import', probe, join(here, '_ceiling-score.mjs')], left());
            check(c.code === 0, `ceiling exited ${c.code}: ${c.stderr.slice(-300)}`);
            const written = Number(/LINES (\d+)/.exec(c.stderr)?.[1]);
            check(
              Number(/TRACES (\d+)/.exec(c.stderr)?.[1]) === c.traces && written === 2 * c.traces && c.lines === written,
              `ceiling wrote ${c.lines} lines (it counted ${written}) for ${c.traces} traces × 2 rules`,
            );
            pair.ceiling = c;
          } else {
            const o = await streamInto(
              bytes,
              ['--import', probe, cli, '--path', dir, 'score', '-', '--rules', rules, '--cases', join(dir, 'no-cases')],
              left(),
            );
            check(
              o.code === 1,
              `score exited ${o.code} (expected 1: the no-restart rule fails some traces): ${o.stderr.trim().split('\n').slice(-3).join(' | ')}`,
            );
            check(o.lines === 2 * o.traces, `score wrote ${o.lines} verdict lines for ${o.traces} traces × 2 rules`);
            check(
              Number(/traces: (\d+)/.exec(o.stderr)?.[1]) === o.traces,
              `score's summary counts ${/traces: (\d+)/.exec(o.stderr)?.[1]} traces of ${o.traces}`,
            );
            pair.ours = o;
          }
        }
        // Both write in input order, so the ceiling's output must be ours byte for byte; where it is not, the first
        // lines' keys say how (both are of the first trace and rule).
        if (pair.ceiling.sha256 !== pair.ours.sha256) {
          checkSameKeys(JSON.parse(pair.ceiling.firstLine), JSON.parse(pair.ours.firstLine));
          check(false, `the ceiling's ${pair.ceiling.lines} lines differ from ours (their keys agree: a value differs)`);
        }
        samples.push(pair);
        if (enoughTime(left, repStarted)) break;
      }
      const rss = Math.max(...samples.map((s) => s.ours.rss));
      const ceilingRatio = median(samples.map((s) => s.floor.ms / s.ceiling.ms));
      const ceilingCpuRatio = median(samples.map((s) => s.floor.cpuMs / s.ceiling.cpuMs));
      return {
        data: `${bytes / MB} MB, ${num(samples[0].ours.traces)} traces`,
        reps: samples.length,
        oursMs: median(samples.map((s) => s.ours.ms)),
        floorMs: median(samples.map((s) => s.floor.ms)),
        ratio: median(samples.map((s) => s.floor.ms / s.ours.ms)),
        peakRssBytes: rss,
        floorRssBytes: Math.max(...samples.map((s) => s.floor.rss)),
        loopMaxMs: Math.max(...samples.map((s) => s.ours.loopMaxMs)),
        cpuRatio: median(samples.map((s) => s.floor.cpuMs / s.ours.cpuMs)),
        ceilingMs: median(samples.map((s) => s.ceiling.ms)),
        ceilingRatio,
        ceilingCpuRatio,
        targets: [target('ratio', median(samples.map((s) => s.floor.ms / s.ours.ms)), '>=', 0.5), target('peak RSS', rss, '<=', 250 * 2 ** 20, 'MB')],
        notes: [
          'floor = JSON.parse of every line',
          `floor RSS ${fmtMb(Math.max(...samples.map((s) => s.floor.rss)))}`,
          `ceiling (least program writing the same lines) ${ceilingRatio.toFixed(2)}, CPU ${ceilingCpuRatio.toFixed(2)}`,
        ],
      };
    });
  }
}

// -------------------------------------------------------------------------------------------- serve

/** Start a node process that prints a port; resolves with the child, its port and its output so far. */
async function startServer(args, cwd) {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const io = { out: '', err: '' };
  child.stdout.on('data', (d) => (io.out += d));
  child.stderr.on('data', (d) => (io.err = (io.err + d).slice(-20_000)));
  const port = await new Promise((resolve, reject) => {
    const look = () => {
      const m = /127\.0\.0\.1:(\d+)/.exec(io.err) ?? /PORT (\d+)/.exec(io.out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${io.err.slice(-400)}`)));
  });
  const exited = new Promise((r) => child.on('close', r));
  return { child, port, io, exited };
}

async function post(port, bodies) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONC });
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await pool.request({
          path: '/v1/traces',
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
          body,
        });
        await res.body.dump();
        if (res.statusCode === 200) ok++;
      }
    }),
  );
  await pool.close();
  return ok;
}

async function serveRow(dir) {
  const traces = QUICK ? 2000 : 10_000;
  await row('serve-ingest', `serve ingest, gzip'd OTLP/protobuf, conc. ${CONC}`, 300_000, async (left) => {
    const { bodies, spans } = await traceBodies(traces);
    const rules = join(dir, 'rules.toml');
    const samples = [];
    for (let rep = 0; rep < REPS; rep++) {
      const repStarted = performance.now();
      const pair = {};
      for (const kind of rotated(['floor', 'ours', 'ceiling'], rep)) {
        if (kind === 'floor') {
          const s = await startServer(['--import', probe, join(here, '_bare-receiver.mjs')], dir);
          const t = performance.now();
          const ok = await post(s.port, bodies);
          const ms = performance.now() - t;
          s.child.kill('SIGTERM');
          await s.exited;
          check(ok === bodies.length, `bare receiver answered ${ok} of ${bodies.length} POSTs with 200`);
          check(Number(/SPANS (\d+)/.exec(s.io.out)?.[1]) === spans, `bare receiver decoded ${/SPANS (\d+)/.exec(s.io.out)?.[1]} spans of ${spans}`);
          pair.floor = { ms, ...probed(s.io.err) };
        } else if (kind === 'ceiling') {
          const out = join(dir, `ceiling-${rep}.jsonl`);
          const s = await startServer(['--import', probe, join(here, '_ceiling-receiver.mjs'), out], dir);
          const t = performance.now();
          const ok = await post(s.port, bodies);
          // Timed as ours: first POST to every line written and the process gone.
          s.child.kill('SIGTERM');
          await s.exited;
          const ms = performance.now() - t;
          check(ok === bodies.length, `ceiling answered ${ok} of ${bodies.length} POSTs with 200`);
          check(Number(/SPANS (\d+)/.exec(s.io.out)?.[1]) === spans, `ceiling decoded ${/SPANS (\d+)/.exec(s.io.out)?.[1]} spans of ${spans}`);
          const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
          const written = Number(/LINES (\d+)/.exec(s.io.out)?.[1]);
          // It keeps nothing across requests: a trace cut by a 512-span batch gets lines for each part.
          check(
            lines.length === written && written >= 2 * traces,
            `ceiling wrote ${lines.length} lines (it counted ${written}) for ${traces} traces × 2 rules`,
          );
          // The lines of the traces it saw whole (a part has no calls or no root: not ours' shape).
          const perTrace = new Map();
          const parsed = lines.map((l) => JSON.parse(l));
          for (const l of parsed) perTrace.set(l.trace_id, (perTrace.get(l.trace_id) ?? 0) + 1);
          pair.ceilingLines = [];
          for (let i = 0; i < lines.length; i++) if (perTrace.get(parsed[i].trace_id) === 2) pair.ceilingLines.push({ text: lines[i], line: parsed[i] });
          rmSync(out, { force: true });
          pair.ceiling = { ms, ...probed(s.io.err) };
        } else {
          const out = join(dir, `verdicts-${rep}.jsonl`);
          const s = await startServer(
            [
              '--import',
              probe,
              cli,
              '--path',
              dir,
              'serve',
              '--port',
              '0',
              '--cases',
              join(dir, 'no-cases'),
              '--rules',
              rules,
              '--quiet-ms',
              '200',
              '--out',
              out,
            ],
            dir,
          );
          const t = performance.now();
          const ok = await post(s.port, bodies);
          const postMs = performance.now() - t;
          // SIGTERM scores the traces still open and exits: first POST to exit is all of the work.
          s.child.kill('SIGTERM');
          await s.exited;
          const ms = performance.now() - t;
          check(ok === bodies.length, `serve answered ${ok} of ${bodies.length} POSTs with 200`);
          // A trace judged before the shutdown gets a revision line, then its final line at exit.
          const texts = readFileSync(out, 'utf8').split('\n').filter(Boolean);
          const lines = texts.map((l) => JSON.parse(l));
          // Verdict lines are run entries (report/verdict-line.ts): `trace_id`, `rule`, `final`.
          const final = new Set(lines.filter((l) => l.final === true && l.trace_id).map((l) => `${l.trace_id}/${l.rule}`)).size;
          check(final === 2 * traces, `serve wrote ${final} final verdict lines (${lines.length} lines) for ${traces} traces × 2 rules`);
          rmSync(out, { force: true });
          pair.oursLines = new Map();
          for (let i = 0; i < lines.length; i++)
            if (lines[i].final === true) pair.oursLines.set(`${lines[i].trace_id}/${lines[i].rule}`, { text: texts[i], line: lines[i] });
          pair.ours = { ms, postMs, ...probed(s.io.err) };
        }
      }
      // Serve writes in the order traces go quiet: each line of a trace the ceiling saw whole must be our final line
      // for the same trace and rule, byte for byte (where it is not, the keys say how).
      check(pair.ceilingLines.length >= traces, `the ceiling saw ${pair.ceilingLines.length / 2} of ${traces} traces whole`);
      for (const c of pair.ceilingLines) {
        const o = pair.oursLines.get(`${c.line.trace_id}/${c.line.rule}`);
        check(o !== undefined, `serve wrote no final line for trace ${c.line.trace_id} rule ${c.line.rule}`);
        if (c.text === o.text) continue;
        checkSameKeys(c.line, o.line);
        check(false, `the ceiling's line for trace ${c.line.trace_id} rule ${c.line.rule} differs from ours (their keys agree: a value differs)`);
      }
      delete pair.oursLines;
      delete pair.ceilingLines;
      samples.push(pair);
      if (enoughTime(left, repStarted)) break;
    }
    const bytes = bodies.reduce((n, b) => n + b.length, 0);
    const ratio = median(samples.map((s) => s.floor.ms / s.ours.ms));
    const ceilingRatio = median(samples.map((s) => s.floor.ms / s.ceiling.ms));
    const ceilingCpuRatio = median(samples.map((s) => s.floor.cpuMs / s.ceiling.cpuMs));
    return {
      data: `${num(traces)} traces, ${bodies.length} POSTs, ${(bytes / MB).toFixed(1)} MB gzip'd`,
      reps: samples.length,
      oursMs: median(samples.map((s) => s.ours.ms)),
      floorMs: median(samples.map((s) => s.floor.ms)),
      ratio,
      postRatio: median(samples.map((s) => s.floor.ms / s.ours.postMs)),
      ceilingMs: median(samples.map((s) => s.ceiling.ms)),
      ceilingRatio,
      ceilingCpuRatio,
      peakRssBytes: Math.max(...samples.map((s) => s.ours.rss)),
      loopMaxMs: Math.max(...samples.map((s) => s.ours.loopMaxMs)),
      targets: [target('ratio', ratio, '>=', 0.6)],
      notes: [
        'floor = node:http + gunzip + protobufjs decode',
        'ours = first POST to every verdict written',
        `POSTs alone ${median(samples.map((s) => s.floor.ms / s.ours.postMs)).toFixed(2)}`,
        `ceiling (least program writing the same final lines) ${ceilingRatio.toFixed(2)}, CPU ${ceilingCpuRatio.toFixed(2)}`,
      ],
    };
  });
}

// ------------------------------------------------------------------------------------------ startup

async function startupRows(dir) {
  const reps = QUICK ? 3 : 9;
  const once = async (args, left) => {
    const r = await timed(args, { cwd: dir, timeoutMs: left(), keepStdout: true });
    check(r.code === 0, `${args.slice(1).join(' ') || 'node'} exited ${r.code}: ${r.stderr.slice(-300)}`);
    check(args[1] === '0' || r.stdout.length > 0, `${args.slice(1).join(' ')} printed nothing`);
    return r.ms;
  };
  for (const args of [['--help'], ['list'], ['score', '--help']]) {
    await row(`startup-${args.join('-').replace(/-+/g, '-').replace(/^-/, '')}`, `startup: ${args.join(' ')}`, 120_000, async (left) => {
      // The floor and ours alternate, so a machine that slows down mid-row slows both.
      const floor = [];
      const ours = [];
      for (let i = 0; i < reps; i++) {
        floor.push(await once(['-e', '0'], left));
        ours.push(await once([cli, ...args], left));
      }
      const ratio = median(floor) / median(ours);
      return {
        data: `${reps} runs each, alternating`,
        reps,
        oursMs: median(ours),
        floorMs: median(floor),
        ratio,
        targets: [target('ratio', ratio, '>=', 0.5)],
        notes: ['floor = node -e 0'],
      };
    });
  }
}

// --------------------------------------------------------------------------------------------- main

const dir = mkdtempSync(join(tmpdir(), 'runspec-bench-'));
mkdirSync(join(dir, 'no-cases'));
const started = performance.now();
try {
  console.log(
    `runspec-eval bench · node ${process.version} · ${QUICK ? 'quick' : LARGE ? 'large' : 'default'} · ratio = floor time / our time, median of ${REPS} paired`,
  );
  printHeader();
  await startupRows(dir);
  let template;
  await row(
    'capture',
    'the request body `run` sends (bare loop template)',
    60_000,
    async (left) => {
      template = await captureTemplate({ dir: mkdtempSync(join(dir, 'capture-')), concurrency: CONC, timeoutMs: left() });
      return { data: '50 cases', notes: ['checked: 50 requests, 50 verdicts, 30 passes'] };
    },
    { force: needsTemplate() },
  );
  if (template) await runRows(dir, template);
  await scoreRows(dir);
  await serveRow(dir);
  const failed = rows.filter((r) => r.status === 'failed');
  const seconds = Math.round((performance.now() - started) / 1000);
  const out = {
    node: process.version,
    date: new Date().toISOString(),
    mode: QUICK ? 'quick' : LARGE ? 'large' : 'default',
    cores: (await import('node:os')).availableParallelism(),
    seconds,
    failed: failed.length,
    rows,
  };
  if (ONLY.length === 0) {
    writeFileSync(RESULTS, JSON.stringify(out, null, 2) + '\n');
    console.log(`${RESULTS} written (${seconds} s)`);
  } else console.log(`BENCH_ONLY: results not written (${seconds} s)`);
  if (failed.length > 0) {
    console.log(`${failed.length} row(s) FAILED their work checks: ${failed.map((r) => r.id).join(', ')}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
