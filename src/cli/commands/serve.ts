import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { openOutputFile } from '../../report/out-path.js';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { RunspecError, UsageError } from '../../errors.js';
import { lateLineJson, renderSummaryTable, verdictLineJson } from '../../traces/format.js';
import type { createGrpcReceiver } from '../../traces/grpc-receiver.js';
import type { TraceScoringFlags } from '../../app/score-traces.js';
import { addTraceScoringOptions, createLineBatcher, intOption as int } from './score.js';

interface ServeFlags extends TraceScoringFlags {
  host: string;
  port: number;
  tokenEnv?: string;
  quietMs: number;
  reopenWindow: number;
  maxRetainedBytes: number;
  maxTraces: number;
  maxBodyBytes: number;
  out?: string;
  /** On shutdown, write the verdicts as a results document (as `score --results`). */
  results?: string;
  /** `--grpc` alone: 4317; `--grpc PORT`: that port. */
  grpc?: number | true;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

async function serve(ctx: CliContext, flags: ServeFlags): Promise<number> {
  let token: string | undefined;
  if (flags.tokenEnv) {
    token = ctx.env[flags.tokenEnv]?.trim() || undefined;
    if (!token) {
      throw new UsageError('USAGE', `--token-env ${flags.tokenEnv}: the variable is not set or empty`, {
        hint: `export ${flags.tokenEnv}=<token>; clients then send Authorization: Bearer <token>`,
      });
    }
  }
  if (flags.reopenWindow < flags.quietMs) {
    throw new UsageError('USAGE', `--reopen-window ${flags.reopenWindow}: must be at least --quiet-ms (${flags.quietMs})`, {
      hint: `pass --reopen-window ${Math.max(flags.quietMs, 60_000)} or lower --quiet-ms`,
    });
  }
  if (!LOOPBACK.has(flags.host) && !token) ctx.warn(`listening on ${flags.host} without --token-env: anyone who can reach it can post traces`);
  // The receiver and the scorer load when the command runs (`serve --help` stays light).
  const [{ createResultsCollector, loadTraceScoring, scoreMeta }, { createOtlpReceiver }, { createTracePipeline }] = await Promise.all([
    import('../../app/score-traces.js'),
    import('../../traces/receiver.js'),
    import('../../traces/pipeline.js'),
  ]);
  const setup = await loadTraceScoring(ctx, flags);
  const started = new Date().toISOString();
  const collector = flags.results ? createResultsCollector(setup.cases, { traceUrl: setup.traceUrl }) : undefined;
  let file: WriteStream | undefined;
  if (flags.out) {
    const out = resolve(ctx.cwd, flags.out);
    file = createWriteStream(out, { fd: openOutputFile(out, '--out', 'a') });
  }
  const write = (line: string): void => {
    if (file) file.write(line + '\n');
    else ctx.out(line);
  };
  const lines = createLineBatcher(write);
  const pipeline = createTracePipeline({
    ...setup.scorer,
    assembler: { quiet: flags.quietMs, maxOpenTraces: flags.maxTraces, reopenWindow: flags.reopenWindow, maxRetainedBytes: flags.maxRetainedBytes },
    // Ingest first: complete traces are judged in ~5 ms slices between requests, at most --max-traces
    // waiting (past that, ingest judges the backlog itself before answering).
    scoreSliceMs: 5,
    maxQueuedTraces: flags.maxTraces,
    onOutcome: (o) => {
      setup.sinks.add(o);
      collector?.add(o);
      if (o.kind === 'scored') for (const l of o.lines) lines.add(verdictLineJson(setup.decorate(l)));
      else if (ctx.debug) ctx.err(`trace ${o.traceId}: not interpretable (${o.reason})`);
    },
    onLate: (late) => {
      ctx.warn(`trace ${late.traceId}: ${late.reason}`);
      lines.add(lateLineJson(late));
    },
  });
  const receiver = createOtlpReceiver({
    pipeline,
    host: flags.host,
    port: flags.port,
    maxBodyBytes: flags.maxBodyBytes,
    tickMs: Math.max(20, Math.min(1000, Math.floor(flags.quietMs / 4))),
    ...(token ? { token } : {}),
    onRequest: (r) => {
      if (r.status !== 200) ctx.warn(`${r.path}: HTTP ${r.status}${r.message ? ` (${r.message})` : ''}`);
    },
  });
  let url: string;
  try {
    url = await receiver.listen();
  } catch (err) {
    throw new RunspecError('COLLECTOR', `serve: cannot listen on ${flags.host}:${flags.port} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, {
      hint: 'pick another --port, or stop what is using it',
      cause: err,
    });
  }
  ctx.err(`runspec-eval serve: listening on ${url} (POST /v1/traces, /v1/logs; GET /healthz)`);
  let grpcReceiver: Awaited<ReturnType<typeof createGrpcReceiver>> | undefined;
  if (flags.grpc !== undefined) {
    const grpcPort = flags.grpc === true ? 4317 : flags.grpc;
    const { createGrpcReceiver } = await import('../../traces/grpc-receiver.js');
    grpcReceiver = await createGrpcReceiver({
      pipeline,
      host: flags.host,
      port: grpcPort,
      maxMessageBytes: flags.maxBodyBytes,
      // The HTTP receiver ticks the shared pipeline and scores open traces when it closes.
      tickMs: 0,
      flushOnClose: false,
      ...(token ? { token } : {}),
      onRequest: (r) => {
        if (r.status !== 0) ctx.warn(`gRPC ${r.path}: status ${r.status}${r.message ? ` (${r.message})` : ''}`);
      },
    });
    try {
      const gurl = await grpcReceiver.listen();
      ctx.err(`runspec-eval serve: OTLP/gRPC on ${gurl} (TraceService/Export, LogsService/Export)`);
    } catch (err) {
      await receiver.close();
      throw new RunspecError('COLLECTOR', `serve: cannot listen for gRPC on ${flags.host}:${grpcPort} (${(err as Error).message})`, {
        hint: 'pick another --grpc PORT, or stop what is using it',
        cause: err,
      });
    }
  }
  const annotationTimer = setInterval(() => void setup.sinks.flushAnnotations(), 2000);
  annotationTimer.unref();
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  ctx.err('runspec-eval serve: shutting down, scoring open traces');
  clearInterval(annotationTimer);
  await grpcReceiver?.close();
  await receiver.close();
  await setup.sinks.close();
  lines.flush();
  if (file) await new Promise<void>((r) => file!.end(() => r()));
  ctx.err(renderSummaryTable(pipeline.summary()));
  if (collector && flags.results) {
    const path = resolve(ctx.cwd, flags.results);
    const { writeResultsDocument } = await import('../../report/results-docs.js');
    writeResultsDocument(path, collector.document(scoreMeta(started, `serve ${flags.host}:${flags.port}`, 1), 1, pipeline.summary()));
    ctx.err(`results: ${path}`);
  }
  return 0;
}

export const serveCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('serve')
      .description('OTLP/HTTP receiver that scores traces as they arrive')
      .option('--host <host>', 'address to bind (loopback by default)', '127.0.0.1')
      .option('--port <port>', 'port (0 picks a free one)', int('--port', 0), 4318)
      .option('--token-env <VAR>', 'require Authorization: Bearer $VAR on every POST')
      .option('--quiet-ms <n>', 'a trace is judged when it is whole (roots ended, parents present) and nothing arrived for this long', int('--quiet-ms', 1), 2000)
      .option('--reopen-window <ms>', 'how long a judged trace stays open to late spans (each re-opening gives the next revision); at least --quiet-ms', int('--reopen-window', 1), 60_000)
      .option('--max-retained-bytes <n>', 'estimated bytes of judged traces kept for re-opening; past it the least recently judged is made final early (retainedEvictions on /healthz)', int('--max-retained-bytes', 1), 64 * 1024 * 1024)
      .option('--max-traces <n>', 'open traces held before the oldest is scored early (counted as evicted); also the most complete traces waiting to be judged before ingest judges them itself', int('--max-traces', 1), 10000)
      .option('--max-body-bytes <n>', 'largest request body, compressed or inflated (413 beyond)', int('--max-body-bytes', 1), 64 * 1024 * 1024)
      .option('--out <file>', 'append verdict JSON lines to a file instead of stdout')
      .option('--results <file>', 'on shutdown, write the verdicts as a results JSON (as score --results; render it with report)')
      .option('--grpc [port]', 'also receive OTLP/gRPC traces and logs on this port (default 4317; 0 picks a free one)', int('--grpc', 0));
    addTraceScoringOptions(cmd)
      .addHelpText(
        'after',
        `
With --grpc, OTLP/gRPC (TraceService/Export, LogsService/Export; gzip) is received too, on its own port,
for the Collector's load_balancing exporter and other gRPC senders; the same --token-env applies.
Accepts application/x-protobuf and application/json, optionally gzip, and answers in the same encoding
(partial_success lists rejected spans). 413 over --max-body-bytes (also for decompression bombs), 400 for
a bad payload, 415 for another content type, 401 without the bearer token. SIGINT/SIGTERM score the open
traces and exit 0. A trace that never becomes whole is judged after 10 × --quiet-ms as "incomplete".
Every verdict line carries revision (0, 1, …) and final. Spans that arrive for a judged trace within
--reopen-window re-open it: the next revision follows (supersedes: true). When the window closes the last
revision is written once more with final: true; only final verdicts reach the summary, --results, verdict
spans and annotations. Spans after the window give a {"kind":"late"} line and a warning, never a verdict.
Verdict lines go to stdout (or --out); the listening URL and summary go to stderr.

Examples:
  runspec-eval serve --port 4318 --rules rules.toml --export
  OTLP_TOKEN=s3cret runspec-eval serve --host 0.0.0.0 --token-env OTLP_TOKEN --out verdicts.jsonl`,
      )
      .action(action(getContext, setExit, (ctx, o: ServeFlags) => serve(ctx, o)));
  },
};
