import { describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { resolveMetricsConfig } from '../../src/config/metrics.js';

describe('resolveMetricsConfig', () => {
  it('uses the caller default when OTEL_METRICS_EXPORTER is unset: serve serves /metrics, run nothing', () => {
    expect(resolveMetricsConfig(readEnv({}), { exporters: ['prometheus'] })).toMatchObject({ prometheus: true, serviceName: 'runspec-eval' });
    const run = resolveMetricsConfig(readEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), { exporters: [] });
    expect(run.prometheus).toBe(false);
    expect(run.otlp).toBeUndefined();
  });

  it('none turns everything off', () => {
    expect(resolveMetricsConfig(readEnv({ OTEL_METRICS_EXPORTER: 'none' }), { exporters: ['prometheus'] })).toMatchObject({ prometheus: false });
  });

  it('otlp: the generic endpoint gets v1/metrics, the metrics one is used as given, headers merge', () => {
    const generic = resolveMetricsConfig(
      readEnv({
        OTEL_METRICS_EXPORTER: 'otlp,prometheus',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'b=3',
      }),
      { exporters: [] },
    );
    expect(generic.prometheus).toBe(true);
    expect(generic.otlp).toEqual({
      url: 'http://c:4318/v1/metrics',
      protocol: 'http/protobuf',
      headers: { a: '1', b: '3' },
      intervalMs: 60_000,
      timeoutMs: 30_000,
    });
    const specific = resolveMetricsConfig(
      readEnv({
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:9/x',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '500',
      }),
      { exporters: [] },
    );
    expect(specific.otlp).toMatchObject({ url: 'http://m:9/x', protocol: 'http/json', intervalMs: 500, timeoutMs: 500 });
  });

  it('warns and falls back on bad values, as OTel does', () => {
    const env = readEnv({ OTEL_METRICS_EXPORTER: 'otlp,statsd', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' });
    const c = resolveMetricsConfig(env, { exporters: [] });
    expect(c.otlp).toBeUndefined();
    expect(env.warnings.join('\n')).toMatch(/"statsd" not supported/);
    expect(env.warnings.join('\n')).toMatch(/no OTEL_EXPORTER_OTLP_METRICS_ENDPOINT/);
  });
});
