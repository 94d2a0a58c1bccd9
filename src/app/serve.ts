// `serve` as a use case: the OTLP receivers (HTTP, and gRPC on request), the trace pipeline that scores as
// traces arrive, the verdict sinks (lines, annotations, feedback, a results document) and their timers,
// started together and returned as a handle. The CLI keeps the flags, the signal hookup and the printing.
import { createWriteStream, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { createLineBatcher } from '../core/line-batcher.js';
import { isLoopbackHost } from '../core/loopback.js';
import { RunspecError, UsageError } from '../errors.js';
import { openOutputFile } from '../report/out-path.js';
import { verdictLineJson } from '../report/verdict-line.js';
import { lateLineJson } from '../traces/format.js';
import type { createGrpcReceiver } from '../traces/grpc-receiver.js';
import type { TracePipeline } from '../traces/pipeline.js';
import type { AppContext } from './context.js';
import type { TraceScoringFlags } from './score-traces.js';

export interface ServeOptions extends TraceScoringFlags {
  host: string;
  port: number;
  /** Name of the variable holding the bearer token every request must carry. */
  tokenEnv?: string;
  quietMs: number;
  /** How long a judged trace stays open to late spans (ms); at least `quietMs`. @default 60000 */
  reopenWindow?: number;
  /** Estimated bytes of judged traces kept for re-opening. @default 67108864 */
  maxRetainedBytes?: number;
  maxTraces: number;
  maxBodyBytes: number;
  /** Append verdict lines to this file instead of `ctx.out`. */
  out?: string;
  /** On close, write the verdicts as a results document (as `score --results`). */
  results?: string;
  /** `true`: gRPC on 4317; a number: that port. */
  grpc?: number | true;
  /** Connection bounds on both ports (traces/receiver.ts ReceiverLimits); unset: the receivers' defaults. */
  handshakeTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxConnections?: number;
  maxInflightBytes?: number;
}

/** The receivers' connection bounds from the options (only those given). */
function limitsOf(o: ServeOptions): { handshakeTimeoutMs?: number; idleTimeoutMs?: number; maxConnections?: number; maxInflightBytes?: number } {
  return {
    ...(o.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: o.handshakeTimeoutMs } : {}),
    ...(o.idleTimeoutMs !== undefined ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
    ...(o.maxConnections !== undefined ? { maxConnections: o.maxConnections } : {}),
    ...(o.maxInflightBytes !== undefined ? { maxInflightBytes: o.maxInflightBytes } : {}),
  };
}

export interface ServeContext extends AppContext {
  /** Where verdict lines go without `out`. */
  out(text: string): void;
  /** Say why a trace could not be interpreted (the CLI's --debug). */
  debug?: boolean;
}

/** What `close` leaves behind. */
export interface ServeClosed {
  summary: ReturnType<TracePipeline['summary']>;
  /** The results document written, when `results` was asked for. */
  resultsPath?: string;
}

/** A running `serve`: its addresses, its pipeline, and one way to stop it. */
export interface ServeHandle {
  /** The OTLP/HTTP base URL. */
  url: string;
  /** The OTLP/gRPC address, with `grpc`. */
  grpcUrl?: string;
  /** Whether GET /metrics serves the verdict counters (Prometheus text). */
  metrics: boolean;
  pipeline: TracePipeline;
  /** Stop receiving, score the open traces, flush every sink and the results document. Call once. */
  close(): Promise<ServeClosed>;
}

/**
 * Start `serve`: listen, score what arrives, until `close()`.
 * @example const h = await startServe(ctx, { host: '127.0.0.1', port: 0, quietMs: 2000, maxTraces: 10_000, maxBodyBytes: 64 << 20 }); await h.close();
 */
export async function startServe(ctx: ServeContext, options: ServeOptions): Promise<ServeHandle> {
  const token = bearerToken(ctx, options);
  const reopenWindow = options.reopenWindow ?? 60_000;
  if (reopenWindow < options.quietMs) {
    throw new UsageError('USAGE', `--reopen-window ${reopenWindow}: must be at least --quiet-ms (${options.quietMs})`, {
      hint: `pass --reopen-window ${Math.max(options.quietMs, 60_000)} or lower --quiet-ms`,
    });
  }
  // Without the optional gRPC peer, stop before listening at all (exit 2, the install line).
  if (options.grpc !== undefined) await (await import('../traces/grpc-receiver.js')).loadGrpc();
  if (!isLoopbackHost(options.host) && !token) ctx.warn(`listening on ${options.host} without --token-env: anyone who can reach it can post traces`);
  // The receiver and the scorer load when serve starts (`serve --help` stays light).
  const [{ createResultsCollector, loadTraceScoring, scoreMeta }, { createOtlpReceiver }, { createTracePipeline }, { createOutcomeMetrics }] =
    await Promise.all([import('./score-traces.js'), import('../traces/receiver.js'), import('../traces/pipeline.js'), import('./verdict-metrics.js')]);
  const setup = await loadTraceScoring(ctx, options);
  // What is open so far, closed again when serve cannot start (a bad --out, a port in use, no gRPC port).
  const opened: Array<() => Promise<void>> = [() => setup.sinks.close()];
  const abandon = async (err: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close().catch(() => {});
    throw err;
  };
  // Final verdicts as counters: GET /metrics on this port (Prometheus), OTLP with OTEL_METRICS_EXPORTER=otlp.
  const metrics = await createOutcomeMetrics(setup.env, { exporters: ['prometheus'] }, (w) => ctx.warn(w)).catch(abandon);
  opened.push(() => metrics.shutdown());
  const started = new Date().toISOString();
  const collector = options.results ? createResultsCollector(setup.cases, { traceUrl: setup.traceUrl }) : undefined;
  let output: ReturnType<typeof openLines>;
  try {
    output = openLines(ctx, options.out);
  } catch (err) {
    return abandon(err);
  }
  opened.push(() => output.close());
  const pipeline = createTracePipeline({
    ...setup.scorer,
    assembler: {
      quiet: options.quietMs,
      maxOpenTraces: options.maxTraces,
      reopenWindow,
      ...(options.maxRetainedBytes !== undefined ? { maxRetainedBytes: options.maxRetainedBytes } : {}),
    },
    onLate: (late) => {
      ctx.warn(`trace ${late.traceId}: ${late.reason}`);
      output.lines.add(lateLineJson(late));
    },
    // Ingest first: complete traces are judged in ~5 ms slices between requests, at most --max-traces
    // waiting (past that, ingest judges the backlog itself before answering).
    scoreSliceMs: 5,
    maxQueuedTraces: options.maxTraces,
    onOutcome: (o) => {
      setup.sinks.add(o);
      collector?.add(o);
      metrics.add(o);
      if (o.kind === 'scored') for (const l of o.lines) output.lines.add(verdictLineJson(setup.decorate(l)));
      else if (ctx.debug) ctx.err(`trace ${o.traceId}: not interpretable (${o.reason})`);
    },
  });
  const receiver = createOtlpReceiver({
    pipeline,
    host: options.host,
    port: options.port,
    maxBodyBytes: options.maxBodyBytes,
    limits: limitsOf(options),
    tickMs: Math.max(20, Math.min(1000, Math.floor(options.quietMs / 4))),
    ...(token ? { token } : {}),
    ...(metrics.scrape ? { getRoutes: { '/metrics': metrics.scrape } } : {}),
    onRequest: (r) => {
      if (r.status !== 200) ctx.warn(`${r.path}: HTTP ${r.status}${r.message ? ` (${r.message})` : ''}`);
    },
  });
  let url: string;
  try {
    url = await receiver.listen();
  } catch (err) {
    return abandon(
      new RunspecError(
        'COLLECTOR',
        `serve: cannot listen on ${options.host}:${options.port} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        {
          hint: 'pick another --port, or stop what is using it',
          cause: err,
        },
      ),
    );
  }
  let grpc: { receiver: Awaited<ReturnType<typeof createGrpcReceiver>>; url: string } | undefined;
  try {
    grpc = options.grpc !== undefined ? await startGrpc(ctx, options, pipeline, token) : undefined;
  } catch (err) {
    await receiver.close();
    return abandon(err);
  }
  // One flush at a time (a LangSmith flush may wait up to its max_wait_ms for ingestion): a tick during a
  // flush is skipped, and a failure is a warning.
  let flushing = false;
  const annotationTimer = setInterval(() => {
    if (flushing) return;
    flushing = true;
    setup.sinks
      .flushAnnotations()
      .catch((err: unknown) => ctx.warn(`annotations: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => (flushing = false));
  }, 2000);
  annotationTimer.unref();

  return {
    url,
    ...(grpc ? { grpcUrl: grpc.url } : {}),
    metrics: metrics.scrape !== undefined,
    pipeline,
    async close() {
      clearInterval(annotationTimer);
      await grpc?.receiver.close();
      await receiver.close();
      await setup.sinks.close();
      await metrics.shutdown();
      await output.close();
      const summary = pipeline.summary();
      if (!collector || !options.results) return { summary };
      const resultsPath = resolve(ctx.cwd, options.results);
      const { writeResultsDocument } = await import('../report/results-docs.js');
      writeResultsDocument(resultsPath, collector.document(scoreMeta(started, `serve ${options.host}:${options.port}`, 1), 1, summary));
      return { summary, resultsPath };
    },
  };
}

/** The bearer token named by `tokenEnv`; a named variable that is unset is bad usage. */
function bearerToken(ctx: Pick<AppContext, 'env'>, options: Pick<ServeOptions, 'tokenEnv'>): string | undefined {
  if (!options.tokenEnv) return undefined;
  const token = ctx.env[options.tokenEnv]?.trim() || undefined;
  if (!token) {
    throw new UsageError('USAGE', `--token-env ${options.tokenEnv}: the variable is not set or empty`, {
      hint: `export ${options.tokenEnv}=<token>; clients then send Authorization: Bearer <token>`,
    });
  }
  return token;
}

/** Verdict lines to `out` (appended) or to the context, batched. */
function openLines(ctx: ServeContext, out: string | undefined): { lines: ReturnType<typeof createLineBatcher>; close(): Promise<void> } {
  let file: WriteStream | undefined;
  if (out) {
    const path = resolve(ctx.cwd, out);
    file = createWriteStream(path, { fd: openOutputFile(path, '--out', 'a') });
  }
  const lines = createLineBatcher((text) => (file ? file.write(text + '\n') : ctx.out(text)));
  return {
    lines,
    async close() {
      lines.flush();
      if (!file) return;
      // finished() waits for 'close' (the descriptor is closed only then: the caller may reopen or remove the
      // file) and settles at once when the stream is already closed; once('close') would then wait forever.
      file.end();
      await finished(file).catch((err: NodeJS.ErrnoException) => {
        // Destroyed before it finished: the error that destroyed it is reported where it happened.
        if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
      });
    },
  };
}

/** The OTLP/gRPC receiver on the same pipeline (the HTTP receiver ticks it and scores open traces on close). */
async function startGrpc(
  ctx: ServeContext,
  options: ServeOptions,
  pipeline: TracePipeline,
  token: string | undefined,
): Promise<{ receiver: Awaited<ReturnType<typeof createGrpcReceiver>>; url: string }> {
  const grpcPort = options.grpc === true ? 4317 : (options.grpc as number);
  const { createGrpcReceiver } = await import('../traces/grpc-receiver.js');
  const receiver = await createGrpcReceiver({
    pipeline,
    host: options.host,
    port: grpcPort,
    maxMessageBytes: options.maxBodyBytes,
    limits: limitsOf(options),
    tickMs: 0,
    flushOnClose: false,
    ...(token ? { token } : {}),
    onRequest: (r) => {
      if (r.status !== 0) ctx.warn(`gRPC ${r.path}: status ${r.status}${r.message ? ` (${r.message})` : ''}`);
    },
  });
  try {
    return { receiver, url: await receiver.listen() };
  } catch (err) {
    await receiver.close();
    throw new RunspecError('COLLECTOR', `serve: cannot listen for gRPC on ${options.host}:${grpcPort} (${(err as Error).message})`, {
      hint: 'pick another --grpc PORT, or stop what is using it',
      cause: err,
    });
  }
}
