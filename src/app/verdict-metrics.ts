// Verdict metrics for the scoring front ends: `serve` counts each trace's final verdicts and serves them at
// /metrics (and pushes them over OTLP with OTEL_METRICS_EXPORTER=otlp); `run` pushes its samples' verdicts
// over OTLP when asked. The SDK loads only when some exporter is on.
import { resolveMetricsConfig } from '../config/metrics.js';
import type { Env } from '../config/env.js';
import type { VerdictMetrics } from '../telemetry/verdict-metrics.js';
import type { TraceOutcome, TraceVerdictLine } from '../traces/score-traces.js';
import type { CaseResult } from '../types/verdict.js';
import { VERSION } from '../core/version.js';

export interface OutcomeMetrics {
  /** Count the final verdicts of a scored trace. */
  add(outcome: TraceOutcome): void;
  /** The Prometheus endpoint, when on: mount at /metrics. */
  readonly scrape: VerdictMetrics['scrape'];
  shutdown(): Promise<void>;
}

/** Whether a verdict line is its trace's final judgement (only those are counted). */
export function isFinalLine(line: TraceVerdictLine): boolean {
  return line.final;
}

/** @example const metrics = await createOutcomeMetrics(env, { exporters: ['prometheus'] }, warn); */
export async function createOutcomeMetrics(
  env: Env,
  defaults: { exporters: Array<'otlp' | 'prometheus'> },
  onWarning: (message: string) => void,
): Promise<OutcomeMetrics> {
  const config = resolveMetricsConfig(env, defaults);
  for (const w of env.warnings.splice(0)) onWarning(w);
  if (!config.prometheus && !config.otlp) return { add: () => undefined, scrape: undefined, shutdown: async () => undefined };
  const { createVerdictMetrics } = await import('../telemetry/verdict-metrics.js');
  const metrics = createVerdictMetrics(config, { onWarning, version: VERSION });
  return {
    add(outcome) {
      if (outcome.kind !== 'scored') return;
      // lines[i] is the line of verdicts[i] (a trace no case or rule graded has one line and no verdict).
      outcome.verdicts.forEach((v, i) => {
        const line = outcome.lines[i];
        if (line && !isFinalLine(line)) return;
        const input: Parameters<VerdictMetrics['record']>[0] = { verdict: v.verdict };
        if (v.caseId !== undefined) input.caseId = v.caseId;
        if (v.rule !== undefined) input.rule = v.rule;
        metrics.record(input);
      });
    },
    scrape: metrics.scrape,
    shutdown: () => metrics.shutdown(),
  };
}

export interface RunMetrics {
  /** Count every sample of a finished case: its verdict, or `error` for a sample that errored. */
  addCase(result: CaseResult): void;
  shutdown(): Promise<void>;
}

/**
 * `run`'s verdict counters: pushed over OTLP when OTEL_METRICS_EXPORTER names `otlp` (a run has no port to
 * scrape). Same counter and labels as `serve` and the Collector's span_metrics path.
 */
export async function createRunMetrics(env: Env, onWarning: (message: string) => void): Promise<RunMetrics> {
  const config = resolveMetricsConfig(env, { exporters: [] });
  for (const w of env.warnings.splice(0)) onWarning(w);
  if (!config.otlp) return { addCase: () => undefined, shutdown: async () => undefined };
  const { createVerdictMetrics } = await import('../telemetry/verdict-metrics.js');
  const metrics = createVerdictMetrics({ ...config, prometheus: false }, { onWarning, version: VERSION });
  return {
    addCase(result) {
      for (const s of result.samples) {
        if (s.status === 'scored') metrics.record({ verdict: s.verdict, caseId: result.caseId });
        else metrics.record({ error: s.error, caseId: result.caseId });
      }
    },
    shutdown: () => metrics.shutdown(),
  };
}
