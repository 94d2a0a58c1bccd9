// OTLP/HTTP receiver (opentelemetry-proto docs/specification.md "OTLP/HTTP"): POST /v1/traces and
// /v1/logs, binary protobuf or JSON, optional gzip; answers in the request's encoding with partial_success
// for rejected items; 400 (with a google.rpc.Status) for a bad payload, 413 over the body limit (checked on
// the inflated size as it streams, so a decompression bomb stops early), 415 for other content types.
// Loopback by default; optional bearer token; GET /healthz for orchestrators.
//
// Bounded against clients that hold resources without sending (ReceiverLimits): a connection must send
// its request headers within the handshake timeout, an idle one is closed, the port holds at most
// maxConnections, and request bodies being received at once share one byte budget (503 past it), so a
// flood of half-open connections or of large bodies cannot take the descriptors or the memory.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { ATTR_EVENT_NAME } from '../semconv/gen-ai.js';
import { decodeLogsRequest, decodeTraceMessage, encodeLogsResponse, encodeRpcStatus, encodeTraceResponse } from './otlp-proto.js';
import { logsFromRequest, spansFromProtoRequest, spansFromRequest } from './spans.js';
import type { ProtoTraceRequest } from './otlp-types.js';
import type { TracePipeline } from './pipeline.js';
import { isBearerToken } from '../core/token.js';

/** Options the OTLP/HTTP and OTLP/gRPC receivers share. */
export interface ReceiverCommonOptions {
  pipeline: TracePipeline;
  /** @default "127.0.0.1" */
  host?: string;
  /** Require a bearer token (`Authorization` header, or `authorization` gRPC metadata) when set. */
  token?: string;
  /** Clock for the assembler's quiet window. @default Date.now */
  now?: () => number;
  /** Called after each request (for logs/metrics); `status` is the HTTP status or the gRPC status code. */
  onRequest?: (info: { path: string; status: number; spans: number; logs: number; rejected: number; message?: string }) => void;
  /** Connection and memory bounds of the port. */
  limits?: ReceiverLimits;
}

/** Bounds of one receiver port (each has its own). */
export interface ReceiverLimits {
  /** A new connection must send its request headers (HTTP) or the HTTP/2 preface and settings (gRPC) within this. @default 10000 */
  handshakeTimeoutMs?: number;
  /** A connection with no request in progress for this long is closed (gRPC: `grpc.max_connection_idle_ms`). @default 60000 */
  idleTimeoutMs?: number;
  /** Connections the port holds at once; more are closed as they arrive. @default 512 */
  maxConnections?: number;
  /** Request body bytes held at once across the port's requests (HTTP: 503 past it; gRPC: calls fail RESOURCE_EXHAUSTED). @default 268435456 */
  maxInflightBytes?: number;
}

/** {@link ReceiverLimits} with every default filled in. */
export function receiverLimits(l: ReceiverLimits = {}): Required<ReceiverLimits> {
  return {
    handshakeTimeoutMs: l.handshakeTimeoutMs ?? 10_000,
    idleTimeoutMs: l.idleTimeoutMs ?? 60_000,
    maxConnections: l.maxConnections ?? 512,
    maxInflightBytes: l.maxInflightBytes ?? 256 * 1024 * 1024,
  };
}

/** Bytes of request bodies held at once: taken as they arrive, given back when the request is done. */
export interface InflightBudget {
  take(n: number): boolean;
  give(n: number): void;
}

export function createInflightBudget(maxBytes: number): InflightBudget {
  let used = 0;
  return {
    take(n) {
      if (used + n > maxBytes) return false;
      used += n;
      return true;
    },
    give(n) {
      used = Math.max(0, used - n);
    },
  };
}

export interface OtlpReceiverOptions extends ReceiverCommonOptions {
  /** 0 picks a free port. @default 4318 */
  port?: number;
  /** Largest body, compressed or inflated. @default 67108864 (64 MiB, the OTLP spec's suggestion) */
  maxBodyBytes?: number;
  /** How often complete traces are looked for. @default 250 */
  tickMs?: number;
  /**
   * Extra GET endpoints on the same port (`serve` mounts its Prometheus `/metrics` here), behind the same
   * bearer token as the OTLP endpoints.
   */
  getRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
}

export interface OtlpReceiver {
  /** `http://host:port` once listening. */
  readonly url: string;
  listen(): Promise<string>;
  /** Stop accepting, then score every open trace (in the pipeline's slices, when it has them). */
  close(): Promise<void>;
}

/** A receiver's close: every held trace judged, in the pipeline's slices when it has them. */
export function scoreHeldTraces(pipeline: TracePipeline): Promise<void> {
  if (pipeline.flushInSlices) return pipeline.flushInSlices();
  pipeline.flush();
  return Promise.resolve();
}

class BodyTooLarge extends Error {}
class Busy extends Error {}

type Encoding = 'protobuf' | 'json';

function contentTypeOf(req: IncomingMessage): Encoding | undefined {
  const ct = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (ct === 'application/x-protobuf' || ct === 'application/protobuf') return 'protobuf';
  if (ct === 'application/json') return 'json';
  return undefined;
}

async function readBody(req: IncomingMessage, maxBytes: number, budget: InflightBudget, held: { bytes: number }): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw new BodyTooLarge(`body of ${declared} bytes is over the ${maxBytes}-byte limit`);
  // A declared body is reserved whole before it is read, so large bodies are turned away up front and
  // the small Exports that follow still fit; an undeclared (chunked) one takes the budget as it arrives.
  const reserved = Number.isFinite(declared) && encoding === 'identity' ? declared : 0;
  if (reserved > 0) {
    if (!budget.take(reserved)) throw new Busy('too many request bytes in flight on this port; retry later');
    held.bytes += reserved;
  }
  let source: AsyncIterable<Buffer> = req;
  if (encoding === 'gzip' || encoding === 'deflate') {
    const inflater = encoding === 'gzip' ? createGunzip() : createInflate();
    let raw = 0;
    req.on('data', (c: Buffer) => {
      raw += c.length;
      if (raw > maxBytes) inflater.destroy(new BodyTooLarge(`compressed body over the ${maxBytes}-byte limit`));
    });
    req.on('error', (err) => inflater.destroy(err));
    req.pipe(inflater);
    source = inflater;
  } else if (encoding !== 'identity' && encoding !== '') {
    throw new UnsupportedEncoding(encoding);
  }
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > maxBytes) throw new BodyTooLarge(`${encoding === 'identity' ? '' : 'decompressed '}body over the ${maxBytes}-byte limit`);
      if (size > reserved) {
        const extra = Math.min(chunk.length, size - reserved);
        if (!budget.take(extra)) throw new Busy('too many request bytes in flight on this port; retry later');
        held.bytes += extra;
      }
      parts.push(chunk);
    }
  } finally {
    if (source !== req) (source as NodeJS.ReadableStream & { destroy(): void }).destroy();
  }
  return Buffer.concat(parts);
}

class UnsupportedEncoding extends Error {}

/** @example const r = createOtlpReceiver({ pipeline, port: 0 }); const url = await r.listen(); */
export function createOtlpReceiver(options: OtlpReceiverOptions): OtlpReceiver {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const limits = receiverLimits(options.limits);
  const budget = createInflightBudget(limits.maxInflightBytes);
  const now = options.now ?? Date.now;
  const pipeline = options.pipeline;
  let url = '';
  let timer: NodeJS.Timeout | undefined;
  const token = options.token;

  const authorised = (req: IncomingMessage): boolean => !token || isBearerToken(req.headers.authorization, token);

  const send = (res: ServerResponse, status: number, body: Uint8Array | string, type: string): void => {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const sendError = (res: ServerResponse, status: number, message: string, enc: Encoding | undefined): void => {
    // Error bodies are a google.rpc.Status in the request's encoding; code 3 = INVALID_ARGUMENT.
    const code = status === 401 ? 16 : status === 413 ? 8 : 3;
    if (enc === 'protobuf') send(res, status, encodeRpcStatus({ code, message }), 'application/x-protobuf');
    else send(res, status, JSON.stringify({ code, message }), 'application/json');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const s = pipeline.summary();
      const health = {
        status: 'ok',
        openTraces: pipeline.openTraces(),
        traces: s.traces,
        verdicts: s.verdicts,
        failed: s.failed,
        uninterpretable: s.uninterpretable,
        evictedTraces: s.evictedTraces,
        retainedEvictions: s.retainedEvictions,
        lateRecords: s.lateRecords,
      };
      send(res, 200, JSON.stringify(health), 'application/json');
      return;
    }
    const route = options.getRoutes && Object.hasOwn(options.getRoutes, path) ? options.getRoutes[path] : undefined;
    if (route && (req.method === 'GET' || req.method === 'HEAD')) {
      req.resume();
      if (!authorised(req)) {
        res.setHeader('www-authenticate', 'Bearer');
        sendError(res, 401, 'missing or wrong bearer token', undefined);
        return;
      }
      route(req, res);
      return;
    }
    const signal = path === '/v1/traces' ? 'traces' : path === '/v1/logs' ? 'logs' : undefined;
    if (!signal) {
      sendError(res, 404, `no such endpoint ${path} (POST /v1/traces, POST /v1/logs, GET /healthz)`, undefined);
      req.resume();
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      sendError(res, 405, `${req.method} not allowed on ${path}; use POST`, undefined);
      req.resume();
      return;
    }
    const enc = contentTypeOf(req);
    if (!authorised(req)) {
      res.setHeader('www-authenticate', 'Bearer');
      sendError(res, 401, 'missing or wrong bearer token', enc);
      req.resume();
      return;
    }
    if (!enc) {
      sendError(
        res,
        415,
        `unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '')}; send application/x-protobuf or application/json`,
        undefined,
      );
      req.resume();
      return;
    }
    const held = { bytes: 0 };
    try {
      await readAndAnswer(req, res, path, signal, enc, held);
    } finally {
      budget.give(held.bytes);
    }
  };

  const readAndAnswer = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    signal: 'traces' | 'logs',
    enc: Encoding,
    held: { bytes: number },
  ): Promise<void> => {
    let body: Buffer;
    try {
      body = await readBody(req, maxBodyBytes, budget, held);
    } catch (err) {
      if (err instanceof Busy) {
        // OTLP/HTTP: 503 is retryable; the exporter backs off and sends again.
        res.setHeader('retry-after', '1');
        res.setHeader('connection', 'close');
        sendError(res, 503, err.message, enc);
        // Not read further: the connection goes once the answer is out.
        res.once('finish', () => req.destroy());
        options.onRequest?.({ path, status: 503, spans: 0, logs: 0, rejected: 0, message: err.message });
        return;
      }
      if (err instanceof BodyTooLarge) {
        sendError(res, 413, err.message, enc);
        req.resume();
        options.onRequest?.({ path, status: 413, spans: 0, logs: 0, rejected: 0, message: err.message });
        return;
      }
      if (err instanceof UnsupportedEncoding) {
        sendError(res, 415, `unsupported content encoding ${JSON.stringify(err.message)}; send gzip or none`, enc);
        req.resume();
        return;
      }
      sendError(res, 400, `could not read the body (${(err as Error).message})`, enc);
      req.resume();
      return;
    }
    let request: unknown;
    try {
      // Protobuf traces are decoded straight to span records below, without the OTLP/JSON shape between.
      if (enc === 'protobuf') request = signal === 'traces' ? decodeTraceMessage(body) : decodeLogsRequest(body);
      else request = JSON.parse(body.toString('utf8'));
    } catch (err) {
      const message = enc === 'json' ? `invalid JSON (${(err as Error).message})` : (err as Error).message;
      sendError(res, 400, message, enc);
      options.onRequest?.({ path, status: 400, spans: 0, logs: 0, rejected: 0, message });
      return;
    }
    if (signal === 'traces') {
      const { spans, problems } = enc === 'protobuf' ? spansFromProtoRequest(request as ProtoTraceRequest, 'http') : spansFromRequest(request, 'http');
      if (spans.length === 0 && problems.length === 1 && /not an ExportTraceServiceRequest/.test(problems[0]!.reason)) {
        sendError(res, 400, problems[0]!.reason, enc);
        options.onRequest?.({ path, status: 400, spans: 0, logs: 0, rejected: 0, message: problems[0]!.reason });
        return;
      }
      for (const p of problems) pipeline.addProblem(p);
      pipeline.addSpans(spans, now());
      const rejected = problems.length;
      const errorMessage = rejected ? `${rejected} spans rejected: ${problems[0]!.reason}` : undefined;
      if (enc === 'protobuf')
        send(res, 200, encodeTraceResponse(rejected ? { rejectedSpans: rejected, errorMessage: errorMessage! } : {}), 'application/x-protobuf');
      else send(res, 200, JSON.stringify(rejected ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage } } : {}), 'application/json');
      options.onRequest?.({ path, status: 200, spans: spans.length, logs: 0, rejected });
    } else {
      const { logs, problems } = logsFromRequest(request, 'http', ATTR_EVENT_NAME);
      if (problems.length) {
        sendError(res, 400, problems[0]!.reason, enc);
        return;
      }
      pipeline.addLogs(logs, now());
      if (enc === 'protobuf') send(res, 200, encodeLogsResponse({}), 'application/x-protobuf');
      else send(res, 200, '{}', 'application/json');
      options.onRequest?.({ path, status: 200, spans: 0, logs: logs.length, rejected: 0 });
    }
  };

  // Timeouts are checked every second (Node's default is every 30 s).
  const server: Server = createServer(
    { connectionsCheckingInterval: 1000, headersTimeout: limits.handshakeTimeoutMs, requestTimeout: Math.max(60_000, limits.handshakeTimeoutMs) },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendError(res, 500, `internal error (${(err as Error).message})`, undefined);
        else res.destroy();
      });
    },
  );
  server.maxConnections = limits.maxConnections;
  // A socket with nothing sent or received for this long is closed (keep-alive idles go after 5 s).
  server.timeout = limits.idleTimeoutMs;

  return {
    get url() {
      return url;
    },
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 4318, host, () => {
          server.off('error', reject);
          const addr = server.address() as AddressInfo;
          const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          url = `http://${h}:${addr.port}`;
          timer = setInterval(() => pipeline.tick(now()), options.tickMs ?? 250);
          timer.unref();
          resolve(url);
        });
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        if (timer) clearInterval(timer);
        server.close(() => {
          scoreHeldTraces(pipeline).then(resolve, reject);
        });
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
    },
  };
}
