// A local OTLP/HTTP trace receiver for tests: records every request as it crossed the wire and decodes
// OTLP/JSON and OTLP/protobuf bodies (gzip too) into flat spans with hex ids and plain attribute values.
//
//   const sink = await startOtlpSink();            // or { status: 500 } / { hang: true } / { delayMs: 200 }
//   ... export to `${sink.url}/v1/traces` (or OTEL_EXPORTER_OTLP_ENDPOINT=sink.url) ...
//   expect(sink.rootSpan().attributes['runspec.eval.category']).toBe('wrong_tool');
//   await sink.close();                            // always, in afterAll/finally
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from '../../src/traces/otlp-proto.js';
import type { OtlpAnyValue, OtlpKeyValue, OtlpTraceRequest } from '../../src/traces/otlp-types.js';

export interface SinkRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  contentType: string;
  /** The body as received (still gzip-compressed when Content-Encoding says so). */
  body: Buffer;
}

export interface FlatEvent {
  name: string;
  timeUnixNano: string;
  attributes: Record<string, unknown>;
}

export interface FlatLink {
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
}

/** One span, flattened: ids lowercase hex, times as decimal strings, attributes as plain values. */
export interface FlatSpan {
  traceId: string;
  spanId: string;
  /** Absent on roots. */
  parentSpanId?: string;
  name: string;
  /** OTLP enum: 1 INTERNAL, 2 SERVER, 3 CLIENT. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  events: FlatEvent[];
  links: FlatLink[];
  /** OTLP enum: 0 UNSET, 1 OK, 2 ERROR. */
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: { name?: string; version?: string };
}

export interface OtlpSink {
  /** Base URL without a path, e.g. http://127.0.0.1:PORT (append /v1/traces for a traces endpoint). */
  url: string;
  requests: SinkRequest[];
  /** Every span of every /v1/traces request, in arrival order. */
  spans(): FlatSpan[];
  /** The only span without a parent; throws unless exactly one exists. */
  rootSpan(): FlatSpan;
  /** All bodies, decompressed, as one string (for "this secret never crossed the wire" checks). */
  rawBodies(): string;
  /** Decoded OTLP requests (JSON shape) of the /v1/traces requests. */
  traceRequests(): OtlpTraceRequest[];
  close(): Promise<void>;
}

export interface OtlpSinkOptions {
  /** Serve https with this key and certificate (PEM); `url` then starts with https://127.0.0.1. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** HTTP status to answer. @default 200 */
  status?: number;
  /** Never answer (the connection stays open until close()). */
  hang?: boolean;
  /** Answer after this many milliseconds. */
  delayMs?: number;
}

export function anyValueToPlain(v: OtlpAnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(anyValueToPlain);
  if (v.kvlistValue !== undefined) return attributesToPlain(v.kvlistValue.values);
  if (v.bytesValue !== undefined) return v.bytesValue;
  return undefined;
}

export function attributesToPlain(kvs: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of kvs ?? []) out[kv.key] = anyValueToPlain(kv.value);
  return out;
}

/** Flatten OTLP/JSON requests (as written by the JSON serializer or decoded from protobuf). */
export function flattenTraceRequest(req: OtlpTraceRequest): FlatSpan[] {
  const out: FlatSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = attributesToPlain(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const parent = s.parentSpanId ? s.parentSpanId.toLowerCase() : undefined;
        out.push({
          traceId: (s.traceId ?? '').toLowerCase(),
          spanId: (s.spanId ?? '').toLowerCase(),
          ...(parent ? { parentSpanId: parent } : {}),
          name: s.name ?? '',
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: String(s.startTimeUnixNano ?? '0'),
          endTimeUnixNano: String(s.endTimeUnixNano ?? '0'),
          attributes: attributesToPlain(s.attributes),
          events: (s.events ?? []).map((e) => ({
            name: e.name ?? '',
            timeUnixNano: String(e.timeUnixNano ?? '0'),
            attributes: attributesToPlain(e.attributes),
          })),
          links: (s.links ?? []).map((l) => ({
            traceId: (l.traceId ?? '').toLowerCase(),
            spanId: (l.spanId ?? '').toLowerCase(),
            attributes: attributesToPlain(l.attributes),
          })),
          status: {
            code: Number(s.status?.code ?? 0),
            ...(s.status?.message ? { message: s.status.message } : {}),
          },
          resource,
          scope: { ...(ss.scope?.name ? { name: ss.scope.name } : {}), ...(ss.scope?.version ? { version: ss.scope.version } : {}) },
        });
      }
    }
  }
  return out;
}

function decompressed(r: SinkRequest): Buffer {
  return r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body;
}

function decode(r: SinkRequest): OtlpTraceRequest {
  const body = decompressed(r);
  if (r.contentType.includes('json')) return JSON.parse(body.toString('utf8')) as OtlpTraceRequest;
  return decodeTraceRequest(new Uint8Array(body));
}

function decodes(r: SinkRequest): boolean {
  try {
    decode(r);
    return true;
  } catch {
    return false;
  }
}

/** Start the receiver on 127.0.0.1, port 0. */
export async function startOtlpSink(opts: OtlpSinkOptions = {}): Promise<OtlpSink> {
  const requests: SinkRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, contentType, body: Buffer.concat(chunks) });
      if (opts.hang) {
        hanging.add(res);
        return;
      }
      const answer = (): void => {
        const json = contentType.includes('json');
        // As the Collector's OTLP receiver does: a body that does not decode is 400, not accepted.
        if ((req.url ?? '').startsWith('/v1/traces') && !decodes(requests[requests.length - 1]!)) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 3, message: 'unable to decode the request body' }));
          return;
        }
        res.writeHead(opts.status ?? 200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        // An empty protobuf message is a valid ExportTraceServiceResponse.
        res.end(json ? '{}' : Buffer.alloc(0));
      };
      if (opts.delayMs) setTimeout(answer, opts.delayMs);
      else answer();
    });
  };
  const server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const traceRequests = (): OtlpTraceRequest[] => requests.filter((r) => r.path.startsWith('/v1/traces')).map(decode);
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    traceRequests,
    spans: () => traceRequests().flatMap(flattenTraceRequest),
    rootSpan() {
      const roots = traceRequests()
        .flatMap(flattenTraceRequest)
        .filter((s) => s.parentSpanId === undefined);
      if (roots.length !== 1) throw new Error(`expected exactly one root span, found ${roots.length}`);
      return roots[0]!;
    },
    rawBodies: () => requests.map((r) => decompressed(r).toString('utf8')).join('\n'),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
