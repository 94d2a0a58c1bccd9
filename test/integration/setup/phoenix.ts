import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from './net.js';
import { pipInstallVenv, type Venv } from './pip.js';
import { startBackend, type Backend } from './supervisor.js';

/** The Phoenix release the tier installs (pinned with all its dependencies in phoenix-constraints.txt). */
export const PHOENIX_VERSION = '20.26.1';
export const PHOENIX_CONSTRAINTS = fileURLToPath(new URL('../phoenix-constraints.txt', import.meta.url));

/** A Phoenix server started by a test file. */
export interface PhoenixServer {
  /** http://127.0.0.1:<port>: UI, REST API and OTLP/HTTP (`/v1/traces`). */
  url: string;
  /** http://127.0.0.1:<port> of the OTLP/gRPC receiver. */
  grpcUrl: string;
  httpPort: number;
  grpcPort: number;
  /** What the server says it is (`GET /arize_phoenix_version`). */
  version: string;
  venv: Venv;
  /** From spawn to ready. */
  startMs: number;
  backend: Backend;
  /** Authorization header value for the REST API when auth is on (the admin secret as a bearer token). */
  authHeader?: string;
  stop(): Promise<void>;
}

export interface StartPhoenixOptions {
  /**
   * Start with authentication on (PHOENIX_ENABLE_AUTH): `secret` signs sessions, `adminSecret` is accepted as
   * a bearer token. Both need >= 32 characters with a digit and a lowercase letter.
   */
  auth?: { secret: string; adminSecret: string };
  /** @default 300000 (a cold start on a busy two-core machine imports for minutes) */
  readyDeadlineMs?: number;
  log?: (line: string) => void;
}

/** The venv with Phoenix, installed once per constraints file and Python version (see pipInstallVenv). */
export async function phoenixVenv(log?: (line: string) => void): Promise<Venv> {
  return await pipInstallVenv('phoenix', PHOENIX_CONSTRAINTS, log ? { log } : {});
}

/**
 * Install (first time) and start `phoenix serve` on 127.0.0.1 with free HTTP and gRPC ports, its SQLite
 * database in a temp working folder, no external resources (fonts, CDNs), no telemetry and no agent
 * assistant; ready when `/healthz` answers and the gRPC port accepts connections.
 * Phoenix 20.26.1 binds its gRPC receiver on all interfaces ([::]) whatever PHOENIX_HOST says; HTTP binds
 * 127.0.0.1.
 *
 * @example const phoenix = await startPhoenix(); afterAll(() => phoenix.stop());
 */
export async function startPhoenix(opts: StartPhoenixOptions = {}): Promise<PhoenixServer> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const venv = await phoenixVenv(log);
  const [httpPort, grpcPort] = (await freePorts(2)) as [number, number];
  const url = `http://127.0.0.1:${httpPort}`;
  const authHeader = opts.auth ? `Bearer ${opts.auth.adminSecret}` : undefined;
  const started = Date.now();
  const backend = await startBackend({
    name: opts.auth ? 'phoenix-auth' : 'phoenix',
    command: venv.bin('phoenix'),
    args: ['serve'],
    env: (dataDir) => ({
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(httpPort),
      PHOENIX_GRPC_PORT: String(grpcPort),
      PHOENIX_WORKING_DIR: join(dataDir, 'phoenix'),
      PHOENIX_ALLOW_EXTERNAL_RESOURCES: 'false',
      PHOENIX_TELEMETRY_ENABLED: 'false',
      PHOENIX_DISABLE_AGENT_ASSISTANT: 'true',
      ...(opts.auth ? { PHOENIX_ENABLE_AUTH: 'true', PHOENIX_SECRET: opts.auth.secret, PHOENIX_ADMIN_SECRET: opts.auth.adminSecret } : {}),
    }),
    readyDeadlineMs: opts.readyDeadlineMs ?? 300_000,
    ready: async () => {
      const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) });
      if (!health.ok) return false;
      // The gRPC receiver starts in the same lifespan; check it accepts connections too.
      return await tcpAccepts(grpcPort);
    },
  });
  const startMs = Date.now() - started;
  const versionRes = await fetch(`${url}/arize_phoenix_version`, { headers: authHeader ? { authorization: authHeader } : {} });
  const version = (await versionRes.text()).trim();
  log(`phoenix ${version}: ready on ${url} (gRPC ${grpcPort}) after ${(startMs / 1000).toFixed(1)} s`);
  return {
    url,
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    httpPort,
    grpcPort,
    version,
    venv,
    startMs,
    backend,
    ...(authHeader !== undefined ? { authHeader } : {}),
    stop: () => backend.stop(),
  };
}

async function tcpAccepts(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return await new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A span as Phoenix's REST API returns it (`GET /v1/projects/{project}/spans`). */
export interface PhoenixSpan {
  id: string;
  name: string;
  context: { trace_id: string; span_id: string };
  span_kind: string;
  parent_id: string | null;
  status_code: string;
  status_message: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
}

/** A span annotation as Phoenix returns it (`GET /v1/projects/{project}/span_annotations`). */
export interface PhoenixAnnotation {
  id: string;
  name: string;
  span_id: string;
  annotator_kind: string;
  source: string;
  identifier: string;
  result: { label: string | null; score: number | null; explanation: string | null };
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** GET a Phoenix REST path (with the admin bearer token when auth is on); throws on any status but 200. */
export async function phoenixGet<T>(server: Pick<PhoenixServer, 'url' | 'authHeader'>, path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    headers: server.authHeader ? { authorization: server.authHeader } : {},
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Every span of a project matching the query (pages followed; at most 20 pages of 1000). */
export async function listSpans(
  server: Pick<PhoenixServer, 'url' | 'authHeader'>,
  project: string,
  query: Record<string, string> = {},
): Promise<PhoenixSpan[]> {
  const out: PhoenixSpan[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const qs = new URLSearchParams({ ...query, limit: '1000', ...(cursor ? { cursor } : {}) });
    const body: { data: PhoenixSpan[]; next_cursor: string | null } = await phoenixGet(server, `/v1/projects/${encodeURIComponent(project)}/spans?${qs}`);
    out.push(...body.data);
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  return out;
}

/** The span annotations on these spans (every name and identifier). */
export async function listSpanAnnotations(server: Pick<PhoenixServer, 'url' | 'authHeader'>, project: string, spanIds: string[]): Promise<PhoenixAnnotation[]> {
  const qs = new URLSearchParams(spanIds.map((id) => ['span_ids', id]));
  qs.set('limit', '1000');
  const body: { data: PhoenixAnnotation[] } = await phoenixGet(server, `/v1/projects/${encodeURIComponent(project)}/span_annotations?${qs}`);
  return body.data;
}
