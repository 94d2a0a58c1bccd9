// Alerting on verdicts with a real Prometheus loading examples/collector/alerts.yml as shipped, on both
// paths at once: (1) `serve --export` verdict spans → the gateway's span_metrics connector → its prometheus
// exporter (job "otelcol"); (2) `serve`'s own GET /metrics behind its token (job "runspec-serve"). A burst
// of failing verdicts makes RunspecFailingVerdictBurst pending, then firing, on each path; passing, errored
// and unscorable traffic raises nothing; a re-judged trace counts once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { request } from '../traces/_otlp.js';
import { COLLECTOR_DIR, GATEWAY, ensureCollector, freePort, pollUntil, startCollector, type RunningCollector } from './setup/collector.js';
import { startPrometheus, type PrometheusAlert, type RunningPrometheus } from './setup/prometheus.js';
import { agentSpans, agentTrace, makeProject, postTraces, startServe, traceId, type ServeProc } from './setup/verdict-corpus.js';

const TOKEN = 'it-metrics-token-5b1e';
const auth = { authorization: `Bearer ${TOKEN}` };
let project: { dir: string; env: Record<string, string> };
let sink: OtlpSink;
let collector: RunningCollector;
let serve: ServeProc;
let prometheus: RunningPrometheus;
/** Alert states seen while polling, per `alertname job case`. */
const seen = new Map<string, Set<string>>();
let rejudged = 0;

/** A counter summed per scrape job. */
async function byJob(expr: string): Promise<Record<string, number>> {
  return Object.fromEntries((await prometheus.query(`sum by (job) (${expr})`)).map((r) => [r.metric.job, r.value]));
}

const alertKey = (a: PrometheusAlert): string =>
  `${a.labels.alertname} ${a.labels.job} ${a.labels.runspec_eval_case_id ?? ''}${a.labels.runspec_eval_rule ? ` rule:${a.labels.runspec_eval_rule}` : ''}`;

beforeAll(async () => {
  const build = await ensureCollector();
  project = makeProject('runspec-it-alerts-');
  sink = await startOtlpSink();
  const [grpc, http, verdicts, prom, s1, s2, s3] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  collector = await startCollector(build.binary, GATEWAY, {
    HOME: project.env.HOME!,
    GATEWAY_OTLP_GRPC_ENDPOINT: `127.0.0.1:${grpc}`,
    GATEWAY_OTLP_HTTP_ENDPOINT: `127.0.0.1:${http}`,
    GATEWAY_VERDICTS_ENDPOINT: `127.0.0.1:${verdicts}`,
    GATEWAY_PROMETHEUS_ENDPOINT: `127.0.0.1:${prom}`,
    GATEWAY_METRICS_FLUSH_INTERVAL: '1s',
    GATEWAY_ARCHIVE_DIR: join(project.dir, 'archive'),
    GATEWAY_SCORER_1: `127.0.0.1:${s1}`,
    GATEWAY_SCORER_2: `127.0.0.1:${s2}`,
    GATEWAY_SCORER_3: `127.0.0.1:${s3}`,
    GATEWAY_BACKEND_ENDPOINT: sink.url,
  });
  serve = await startServe(project.dir, { ...project.env, METRICS_TOKEN: TOKEN }, [
    '--port',
    '0',
    '--quiet-ms',
    '300',
    '--token-env',
    'METRICS_TOKEN',
    '--export',
    '--otlp-endpoint',
    `http://127.0.0.1:${verdicts}/v1/traces`,
  ]);
  prometheus = await startPrometheus({
    dir: join(project.dir, 'prometheus'),
    ruleFiles: [join(COLLECTOR_DIR, 'alerts.yml')],
    targets: [
      { job: 'otelcol', target: `127.0.0.1:${prom}` },
      { job: 'runspec-serve', target: new URL(serve.url).host, bearerToken: TOKEN },
    ],
  });
});

afterAll(async () => {
  await prometheus?.stop();
  await serve?.stop();
  await collector?.stop();
  await sink?.close();
  if (project) rmSync(project.dir, { recursive: true, force: true });
});

describe('verdict alerts in Prometheus, from span_metrics and from serve /metrics', () => {
  it('serve answers /metrics only with its token', async () => {
    expect((await fetch(`${serve.url}/metrics`)).status).toBe(401);
    const ok = await fetch(`${serve.url}/metrics`, { headers: auth });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('a failing burst fires RunspecFailingVerdictBurst on both paths, pending then firing; passing, errored and unscorable traffic do not', async () => {
    // Benign traffic first: passing read-readme traces, errored runs of the same case, unscorable rule verdicts.
    let t = 1;
    for (let i = 0; i < 6; i++)
      await postTraces(serve.url, agentTrace({ t: t++, prompt: 'please read the README', calls: [{ name: 'file_read', args: { path: 'README.md' } }] }), auth);
    for (let i = 0; i < 3; i++)
      await postTraces(
        serve.url,
        agentTrace({ t: t++, prompt: 'please read the README', calls: [{ name: 'file_read', args: { path: 'README.md' } }], error: true }),
        auth,
      );
    for (let i = 0; i < 3; i++)
      await postTraces(
        serve.url,
        agentTrace({ t: t++, prompt: 'say hello', calls: [{ name: 'echo', args: { text: 'hi' } }], service: 'unscorable-agent' }),
        auth,
      );
    // A re-judged trace (list-files): the root and chat span first; once judged, a late tool span re-opens it.
    rejudged = t++;
    const spans = agentSpans({ t: rejudged, prompt: 'list the files', calls: [{ name: 'list_dir', args: { path: '.' } }] });
    await postTraces(serve.url, request(spans.slice(0, 2)), auth);
    await pollUntil(
      'the first judgement of the re-judged trace',
      () => (serve.lines().some((l) => l.traceId === traceId(rejudged)) ? true : undefined),
      20_000,
    );
    await postTraces(serve.url, request(spans.slice(2)), auth);
    // The burst: six failing find-todos verdicts.
    for (let i = 0; i < 6; i++)
      await postTraces(
        serve.url,
        agentTrace({
          t: t++,
          prompt: 'look for todo markers',
          calls: [{ name: 'glob', args: { pattern: '**/*' } }],
          root: { 'runspec.eval.case_id': 'find-todos' },
        }),
        auth,
      );

    const firing = await pollUntil(
      'RunspecFailingVerdictBurst firing on both paths',
      async () => {
        const alerts = await prometheus.alerts();
        for (const a of alerts) {
          const k = alertKey(a);
          if (!seen.has(k)) seen.set(k, new Set());
          seen.get(k)!.add(a.state);
        }
        const burst = alerts.filter((a) => a.labels.alertname === 'RunspecFailingVerdictBurst' && a.state === 'firing');
        return new Set(burst.map((a) => a.labels.job)).size === 2 ? alerts : undefined;
      },
      120_000,
      500,
    );

    // Pending first, then firing, for find-todos on each path; nothing for any other case or rule.
    expect(seen.get('RunspecFailingVerdictBurst otelcol find-todos')).toEqual(new Set(['pending', 'firing']));
    expect(seen.get('RunspecFailingVerdictBurst runspec-serve find-todos')).toEqual(new Set(['pending', 'firing']));
    expect([...seen.keys()].sort()).toEqual(['RunspecFailingVerdictBurst otelcol find-todos', 'RunspecFailingVerdictBurst runspec-serve find-todos']);
    expect(firing.map((a) => a.labels.severity)).toEqual(['page', 'page']);

    // Each path counted the same verdicts: 6 failing, read-readme 6 passing + 3 errored, 3 unscorable.
    expect(await byJob('runspec_verdicts_calls_total{runspec_eval_case_id="find-todos",runspec_eval_pass="false"}')).toEqual({
      otelcol: 6,
      'runspec-serve': 6,
    });
    expect(await byJob('runspec_verdicts_calls_total{runspec_eval_category="error"}')).toEqual({ otelcol: 3, 'runspec-serve': 3 });
    expect(await byJob('runspec_verdicts_calls_total{runspec_eval_category="unscorable"}')).toEqual({ otelcol: 3, 'runspec-serve': 3 });
    expect(await byJob('runspec_verdicts_calls_total{runspec_eval_case_id="read-readme",runspec_eval_pass="true"}')).toEqual({
      otelcol: 6,
      'runspec-serve': 6,
    });
    expect(collector.deprecations()).toEqual([]);
  });

  it('a re-judged trace counts once on both paths', async () => {
    // Its judgements were in before the alert fired (serve re-judges within 10 × --quiet-ms).
    const lines = serve.lines().filter((l) => l.traceId === traceId(rejudged) && l.case === 'list-files');
    expect(lines.length).toBeGreaterThan(1);
    expect(await byJob('runspec_verdicts_calls_total{runspec_eval_case_id="list-files"}')).toEqual({ otelcol: 1, 'runspec-serve': 1 });
  });
});
