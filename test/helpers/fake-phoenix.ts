// A fake Arize Phoenix server for tests: accepts OTLP traces on POST /v1/traces (protobuf only, as
// Phoenix does: JSON gets 415) and records POST /v1/span_annotations bodies; GET
// /v1/projects/{project}/spans and …/span_annotations read them back.
//
//   const phoenix = await startFakePhoenix();                 // or { annotationStatuses: [503, 200] }
//   ... [telemetry] endpoint = `${phoenix.url}/v1/traces`, eval_annotations = true ...
//   expect(phoenix.annotations[0].body.data[0].name).toBe('runspec.tool_selection');
//   await phoenix.close();
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from '../../src/traces/otlp-proto.js';
import { flattenTraceRequest, type FlatSpan } from './otlp-sink.js';

export interface AnnotationRequest {
  path: string;
  /** Parsed query string (`sync`). */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: { data: Array<Record<string, unknown>> };
}

export interface FakePhoenix {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  /** Every POST /v1/span_annotations, in arrival order (retries included). */
  annotations: AnnotationRequest[];
  /** Every OTLP request on /v1/traces (status 415 for non-protobuf bodies). */
  traceRequests: Array<{ headers: IncomingHttpHeaders; contentType: string; body: Buffer }>;
  /** Spans decoded from the accepted protobuf trace requests. */
  spans(): FlatSpan[];
  close(): Promise<void>;
}

export interface FakePhoenixOptions {
  /** Serve https with this key and certificate (PEM); `url` then starts with https://127.0.0.1. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Status of successive annotation requests; the last one repeats. @default [200] */
  annotationStatuses?: number[];
  /** Never answer annotation requests. */
  hangAnnotations?: boolean;
  /** Status for /v1/traces. @default 200 */
  traceStatus?: number;
  /** File every span under "default" unless the x-project-name header names a project (a Phoenix that ignores the resource attribute). */
  projectFromHeaderOnly?: boolean;
}

export async function startFakePhoenix(opts: FakePhoenixOptions = {}): Promise<FakePhoenix> {
  const annotations: AnnotationRequest[] = [];
  const traceRequests: FakePhoenix['traceRequests'] = [];
  const hanging = new Set<ServerResponse>();
  const statuses = opts.annotationStatuses ?? [200];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const contentType = String(req.headers['content-type'] ?? '');
      if (req.method === 'POST' && url.pathname === '/v1/traces') {
        traceRequests.push({ headers: req.headers, contentType, body });
        const status = contentType.includes('application/x-protobuf') ? (opts.traceStatus ?? 200) : 415;
        res.writeHead(status, { 'content-type': 'application/x-protobuf' });
        res.end(Buffer.alloc(0));
        return;
      }
      if (req.method === 'POST' && url.pathname === '/v1/span_annotations') {
        let parsed: AnnotationRequest['body'] = { data: [] };
        try {
          parsed = JSON.parse(body.toString('utf8')) as AnnotationRequest['body'];
        } catch {
          res.writeHead(422).end('{"detail":"invalid JSON"}');
          return;
        }
        annotations.push({ path: req.url ?? '', query: Object.fromEntries(url.searchParams), headers: req.headers, body: parsed });
        if (opts.hangAnnotations) {
          hanging.add(res);
          return;
        }
        const status = statuses[Math.min(annotations.length - 1, statuses.length - 1)]!;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(status === 200 ? '{"data":[]}' : '{"detail":"error"}');
        return;
      }
      // Read-back (Phoenix REST): spans and span annotations of a project (doctor uses these).
      const read = /^\/v1\/projects\/([^/]+)\/(spans|span_annotations)$/.exec(url.pathname);
      if (req.method === 'GET' && read) {
        const project = decodeURIComponent(read[1]!);
        const inProject = projectSpans(project);
        const data =
          read[2] === 'spans'
            ? inProject.map((sp) => ({
                name: sp.name,
                context: { trace_id: sp.traceId, span_id: sp.spanId },
                parent_id: sp.parentSpanId ?? null,
                attributes: sp.attributes,
              }))
            : annotations
                .filter((_a, i) => (statuses[Math.min(i, statuses.length - 1)] ?? 200) === 200)
                .flatMap((a) => a.body.data)
                .filter((d) => inProject.some((sp) => sp.spanId === d.span_id))
                .map((d) => ({ span_id: d.span_id, name: d.name, result: d.result, annotator_kind: d.annotator_kind }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data, next_cursor: null }));
        return;
      }
      res.writeHead(404).end();
    });
  };
  // Phoenix's project: the x-project-name header, else the resource attribute, else "default".
  const projectSpans = (project: string): FlatSpan[] =>
    traceRequests
      .filter((r) => r.contentType.includes('application/x-protobuf') && (opts.traceStatus ?? 200) === 200)
      .flatMap((r) => {
        const header = r.headers['x-project-name'];
        const spans = flattenTraceRequest(decodeTraceRequest(new Uint8Array(r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body)));
        const fromResource = (sp: FlatSpan): string =>
          opts.projectFromHeaderOnly ? 'default' : String(sp.resource['openinference.project.name'] ?? 'default');
        return spans.filter((sp) => (typeof header === 'string' ? header : fromResource(sp)) === project);
      });
  const server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    annotations,
    traceRequests,
    spans: () =>
      traceRequests
        .filter((r) => r.contentType.includes('application/x-protobuf'))
        .flatMap((r) => flattenTraceRequest(decodeTraceRequest(new Uint8Array(r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body)))),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
