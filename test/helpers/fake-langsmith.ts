// A fake LangSmith for tests: OTLP traces on POST /otel/v1/traces (protobuf or JSON), feedback on
// POST {prefix}/feedback and run read-back on GET {prefix}/runs/{id}, where prefix is "" (cloud) or
// "/api/v1" (self-hosted). A run exists once a span with the matching id arrived (run id = the 8
// span-id bytes right-aligned in 16 zero bytes); ingest lag is simulated by answering 404 to the first
// `lagRequests` feedback posts of each run, so retry tests need no clock. Every request must carry
// `x-api-key: <apiKey>` (401 otherwise).
//
//   const ls = await startFakeLangSmith({ apiKey: 'lsv2-test', lagRequests: 2 });
//   ... LANGSMITH_ENDPOINT=ls.url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=`${ls.url}/otel/v1/traces` ...
//   expect(ls.feedback[0].body.run_id).toBe('00000000-0000-0000-1a2b-3c4d5e6f7a8b');
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from '../../src/traces/otlp-proto.js';
import { flattenTraceRequest, type FlatSpan } from './otlp-sink.js';

export interface FeedbackRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** What the fake answered. */
  status: number;
}

export interface FakeLangSmith {
  url: string;
  /** Every POST …/feedback, in arrival order (retries included). */
  feedback: FeedbackRequest[];
  /** Feedback accepted (status 200), by run id. */
  accepted(): Array<Record<string, unknown>>;
  /** Spans received on /otel/v1/traces. */
  spans: FlatSpan[];
  /** Headers of each trace request. */
  traceHeaders: IncomingHttpHeaders[];
  /** GET …/runs/{id} requests. */
  runReads: string[];
  /** GET …/sessions?name= lookups (project names), in order. */
  sessionReads: string[];
  close(): Promise<void>;
}

export interface FakeLangSmithOptions {
  /** Expected x-api-key. @default "lsv2-test-key" */
  apiKey?: string;
  /** 404 answers to a run's first feedback posts (ingest lag). @default 0 */
  lagRequests?: number;
  /** Path prefix of the REST API ("/api/v1" for a self-hosted one). @default "" */
  prefix?: string;
  /** Projects (tracer sessions) by name → id. @default { default: DEFAULT_SESSION_ID } */
  projects?: Record<string, string>;
}

/** The id of the fake's "default" project. */
export const DEFAULT_SESSION_ID = '0b5e5510-0000-4000-8000-00000000d3fa';

function runIdOf(spanId: string): string {
  return `00000000-0000-0000-${spanId.slice(0, 4)}-${spanId.slice(4)}`;
}

export async function startFakeLangSmith(opts: FakeLangSmithOptions = {}): Promise<FakeLangSmith> {
  const apiKey = opts.apiKey ?? 'lsv2-test-key';
  const prefix = opts.prefix ?? '';
  const feedback: FeedbackRequest[] = [];
  const spans: FlatSpan[] = [];
  const traceHeaders: IncomingHttpHeaders[] = [];
  const runReads: string[] = [];
  const sessionReads: string[] = [];
  const projects = opts.projects ?? { default: DEFAULT_SESSION_ID };
  const acceptedIds = new Set<string>();
  const runs = new Map<string, FlatSpan>();
  const tries = new Map<string, number>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers['x-api-key'] !== apiKey) {
        json(401, { detail: 'Invalid token' });
        if (url.pathname.endsWith('/feedback')) feedback.push({ path: url.pathname, headers: req.headers, body: {}, status: 401 });
        return;
      }
      if (req.method === 'POST' && url.pathname === '/otel/v1/traces') {
        traceHeaders.push(req.headers);
        // As LangSmith does: traces sent to a project (the Langsmith-Project header) create it.
        const project = req.headers['langsmith-project'];
        if (typeof project === 'string' && !Object.hasOwn(projects, project)) {
          projects[project] = `0b5e5510-0000-4000-8000-${createHash('sha256').update(project).digest('hex').slice(0, 12)}`;
        }
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const ct = String(req.headers['content-type'] ?? '');
        const decoded = ct.includes('json') ? JSON.parse(body.toString('utf8')) : decodeTraceRequest(new Uint8Array(body));
        for (const s of flattenTraceRequest(decoded)) {
          spans.push(s);
          runs.set(runIdOf(s.spanId), s);
        }
        res.writeHead(200, { 'content-type': ct.includes('json') ? 'application/json' : 'application/x-protobuf' });
        res.end(ct.includes('json') ? '{}' : Buffer.alloc(0));
        return;
      }
      if (req.method === 'POST' && url.pathname === `${prefix}/feedback`) {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        } catch {
          json(422, { detail: 'invalid JSON' });
          return;
        }
        const runId = String(body.run_id ?? '');
        const n = (tries.get(runId) ?? 0) + 1;
        tries.set(runId, n);
        // A client id seen before is a duplicate: LangSmith answers 409 and keeps the first.
        const dup = typeof body.id === 'string' && acceptedIds.has(body.id);
        const status = dup ? 409 : runs.has(runId) && n > (opts.lagRequests ?? 0) ? 200 : 404;
        if (status === 200 && typeof body.id === 'string') acceptedIds.add(body.id);
        feedback.push({ path: url.pathname, headers: req.headers, body, status });
        json(status, status === 200 ? { id: `fb-${feedback.length}`, ...body } : { detail: 'Run not found' });
        return;
      }
      if (req.method === 'GET' && url.pathname === `${prefix}/sessions`) {
        const name = url.searchParams.get('name') ?? '';
        sessionReads.push(name);
        return json(200, Object.hasOwn(projects, name) ? [{ id: projects[name], name, tenant_id: 't' }] : []);
      }
      const m = new RegExp(`^${prefix}/runs/([0-9a-f-]{36})$`).exec(url.pathname);
      if (req.method === 'GET' && m) {
        runReads.push(m[1]!);
        const span = runs.get(m[1]!);
        if (!span) return json(404, { detail: 'Run not found' });
        const fb = feedback.filter((f) => f.status === 200 && f.body.run_id === m[1]).map((f) => f.body);
        return json(200, { id: m[1], name: span.name, feedback_stats: Object.fromEntries(fb.map((f) => [String(f.key), { n: 1, avg: f.score }])) });
      }
      json(404, { detail: 'Not found' });
    });
  };
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    feedback,
    accepted: () => feedback.filter((f) => f.status === 200).map((f) => f.body),
    spans,
    traceHeaders,
    runReads,
    sessionReads,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
