// Verdict counters through the official SDK: the Prometheus text the scrape handler serves and the OTLP
// body the push exporter sends (http/json, decoded here), named and labelled as span_metrics labels
// verdict spans, so one rule file fits both paths.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readEnv } from '../../src/config/env.js';
import { resolveMetricsConfig } from '../../src/config/metrics.js';
import { verdictAttributes } from '../../src/telemetry/conventions/runspec.js';
import {
  createVerdictMetrics,
  VERDICT_METRIC_DIMENSIONS,
  verdictMetricAttributes,
  type VerdictMetricInput,
  type VerdictMetrics,
} from '../../src/telemetry/verdict-metrics.js';
import type { Verdict, VerdictCategory } from '../../src/types/verdict.js';

function verdict(caseId: string, category: VerdictCategory, pass: boolean): Verdict {
  return { caseId, sample: 0, dialect: 'runspec', pass, category, reason: 'r', expected: {}, observed: {}, jsonDump: false, status: 'ok', calls: [] };
}

const servers: Server[] = [];
let metrics: VerdictMetrics | undefined;
afterEach(async () => {
  await metrics?.shutdown();
  metrics = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('verdict metrics', () => {
  it('labels a verdict as its verdict span is labelled: no pass for unscorable or errored verdicts', () => {
    expect(verdictMetricAttributes({ verdict: verdict('refund', 'wrong_tool', false) })).toEqual({
      'runspec.eval.category': 'wrong_tool',
      'runspec.eval.pass': false,
      'runspec.eval.case_id': 'refund',
    });
    expect(verdictMetricAttributes({ verdict: verdict('refund', 'unscorable', false) })).toEqual({
      'runspec.eval.category': 'unscorable',
      'runspec.eval.case_id': 'refund',
    });
    expect(verdictMetricAttributes({ verdict: verdict('refund', 'error', false) })).toEqual({
      'runspec.eval.category': 'error',
      'runspec.eval.case_id': 'refund',
    });
    expect(verdictMetricAttributes({ verdict: { ...verdict('no-shell', 'pass', true), dialect: 'rule' }, rule: 'no-shell' })).toEqual({
      'runspec.eval.category': 'pass',
      'runspec.eval.pass': true,
      'runspec.eval.case_id': 'no-shell',
      'runspec.eval.rule': 'no-shell',
    });
  });

  it("gives exactly the verdict span's attributes of the four dimensions", () => {
    const inputs: VerdictMetricInput[] = [
      { verdict: verdict('refund', 'wrong_tool', false) },
      { verdict: verdict('refund', 'pass', true), caseId: 'other' },
      { verdict: verdict('refund', 'incomplete', false), rule: 'budget' },
      { verdict: { ...verdict('', 'pass', true), dialect: 'rule' }, rule: 'budget' },
      { error: { code: 'TIMEOUT', message: 'slow' }, caseId: 'refund' },
    ];
    for (const input of inputs) {
      const span = verdictAttributes({
        caseId: input.caseId ?? input.verdict?.caseId ?? input.rule ?? '',
        ...(input.verdict ? { verdict: input.verdict } : {}),
        ...(input.error ? { error: input.error } : {}),
        ...(input.rule !== undefined ? { rule: input.rule } : {}),
      });
      const picked = Object.fromEntries(VERDICT_METRIC_DIMENSIONS.flatMap((k) => (span[k] === undefined ? [] : [[k, span[k]]])));
      expect(verdictMetricAttributes(input)).toEqual(picked);
    }
  });

  it('serves runspec_verdicts_calls_total as Prometheus text', async () => {
    metrics = createVerdictMetrics(resolveMetricsConfig(readEnv({}), { exporters: ['prometheus'] }));
    for (let i = 0; i < 3; i++) metrics.record({ verdict: verdict('refund', 'wrong_tool', false) });
    metrics.record({ verdict: verdict('refund', 'unscorable', false) });
    const url = await listen((req, res) => metrics!.scrape!(req, res));
    const text = await (await fetch(`${url}/metrics`)).text();
    const series = text.split('\n').filter((l) => l.startsWith('runspec_verdicts_calls_total{'));
    expect(series).toHaveLength(2);
    expect(series.find((l) => l.includes('runspec_eval_pass="false"'))).toMatch(/runspec_eval_category="wrong_tool".*runspec_eval_case_id="refund".* 3$/);
    expect(series.find((l) => l.includes('unscorable'))).not.toContain('runspec_eval_pass');
  });

  it('pushes the counter over OTLP (http/json) to the metrics endpoint, cumulative', async () => {
    const bodies: unknown[] = [];
    const url = await listen((req, res) => {
      let b = '';
      req
        .setEncoding('utf8')
        .on('data', (c: string) => (b += c))
        .on('end', () => {
          bodies.push({ path: req.url, body: JSON.parse(b) as unknown });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
    });
    const env = readEnv({
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'scorer',
    });
    metrics = createVerdictMetrics(resolveMetricsConfig(env, { exporters: [] }));
    expect(metrics.scrape).toBeUndefined();
    metrics.record({ verdict: verdict('refund', 'wrong_tool', false) });
    metrics.record({ verdict: verdict('refund', 'wrong_tool', false) });
    await metrics.shutdown();
    metrics = undefined;
    expect(bodies).toHaveLength(1);
    const { path, body } = bodies[0] as {
      path: string;
      body: {
        resourceMetrics: Array<{
          resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
          scopeMetrics: Array<{
            metrics: Array<{
              name: string;
              sum: { aggregationTemporality: number; isMonotonic: boolean; dataPoints: Array<{ asInt?: string | number; attributes: unknown[] }> };
            }>;
          }>;
        }>;
      };
    };
    expect(path).toBe('/v1/metrics');
    const rm = body.resourceMetrics[0]!;
    expect(rm.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue).toBe('scorer');
    const m = rm.scopeMetrics[0]!.metrics[0]!;
    expect(m.name).toBe('runspec.verdicts.calls');
    expect(m.sum.isMonotonic).toBe(true);
    expect(m.sum.aggregationTemporality).toBe(2); // CUMULATIVE
    expect(Number(m.sum.dataPoints[0]!.asInt)).toBe(2);
  });
});
