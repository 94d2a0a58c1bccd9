// Verdict counters as OpenTelemetry metrics, without a Collector: one monotonic counter
// `runspec.verdicts.calls` by runspec.eval.{category,pass,case_id,rule} — the name and dimensions the
// Collector's span_metrics connector gives verdict spans with `namespace: runspec.verdicts`
// (examples/collector/gateway.yaml), so one Prometheus rule file (examples/collector/alerts.yml) fits both:
// `runspec_verdicts_calls_total{runspec_eval_pass="false"}`. Built with the official SDK on a private meter
// provider (never registered globally); pulled as Prometheus text (`scrape`, mounted by `serve` at
// /metrics) and/or pushed over OTLP/HTTP. Export failures warn once and are dropped.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValueType, type Attributes } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPMetricExporter as OtlpProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPMetricExporter as OtlpJsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { MetricsConfig } from '../config/metrics.js';
import { ATTR_RUNSPEC_EVAL_CASE_ID, ATTR_RUNSPEC_EVAL_CATEGORY, ATTR_RUNSPEC_EVAL_PASS, ATTR_RUNSPEC_EVAL_RULE } from '../semconv/attributes.js';
import type { RunError } from '../types/run.js';
import type { Verdict } from '../types/verdict.js';
import { summarizeVerdict } from './conventions/runspec.js';

/** The counter's name: span_metrics' `calls` metric under `namespace: runspec.verdicts`. */
export const VERDICT_CALLS_METRIC = 'runspec.verdicts.calls';
/** The dimensions, as span_metrics is configured with them in examples/collector/gateway.yaml. */
export const VERDICT_METRIC_DIMENSIONS = [ATTR_RUNSPEC_EVAL_CATEGORY, ATTR_RUNSPEC_EVAL_PASS, ATTR_RUNSPEC_EVAL_CASE_ID, ATTR_RUNSPEC_EVAL_RULE] as const;

/** One final verdict (or a sample that errored before it had one). */
export interface VerdictMetricInput {
  verdict?: Verdict;
  error?: RunError;
  /** Defaults to the verdict's case id (as on verdict spans). */
  caseId?: string;
  rule?: string;
}

export interface VerdictMetrics {
  /** Count one final verdict. Never throws. */
  record(input: VerdictMetricInput): void;
  /** Prometheus text exposition of the counters; undefined unless `prometheus` is on. */
  readonly scrape: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  /** Push what is counted (OTLP), then stop. Never rejects; returns within the export timeout. */
  shutdown(): Promise<void>;
}

export interface VerdictMetricsOptions {
  onWarning?: (message: string) => void;
  /** Instrumentation scope version. */
  version?: string;
}

/** Warns once per problem, then drops: a failing push never changes a verdict or an exit code. */
class WarningMetricExporter implements PushMetricExporter {
  constructor(
    private readonly inner: PushMetricExporter,
    private readonly warn: (message: string) => void,
  ) {}
  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.inner.export(metrics, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.warn(result.error?.message ?? 'export failed');
      done(result);
    });
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  selectAggregationTemporality(): AggregationTemporality {
    // Cumulative: what Prometheus (and the Collector's prometheus exporter) expects of a counter.
    return AggregationTemporality.CUMULATIVE;
  }
}

/**
 * The counter's attributes for a verdict: exactly those verdict spans carry for the same dimensions
 * (conventions/runspec.ts verdictAttributes: case id and rule as given, category and pass as summarizeVerdict
 * gives them), without building the span's other attributes.
 */
export function verdictMetricAttributes(input: VerdictMetricInput): Attributes {
  const ctx: Parameters<typeof summarizeVerdict>[0] = { captureContent: true };
  if (input.verdict) ctx.verdict = input.verdict;
  if (input.error) ctx.error = input.error;
  if (input.rule !== undefined) ctx.rule = input.rule;
  const s = summarizeVerdict(ctx);
  const out: Attributes = { [ATTR_RUNSPEC_EVAL_CATEGORY]: s.category };
  if (s.judged) out[ATTR_RUNSPEC_EVAL_PASS] = s.pass;
  out[ATTR_RUNSPEC_EVAL_CASE_ID] = input.caseId ?? input.verdict?.caseId ?? input.rule ?? '';
  if (input.rule !== undefined) out[ATTR_RUNSPEC_EVAL_RULE] = input.rule;
  return out;
}

/**
 * @example
 * const metrics = createVerdictMetrics(resolveMetricsConfig(env, { exporters: ['prometheus'] }));
 * metrics.record({ verdict, caseId });   // server.get('/metrics', metrics.scrape)
 */
export function createVerdictMetrics(config: MetricsConfig, options: VerdictMetricsOptions = {}): VerdictMetrics {
  const warned = new Set<string>();
  const warn = (m: string): void => {
    if (warned.has(m)) return;
    warned.add(m);
    try {
      options.onWarning?.(m);
    } catch {
      // a failing warning sink must not break scoring
    }
  };
  const readers: IMetricReader[] = [];
  let prometheus: PrometheusExporter | undefined;
  if (config.prometheus) {
    // No server of its own: the caller mounts `scrape` on its port (behind its token).
    prometheus = new PrometheusExporter({ preventServerStart: true });
    readers.push(prometheus);
  }
  if (config.otlp) {
    const o = config.otlp;
    const exporterConfig = { url: o.url, headers: o.headers, timeoutMillis: o.timeoutMs };
    const inner = o.protocol === 'http/json' ? new OtlpJsonMetricExporter(exporterConfig) : new OtlpProtoMetricExporter(exporterConfig);
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new WarningMetricExporter(inner, (e) => warn(`verdict metrics: export to ${o.url} failed (${e}); dropped`)),
        exportIntervalMillis: o.intervalMs,
        exportTimeoutMillis: o.timeoutMs,
      }),
    );
  }
  if (readers.length === 0) return { record: () => undefined, scrape: undefined, shutdown: async () => undefined };
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName }),
    readers,
  });
  // Counted here, by label set, and observed when a reader collects (a scrape, a push, shutdown): the same
  // monotonic cumulative sum a Counter gives, without the SDK's per-add attribute hashing (serve counts every
  // final verdict as it is written).
  const totals = new Map<string, { attributes: Attributes; count: number }>();
  provider
    .getMeter('runspec-eval', options.version)
    .createObservableCounter(VERDICT_CALLS_METRIC, { description: 'Final verdicts, by category, pass, case and rule', valueType: ValueType.INT })
    .addCallback((result) => {
      for (const { attributes, count } of totals.values()) result.observe(count, attributes);
    });
  const timeoutMs = config.otlp?.timeoutMs ?? 5000;
  return {
    record(input) {
      try {
        const attributes = verdictMetricAttributes(input);
        const key = JSON.stringify([
          attributes[ATTR_RUNSPEC_EVAL_CATEGORY],
          attributes[ATTR_RUNSPEC_EVAL_PASS] ?? null,
          attributes[ATTR_RUNSPEC_EVAL_CASE_ID],
          attributes[ATTR_RUNSPEC_EVAL_RULE] ?? null,
        ]);
        const total = totals.get(key);
        if (total) total.count++;
        else totals.set(key, { attributes, count: 1 });
      } catch (err) {
        warn(`verdict metrics: not counted (${(err as Error).message})`);
      }
    },
    scrape: prometheus ? (req, res) => prometheus.getMetricsRequestHandler(req, res) : undefined,
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs + 1000);
        timer.unref();
      });
      await Promise.race([provider.shutdown().catch((err: unknown) => warn(`verdict metrics: shutdown failed (${(err as Error).message})`)), timeout]);
      clearTimeout(timer);
    },
  };
}
