// Verdict metrics settings from OpenTelemetry's own variables (opentelemetry-specification v1.60.0
// configuration/sdk-environment-variables.md "Exporter Selection" and "Periodic exporting MetricReader";
// protocol/exporter.md for the endpoint): OTEL_METRICS_EXPORTER picks `otlp` (push) and/or `prometheus`
// (pull, served by `serve` at /metrics) or `none`; the metrics-specific endpoint is used as given, the
// generic one gets `v1/metrics` appended. A bad value warns and falls back, as for traces.
import type { Env } from './env.js';
import { httpUrlFromEnv, parseHeaders, parseResourceAttributes } from './telemetry.js';

export interface OtlpMetricsConfig {
  /** Full metrics URL (…/v1/metrics). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Merged OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_METRICS_HEADERS (secrets: never print). */
  headers: Record<string, string>;
  /** OTEL_METRIC_EXPORT_INTERVAL. @default 60000 */
  intervalMs: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT. @default 30000 */
  timeoutMs: number;
}

export interface MetricsConfig {
  /** Serve Prometheus text at /metrics (only where there is a server: `serve`). */
  prometheus: boolean;
  /** Push over OTLP/HTTP when OTEL_METRICS_EXPORTER names `otlp` and an endpoint is set. */
  otlp?: OtlpMetricsConfig;
  serviceName: string;
  resourceAttributes: Record<string, string>;
}

const EXPORTERS = ['otlp', 'prometheus', 'none'] as const;

/**
 * @param defaults what applies when OTEL_METRICS_EXPORTER is unset: `serve` serves /metrics by default
 * (it has a port); `run` exports nothing unless asked.
 * @example resolveMetricsConfig(readEnv(process.env), { exporters: ['prometheus'] })
 */
export function resolveMetricsConfig(env: Env, defaults: { exporters: Array<'otlp' | 'prometheus'>; serviceName?: string }): MetricsConfig {
  const warn = (m: string): void => {
    env.warnings.push(m);
  };
  let exporters: string[] = defaults.exporters;
  const raw = env.get('OTEL_METRICS_EXPORTER');
  if (raw !== undefined) {
    const names = raw
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    const bad = names.filter((n) => !(EXPORTERS as readonly string[]).includes(n));
    if (bad.length) warn(`OTEL_METRICS_EXPORTER: ${bad.map((b) => JSON.stringify(b)).join(', ')} not supported (otlp, prometheus or none); ignored`);
    exporters = names.includes('none') ? [] : names.filter((n) => n === 'otlp' || n === 'prometheus');
  }
  const resourceAttributes = parseResourceAttributes(env, warn);
  const serviceName = env.get('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? defaults.serviceName ?? 'runspec-eval';
  delete resourceAttributes['service.name'];
  const config: MetricsConfig = { prometheus: exporters.includes('prometheus'), serviceName, resourceAttributes };
  if (!exporters.includes('otlp')) return config;
  let url = httpUrlFromEnv(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', warn);
  if (url === undefined) {
    const base = httpUrlFromEnv(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', warn);
    if (base !== undefined) url = base.endsWith('/') ? `${base}v1/metrics` : `${base}/v1/metrics`;
  }
  if (url === undefined) {
    warn('OTEL_METRICS_EXPORTER=otlp: no OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; verdict metrics are not pushed');
    return config;
  }
  let protocol: OtlpMetricsConfig['protocol'] = 'http/protobuf';
  for (const name of ['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const v = env.get(name);
    if (v === undefined) continue;
    if (v === 'http/protobuf' || v === 'http/json') protocol = v;
    else warn(`${name}: verdict metrics go over http/protobuf or http/json (got ${JSON.stringify(v)}); using http/protobuf`);
    break;
  }
  const positive = (name: string, fallback: number): number => {
    const v = env.int(name);
    if (v === undefined) return fallback;
    if (v > 0) return v;
    warn(`${name}: expected a positive number of milliseconds (got ${v}); using ${fallback}`);
    return fallback;
  };
  config.otlp = {
    url,
    protocol,
    headers: { ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_HEADERS', warn), ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', warn) },
    intervalMs: positive('OTEL_METRIC_EXPORT_INTERVAL', 60_000),
    timeoutMs: positive('OTEL_METRIC_EXPORT_TIMEOUT', 30_000),
  };
  // The SDK rejects a timeout longer than the interval.
  if (config.otlp.timeoutMs > config.otlp.intervalMs) config.otlp.timeoutMs = config.otlp.intervalMs;
  return config;
}
