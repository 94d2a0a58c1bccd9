// OTLP/gRPC receiver (opentelemetry-proto docs/specification.md "OTLP/gRPC"): the unary Export methods of
// opentelemetry.proto.collector.{trace,logs}.v1.{Trace,Logs}Service on one @grpc/grpc-js server. Messages
// stay bytes on the wire side and are decoded by the project's one OTLP protobuf decoder (otlp-proto.ts),
// then go to the same pipeline as OTLP/HTTP. Errors are gRPC statuses: INVALID_ARGUMENT for a bad payload,
// UNAUTHENTICATED without the bearer token, RESOURCE_EXHAUSTED over the size limit (grpc-js enforces it).
// The Collector's load_balancing exporter speaks only this protocol, so replicas can sit behind it directly.
//
// Connections come in through our own net.Server and grpc-js's connection injector, so the port is
// bounded before HTTP/2 starts (ReceiverLimits): at most maxConnections sockets (when full, the oldest
// one still in its handshake makes room for the newcomer), each closed unless it
// has sent the HTTP/2 preface and a SETTINGS frame within the handshake timeout (300 preface-only
// connections used to stay open for ever, 1,100 took the descriptors of both ports), idle connections
// closed by grpc-js (`grpc.max_connection_idle_ms`), and the request bytes of calls in flight on one budget
// for the port, counted per call on the HTTP/2 frames as they arrive and given back when the call is over
// (_h2-inflight.ts); a call past it fails RESOURCE_EXHAUSTED and its connection is closed.
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type * as Grpc from '@grpc/grpc-js';
import { ATTR_EVENT_NAME } from '../semconv/gen-ai.js';
import { decodeLogsRequest, decodeTraceMessage, encodeLogsResponse, encodeTraceResponse } from './otlp-proto.js';
import { logsFromRequest, spansFromProtoRequest } from './spans.js';
import { createInflightBudget, receiverLimits, scoreHeldTraces, type ReceiverCommonOptions } from './receiver.js';
import { countedConnection } from './_h2-inflight.js';
import { isBearerToken } from '../core/token.js';
import { importOptionalPeer } from '../core/optional-peer.js';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
export const LOGS_EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

export interface GrpcReceiverOptions extends ReceiverCommonOptions {
  /** 0 picks a free port. @default 4317 */
  port?: number;
  /** Largest message (grpc-js rejects larger ones with RESOURCE_EXHAUSTED). @default 67108864 */
  maxMessageBytes?: number;
  /** How often complete traces are looked for; 0 leaves ticking to another receiver. @default 250 */
  tickMs?: number;
  /** Score open traces on close; off when an OTLP/HTTP receiver shares the pipeline and does it. @default true */
  flushOnClose?: boolean;
}

export interface GrpcReceiver {
  /** `grpc://host:port` once listening. */
  readonly url: string;
  readonly port: number;
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The HTTP/2 client preface (RFC 9113 §3.4) plus a SETTINGS frame header: what a real client sends first. */
const PREFACE_AND_SETTINGS_BYTES = 24 + 9;

/** Unary method whose messages pass through as bytes (decoding is ours). */
function bytesMethod(path: string): Grpc.MethodDefinition<Buffer, Uint8Array> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    responseDeserialize: (b: Buffer) => b,
  };
}

/** @grpc/grpc-js, an optional peer: missing, a ConfigError whose one line is the install command. */
export function loadGrpc(): Promise<typeof Grpc> {
  return importOptionalPeer('@grpc/grpc-js', 'the OTLP/gRPC receiver', () => import('@grpc/grpc-js'));
}

/** @example const r = await createGrpcReceiver({ pipeline, port: 0 }); await r.listen(); */
export async function createGrpcReceiver(options: GrpcReceiverOptions): Promise<GrpcReceiver> {
  const grpc = await loadGrpc();
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const pipeline = options.pipeline;
  const maxMessageBytes = options.maxMessageBytes ?? 64 * 1024 * 1024;
  const token = options.token;
  const limits = receiverLimits(options.limits);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': maxMessageBytes, 'grpc.max_connection_idle_ms': limits.idleTimeoutMs });
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const sockets = new Set<Socket>();
  const budget = createInflightBudget(limits.maxInflightBytes);
  const listener: NetServer = createNetServer((socket) => {
    if (sockets.size >= limits.maxConnections) {
      // Full: make room by dropping the oldest connection that has not finished its handshake (a flood
      // of half-open connections cannot lock real clients out); if every one has, refuse the new one.
      const idle = [...sockets].find((s) => s.bytesRead < PREFACE_AND_SETTINGS_BYTES);
      if (!idle) {
        socket.destroy();
        return;
      }
      idle.destroy();
      sockets.delete(idle);
    }
    sockets.add(socket);
    const handshake = setTimeout(() => {
      if (socket.bytesRead < PREFACE_AND_SETTINGS_BYTES) socket.destroy();
    }, limits.handshakeTimeoutMs);
    handshake.unref();
    socket.on('close', () => {
      clearTimeout(handshake);
      sockets.delete(socket);
    });
    injector.injectConnection(
      countedConnection(socket, budget, () =>
        options.onRequest?.({
          path: 'connection',
          status: grpc.status.RESOURCE_EXHAUSTED,
          spans: 0,
          logs: 0,
          rejected: 0,
          message: 'too many request bytes in flight on this port',
        }),
      ),
    );
  });
  let url = '';
  let port = 0;
  let timer: NodeJS.Timeout | undefined;

  const authorised = (md: Grpc.Metadata): boolean => !token || isBearerToken(String(md.get('authorization')[0] ?? ''), token);
  const fail = (cb: Grpc.sendUnaryData<Uint8Array>, path: string, code: Grpc.status, message: string): void => {
    options.onRequest?.({ path, status: code, spans: 0, logs: 0, rejected: 0, message });
    cb({ code, details: message, metadata: new grpc.Metadata() } as Grpc.ServiceError, null);
  };

  /** The decoded request, or undefined once the call has been failed (no token, or bytes that do not decode). */
  const accept = <T>(
    call: Grpc.ServerUnaryCall<Buffer, Uint8Array>,
    cb: Grpc.sendUnaryData<Uint8Array>,
    path: string,
    decode: (b: Uint8Array) => T,
  ): T | undefined => {
    if (!authorised(call.metadata)) {
      fail(cb, path, grpc.status.UNAUTHENTICATED, 'missing or wrong bearer token');
      return undefined;
    }
    try {
      return decode(call.request);
    } catch (err) {
      fail(cb, path, grpc.status.INVALID_ARGUMENT, (err as Error).message);
      return undefined;
    }
  };

  const traces: Grpc.handleUnaryCall<Buffer, Uint8Array> = (call, cb) => {
    const request = accept(call, cb, TRACE_EXPORT_PATH, decodeTraceMessage);
    if (!request) return;
    const { spans, problems } = spansFromProtoRequest(request, 'grpc');
    for (const p of problems) pipeline.addProblem(p);
    pipeline.addSpans(spans, now());
    const rejected = problems.length;
    options.onRequest?.({ path: TRACE_EXPORT_PATH, status: 0, spans: spans.length, logs: 0, rejected });
    cb(null, encodeTraceResponse(rejected ? { rejectedSpans: rejected, errorMessage: `${rejected} spans rejected: ${problems[0]!.reason}` } : {}));
  };

  const logs: Grpc.handleUnaryCall<Buffer, Uint8Array> = (call, cb) => {
    const request = accept(call, cb, LOGS_EXPORT_PATH, decodeLogsRequest);
    if (!request) return;
    const { logs: records, problems } = logsFromRequest(request, 'grpc', ATTR_EVENT_NAME);
    if (problems.length) return fail(cb, LOGS_EXPORT_PATH, grpc.status.INVALID_ARGUMENT, problems[0]!.reason);
    pipeline.addLogs(records, now());
    options.onRequest?.({ path: LOGS_EXPORT_PATH, status: 0, spans: 0, logs: records.length, rejected: 0 });
    cb(null, encodeLogsResponse({}));
  };

  server.addService({ Export: bytesMethod(TRACE_EXPORT_PATH) } as Grpc.ServiceDefinition, { Export: traces });
  server.addService({ Export: bytesMethod(LOGS_EXPORT_PATH) } as Grpc.ServiceDefinition, { Export: logs });

  return {
    get url() {
      return url;
    },
    get port() {
      return port;
    },
    listen() {
      return new Promise((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(options.port ?? 4317, host, () => {
          listener.off('error', reject);
          port = (listener.address() as { port: number }).port;
          const bound = port;
          url = `grpc://${host.includes(':') ? `[${host}]` : host}:${bound}`;
          if ((options.tickMs ?? 250) > 0) {
            timer = setInterval(() => pipeline.tick(now()), options.tickMs ?? 250);
            timer.unref();
          }
          resolve(url);
        });
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        if (timer) clearInterval(timer);
        const done = (): void => {
          if (options.flushOnClose === false) resolve();
          else scoreHeldTraces(pipeline).then(resolve, reject);
        };
        listener.close();
        const force = setTimeout(() => {
          server.forceShutdown();
          for (const s of sockets) s.destroy();
        }, 2000);
        force.unref();
        injector.drain(2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          for (const s of sockets) s.destroy();
          done();
        });
      });
    },
  };
}
