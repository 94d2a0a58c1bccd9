import type { ServeOptions } from '../../app/serve.js';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { renderSummaryTable } from '../../traces/format.js';
import { addTraceScoringOptions, intOption as int } from './score.js';

type ServeFlags = ServeOptions;

async function serve(ctx: CliContext, flags: ServeFlags): Promise<number> {
  const { startServe } = await import('../../app/serve.js');
  const handle = await startServe({ ...ctx, out: (text) => ctx.out(text), debug: ctx.debug === true }, flags);
  ctx.err(`runspec-eval serve: listening on ${handle.url} (POST /v1/traces, /v1/logs; GET /healthz${handle.metrics ? ', /metrics' : ''})`);
  if (handle.grpcUrl) ctx.err(`runspec-eval serve: OTLP/gRPC on ${handle.grpcUrl} (TraceService/Export, LogsService/Export)`);
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
  const closed = await handle.close();
  ctx.err(renderSummaryTable(closed.summary));
  if (closed.resultsPath) ctx.err(`results: ${closed.resultsPath}`);
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
      .option(
        '--quiet-ms <n>',
        'a trace is judged when it is whole (roots ended, parents present) and nothing arrived for this long',
        int('--quiet-ms', 1),
        2000,
      )
      .option(
        '--reopen-window <ms>',
        'how long a judged trace stays open to late spans (each re-opening gives the next revision); at least --quiet-ms',
        int('--reopen-window', 1),
        60_000,
      )
      .option(
        '--max-retained-bytes <n>',
        'estimated bytes of judged traces kept for re-opening; past it the least recently judged is made final early (retainedEvictions on /healthz)',
        int('--max-retained-bytes', 1),
        64 * 1024 * 1024,
      )
      .option(
        '--max-traces <n>',
        'open traces held before the oldest is scored early (counted as evicted); also the most complete traces waiting to be judged before ingest judges them itself',
        int('--max-traces', 1),
        10000,
      )
      .option('--max-body-bytes <n>', 'largest request body, compressed or inflated (413 beyond)', int('--max-body-bytes', 1), 64 * 1024 * 1024)
      .option('--out <file>', 'append verdict JSON lines to a file instead of stdout')
      .option('--results <file>', 'on shutdown, write the verdicts as a results JSON (as score --results; render it with report)')
      .option('--grpc [port]', 'also receive OTLP/gRPC traces and logs on this port (default 4317; 0 picks a free one)', int('--grpc', 0))
      .option(
        '--handshake-timeout-ms <n>',
        'close a connection that has not sent its request headers (gRPC: the HTTP/2 preface and settings) by then',
        int('--handshake-timeout-ms', 1),
        10_000,
      )
      .option(
        '--idle-timeout-ms <n>',
        'close a connection with no request in progress for this long (gRPC: grpc.max_connection_idle_ms)',
        int('--idle-timeout-ms', 1),
        60_000,
      )
      .option('--max-connections <n>', 'connections held at once on each port; more are closed as they arrive', int('--max-connections', 1), 512)
      .option(
        '--max-inflight-bytes <n>',
        'request body bytes held at once on each port (HTTP 503, gRPC connection closed beyond)',
        int('--max-inflight-bytes', 1),
        256 * 1024 * 1024,
      );
    addTraceScoringOptions(cmd)
      .addHelpText(
        'after',
        `
With --grpc, OTLP/gRPC (TraceService/Export, LogsService/Export; gzip) is received too, on its own port,
for the Collector's load_balancing exporter and other gRPC senders; the same --token-env applies.
Accepts application/x-protobuf and application/json, optionally gzip, and answers in the same encoding
(partial_success lists rejected spans). 413 over --max-body-bytes (also for decompression bombs), 400 for
a bad payload, 415 for another content type, 401 without the bearer token. Each port is bounded: a
connection must send its headers (gRPC: the HTTP/2 preface and settings) within --handshake-timeout-ms,
idle ones close after --idle-timeout-ms, at most --max-connections at once, and request bodies being
received share --max-inflight-bytes (HTTP 503 with Retry-After beyond it). SIGINT/SIGTERM score the open
traces and exit 0. A trace that never becomes whole is judged after 10 × --quiet-ms as "incomplete".
Every verdict line carries revision (0, 1, …) and final. Spans that arrive for a judged trace within
--reopen-window re-open it: the next revision follows (supersedes: true). When the window closes the last
revision is written once more with final: true; only final verdicts reach the summary, --results, verdict
spans and annotations. Spans after the window give a {"kind":"late"} line and a warning, never a verdict.
Verdict lines go to stdout (or --out); the listening URL and summary go to stderr.
GET /metrics (same port, same token) serves the final verdicts as the Prometheus counter
runspec_verdicts_calls_total by runspec_eval_category, _pass, _case_id and _rule (examples/collector/alerts.yml);
OTEL_METRICS_EXPORTER=prometheus,otlp also pushes them to OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT, none turns them off.

Examples:
  runspec-eval serve --port 4318 --rules rules.toml --export
  OTLP_TOKEN=s3cret runspec-eval serve --host 0.0.0.0 --token-env OTLP_TOKEN --out verdicts.jsonl`,
      )
      .action(action(getContext, setExit, (ctx, o: ServeFlags) => serve(ctx, o)));
  },
};
