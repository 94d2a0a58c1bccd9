// The SDK side: a private tracer provider (never registered globally) with a batch processor in front of
// the OTLP exporter (http/protobuf by default, which Phoenix requires, or http/json) or the embedded
// JSON-lines file sink. Telemetry failures warn once and are dropped: they never change a verdict, an exit
// code or the results file, and shutdown returns within the export timeout even if the collector hangs.
import { errorText } from '../core/error-text.js';
import { traceLink } from '../core/trace-link.js';
import type { Tracer } from '@opentelemetry/api';
import { SEMRESATTRS_PROJECT_NAME } from '@arizeai/openinference-semantic-conventions';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TelemetryConfig } from '../config/telemetry.js';
import { resolveExporterSpec, setupWarning, type ExporterSpec, type ResolvedExporter } from './exporter-spec.js';
import { annotationTls, buildSpanAnnotations, postSpanAnnotations, type AnnotationTarget } from './phoenix.js';

export { annotationTls } from './phoenix.js';
import { renderRunTrace, type RenderedTrace, type RenderInput } from './render.js';
import { exportAgentTrace, PresetIdGenerator, type CapturedTrace } from './agent-trace.js';

export const TRACER_NAME = 'runspec-eval';

/** Renders case samples as traces and ships them; every method is safe to call when disabled. */
export interface Telemetry {
  readonly enabled: boolean;
  /** Where spans go, for logs: the traces URL or the JSON-lines file path. */
  readonly destination: string | undefined;
  /** Render one case sample (content capture comes from the config); undefined when disabled or failed. */
  emitCase(input: Omit<RenderInput, 'captureContent'>): RenderedTrace | undefined;
  /**
   * An agent target's case: the spans it emitted, exported as they are, under the case root carrying the
   * verdict (agent-trace.ts); nothing re-rendered. Undefined when disabled or failed.
   */
  emitAgentCase(input: Omit<RenderInput, 'captureContent'>, captured: CapturedTrace): RenderedTrace | undefined;
  /** The tracer, for verdict spans (emitVerdictSpan) and other callers. */
  readonly tracer: Tracer | undefined;
  /** Export what is buffered, then post pending Phoenix annotations and LangSmith feedback. Never rejects. */
  flush(): Promise<void>;
  /** flush() then close the exporter; returns within the export timeout. Never rejects. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /** Receives one line per distinct telemetry problem (no `telemetry:` prefix; the caller adds context). */
  onWarning?: (msg: string) => void;
  /** JSON-lines file name under the traces directory. @default "traces-<time>-<pid>.jsonl" */
  fileName?: string;
  /** Package version for the instrumentation scope. */
  version?: string;
}

const DISABLED: Telemetry = {
  enabled: false,
  destination: undefined,
  tracer: undefined,
  emitCase: () => undefined,
  emitAgentCase: () => undefined,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

/**
 * Build the telemetry pipeline from a resolved config (see resolveTelemetryConfig).
 *
 * @example
 * const telemetry = createTelemetry(cfg, { onWarning: (m) => ctx.warn(m) });
 * telemetry.emitCase({ case: c, run, verdict, result, runId });
 * await telemetry.shutdown();
 */
export function createTelemetry(config: TelemetryConfig, opts: TelemetryOptions = {}): Telemetry {
  return pipelineOf(config, opts).telemetry;
}

/**
 * createTelemetry over an exporter resolved beforehand (deferred.ts resolves it when the run starts, so a
 * bad setup is reported then), with the exporter's modules already loaded (a load failure is still reported
 * at the first export): `run` opens it when its first case finishes, so neither the SDK nor the exporter
 * loads before the first request or in the middle of a later batch.
 */
export async function openTelemetry(config: TelemetryConfig, resolved: ResolvedExporter, opts: TelemetryOptions = {}): Promise<Telemetry> {
  const { telemetry, loadExporter } = pipelineOf(config, opts, resolved);
  await loadExporter();
  return telemetry;
}

const NOTHING_TO_LOAD = { telemetry: DISABLED, loadExporter: async (): Promise<void> => undefined };

function pipelineOf(config: TelemetryConfig, opts: TelemetryOptions, resolved?: ResolvedExporter): { telemetry: Telemetry; loadExporter: () => Promise<void> } {
  if (!config.enabled) return NOTHING_TO_LOAD;
  const warned = new Set<string>();
  const warn = (key: string, msg: string): void => {
    if (warned.has(key)) return;
    warned.add(key);
    try {
      opts.onWarning?.(msg);
    } catch {
      // a failing warning sink must not break the run either
    }
  };

  let exporter: LazyExporter;
  let destination: string;
  try {
    const { spec, destination: to } = resolved ?? resolveExporterSpec(config, opts.fileName);
    destination = to;
    exporter = createExporter(spec);
  } catch (err) {
    warn('setup', setupWarning(err));
    return NOTHING_TO_LOAD;
  }
  // Root span ids waiting for an annotation, and those whose export succeeded: Phoenix gets annotations
  // only for spans it has (or will have), never for spans that were dropped.
  const awaiting = new Set<string>();
  const exported = new Set<string>();
  const guarded = new WarningExporter(
    exporter,
    (e) => warn('export', `export to ${destination} failed (${errorText(e, config.timeoutMs)}); spans dropped, the eval run is unaffected`),
    (spans) => {
      // Nothing awaits an annotation or feedback unless they are on.
      if (awaiting.size === 0) return;
      for (const s of spans) {
        const id = s.spanContext().spanId;
        if (awaiting.has(id)) exported.add(id);
      }
    },
  );
  const timeoutMs = config.timeoutMs;
  const resource = resourceFromAttributes({
    ...config.resourceAttributes,
    [ATTR_SERVICE_NAME]: config.serviceName,
    ...(config.project !== undefined ? { [SEMRESATTRS_PROJECT_NAME]: config.project } : {}),
  });
  // Flattened message lists easily pass the default of 128 attributes; never truncate silently.
  const spanLimits = { attributeCountLimit: 100_000, eventCountLimit: 1000, linkCountLimit: 1000 };
  // A run makes spans faster than the SDK's default queue (2,048) drains at the default 5 s delay: the queue
  // holds a large run's spans instead of dropping them, and a batch leaves each second or at 512 spans (the
  // spec's batch size: the serialiser's cost is per span, so larger batches save only a few POSTs and
  // block the event loop longer per export). The user's OTEL_BSP_* win over each.
  const batch = config.batch ?? {};
  const processor = new BatchSpanProcessor(guarded, {
    maxQueueSize: batch.maxQueueSize ?? 100_000,
    maxExportBatchSize: batch.maxExportBatchSize ?? 512,
    scheduledDelayMillis: batch.scheduledDelayMs ?? 1000,
    exportTimeoutMillis: batch.exportTimeoutMs ?? timeoutMs,
  });
  // Private and never registered, so a host application's global OpenTelemetry setup is never touched (the
  // Node provider differs from the basic one only in register(), and would load the async-hooks context
  // manager for nothing).
  // Preset ids re-emit an agent target's case root with the ids its spans already point at (agent-trace.ts).
  const ids = new PresetIdGenerator(new RandomIdGenerator());
  const provider = new BasicTracerProvider({ resource, spanLimits, idGenerator: ids, spanProcessors: [processor] });
  const tracer = provider.getTracer(TRACER_NAME, opts.version);
  let pending: AnnotationTarget[] = [];
  let closed = false;

  const within = async (work: Promise<unknown>, ms: number, what: string): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, ms));
      timer.unref();
    });
    try {
      const r = await Promise.race([work.then(() => 'ok' as const), timeout]);
      if (r === 'timeout') {
        warn('export', `${what} did not finish within ${timeoutMs} ms (${destination}); spans dropped, the eval run is unaffected`);
        return false;
      }
      return true;
    } catch (err) {
      warn('export', `${what} failed (${errorText(err, timeoutMs)}); spans dropped, the eval run is unaffected`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  };

  const flushUntil = async (deadline: number): Promise<void> => {
    await within(provider.forceFlush(), deadline - Date.now(), `export to ${destination}`);
    if (pending.length === 0) return;
    // Only verdicts whose spans were exported are annotated or sent as feedback.
    const targets = pending.filter((t) => exported.has(t.spanId));
    const dropped = pending.length - targets.length;
    for (const t of pending) {
      awaiting.delete(t.spanId);
      exported.delete(t.spanId);
    }
    pending = [];
    if (dropped > 0) {
      const what = [
        config.annotations ? `phoenix annotations: ${dropped} verdict annotation(s)` : '',
        config.langsmith ? `langsmith feedback: ${dropped} feedback item(s)` : '',
      ]
        .filter(Boolean)
        .join('; ');
      warn('annotations-unexported', `${what} not sent: their spans were not exported`);
    }
    if (targets.length === 0) return;
    // LangSmith feedback waits for ingest on its own clock (max_wait_ms), beside the Phoenix post.
    const feedback = config.langsmith ? postFeedback(config.langsmith, targets) : Promise.resolve();
    await postAnnotations(targets, deadline);
    await feedback;
  };

  const postFeedback = async (ls: NonNullable<TelemetryConfig['langsmith']>, targets: AnnotationTarget[]): Promise<void> => {
    const { postFeedbackForTargets } = await import('./langsmith.js');
    const result = await postFeedbackForTargets(ls, targets, annotationTls(config));
    if (result.warning !== undefined) warn('feedback', result.warning);
  };

  const postAnnotations = async (targets: AnnotationTarget[], deadline: number): Promise<void> => {
    if (!config.annotations || config.annotationsUrl === undefined) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      warn('annotations', `phoenix annotations: no time left within ${timeoutMs} ms; ${targets.length} verdict annotation(s) not sent`);
      return;
    }
    const result = await postSpanAnnotations({
      baseUrl: config.annotationsUrl,
      annotations: buildSpanAnnotations(targets),
      ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
      ...annotationTls(config),
      timeoutMs: remaining,
    }).catch((err: Error) => ({ posted: 0, warning: `phoenix annotations: ${err.message}` }));
    if (result.warning !== undefined) warn('annotations', result.warning);
  };

  /** The trace's link, and its root queued for a Phoenix annotation or LangSmith feedback. */
  const linked = (rendered: RenderedTrace, input: Omit<RenderInput, 'captureContent'>): RenderedTrace => {
    const url = traceLink(config.traceUrl, {
      traceId: rendered.traceId,
      spanId: rendered.rootSpanId,
      ...(config.project !== undefined ? { project: config.project } : {}),
    });
    if (url) rendered.url = url;
    if (config.annotations || config.langsmith) {
      awaiting.add(rendered.rootSpanId);
      pending.push({
        spanId: rendered.rootSpanId,
        caseId: input.case.id,
        sample: input.run?.sample ?? input.verdict?.sample ?? input.sample ?? 0,
        runId: input.runId,
        captureContent: config.captureContent,
        ...(input.verdict ? { verdict: input.verdict } : {}),
        ...((input.run?.error ?? input.error) ? { error: (input.run?.error ?? input.error)! } : {}),
      });
    }
    return rendered;
  };

  const telemetry: Telemetry = {
    enabled: true,
    destination,
    tracer,
    emitCase(input) {
      if (closed) return undefined;
      try {
        const rendered = renderRunTrace(tracer, {
          ...input,
          captureContent: config.captureContent,
          ...(config.captureHashed && config.hashKey !== undefined ? { hashKey: config.hashKey } : {}),
        });
        return linked(rendered, input);
      } catch (err) {
        warn('render', `could not render case ${input.case.id}: ${(err as Error).message}`);
        return undefined;
      }
    },
    emitAgentCase(input, captured) {
      if (closed) return undefined;
      try {
        const rendered = exportAgentTrace(
          { tracer, ids, processor, resourceDefaults: config.project !== undefined ? { [SEMRESATTRS_PROJECT_NAME]: config.project } : {} },
          { ...input, captureContent: config.captureContent },
          captured,
        );
        return linked(rendered, input);
      } catch (err) {
        warn('render', `could not export the trace of case ${input.case.id}: ${(err as Error).message}`);
        return undefined;
      }
    },
    async flush() {
      if (closed) return;
      await flushUntil(Date.now() + timeoutMs);
    },
    async shutdown() {
      if (closed) return;
      const deadline = Date.now() + timeoutMs;
      await flushUntil(deadline);
      closed = true;
      await within(provider.shutdown(), Math.max(0, deadline - Date.now()), `shutdown of ${destination}`);
    },
  };
  return { telemetry, loadExporter: () => exporter.preload() };
}

function createExporter(spec: ExporterSpec): LazyExporter {
  if (spec.kind === 'file') {
    const path = spec.path;
    return new LazyExporter(async () => new (await import('./file-exporter.js')).OtlpJsonLinesFileExporter(path));
  }
  const { url, headers, compression, timeoutMs, tls } = spec;
  const options = {
    url,
    headers,
    timeoutMillis: timeoutMs,
    compression: compression as never,
    // No keep-alive: a CLI run exports a few batches, and idle sockets must not hold the process open.
    httpAgentOptions: { keepAlive: false, ...tls },
  };
  return new LazyExporter(
    spec.protocol === 'grpc'
      ? async () => {
          const { loadGrpcTraceExporter } = await import('./grpc-exporter.js');
          return loadGrpcTraceExporter({ url, headers, timeoutMillis: timeoutMs, compression, tls });
        }
      : spec.protocol === 'http/json'
        ? async () => new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options)
        : async () => new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options),
  );
}

/**
 * Loads the real exporter on first use: the OTLP exporters and serialisers are the heaviest imports of the
 * CLI, and commands that never export (list, validate, --help) should not pay for them.
 */
class LazyExporter implements SpanExporter {
  private loaded: Promise<SpanExporter> | undefined;

  constructor(private readonly load: () => Promise<SpanExporter>) {}

  private get(): Promise<SpanExporter> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  /** Load the exporter now; a failure is left for the first export to report. */
  preload(): Promise<void> {
    return this.get().then(
      () => undefined,
      () => undefined,
    );
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const fail = (err: unknown): void => resultCallback({ code: ExportResultCode.FAILED, error: err instanceof Error ? err : new Error(String(err)) });
    this.get().then((inner) => {
      try {
        inner.export(spans, resultCallback);
      } catch (err) {
        fail(err);
      }
    }, fail);
  }

  async shutdown(): Promise<void> {
    if (this.loaded) await (await this.loaded).shutdown();
  }

  async forceFlush(): Promise<void> {
    if (this.loaded) await (await this.loaded).forceFlush?.();
  }
}

/** Passes everything through and reports failed exports (the SDK would only log them to diag). */
class WarningExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly onFailure: (error: unknown) => void,
    private readonly onSuccess: (spans: ReadableSpan[]) => void = () => {},
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    try {
      this.inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) this.onFailure(result.error);
        else this.onSuccess(spans);
        resultCallback(result);
      });
    } catch (err) {
      this.onFailure(err);
      resultCallback({ code: ExportResultCode.FAILED, error: err as Error });
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
