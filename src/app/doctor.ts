// `doctor`: check the configured telemetry end to end. Sends a canary trace (one root span) and a canary
// annotation (Phoenix) or feedback (LangSmith) the way `run` would, reads them back where the backend
// allows (Phoenix REST GET /v1/projects/{project}/spans and …/span_annotations; LangSmith GET /runs/{id}),
// and names the fix for each common mistake: JSON to Phoenix (415), a wrong or doubled /v1/traces suffix,
// a missing project, authentication, TLS. Nothing here prints or exits; the report is data.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SEMRESATTRS_PROJECT_NAME } from '@arizeai/openinference-semantic-conventions';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { readEnv } from '../config/env.js';
import { createHttpClient, type HttpClient } from '../core/http-client.js';
import { redactUrl, redactUrlsInText } from '../core/redact.js';
import { loadConfigFile } from '../config/file.js';
import { resolveTelemetryConfig, type TelemetryConfig } from '../config/telemetry.js';
import { ATTR_RUNSPEC_EVAL_CASE_ID } from '../semconv/attributes.js';
import { closestName } from '../core/did-you-mean.js';
import { annotationTls, postSpanAnnotations } from '../telemetry/phoenix.js';
import { langsmithRunId } from '../core/trace-link.js';
import { feedbackId, postLangSmithFeedback } from '../telemetry/langsmith.js';
import { encodeTraceRequest } from '../traces/otlp-proto.js';
import type { OtlpTraceRequest } from '../traces/otlp-types.js';
import type { AppContext } from './context.js';
import { importOptionalPeer } from '../core/optional-peer.js';

/** The annotation / feedback name of the canary (not a verdict). */
export const DOCTOR_EVALUATION_NAME = 'runspec.doctor';

export type DoctorBackend = 'phoenix' | 'langsmith' | 'otlp';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** What was seen. */
  detail: string;
  /** What to change, when something is wrong (or worth changing). */
  fix?: string;
  /**
   * Nothing could be checked here (a generic OTLP receiver has no read-back): not a failure, but not proof
   * of arrival either. Such a check has `ok: true` and leaves `report.verified` false.
   */
  notCheckable?: true;
}

export interface DoctorReport {
  backend: DoctorBackend | 'file';
  endpoint?: string;
  checks: DoctorCheck[];
  /**
   * Every check made passed (exit 0). What could not be checked does not count against it: a generic OTLP
   * receiver that accepted the canary is ok, with `verified` false.
   */
  ok: boolean;
  /** ok, and every check was made: everything sent was read back. */
  verified: boolean;
}

export interface DoctorOptions {
  /** auto: LangSmith when the endpoint or [telemetry.langsmith] says so, Phoenix when port 6006, eval annotations or a Phoenix project are configured, else a generic OTLP receiver. */
  backend?: DoctorBackend | 'auto';
  /** How long read-back waits for ingest. @default 30000 */
  timeoutMs?: number;
  /** Wait between read-back polls. @default 500 */
  pollMs?: number;
}

interface HttpAnswer {
  status: number;
  body: string;
}

/** The values of the export's credential headers (authorization, x-api-key, ...): blanked out of quoted replies. */
function secretHeaderValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([name]) => /auth|key|token|secret/i.test(name))
    .flatMap(([, value]) => [value, value.replace(/^Bearer\s+/i, '')]);
}

type Request = (url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array | string }) => Promise<HttpAnswer>;

function detectBackend(cfg: TelemetryConfig, url: string, fileHasLangsmith: boolean): DoctorBackend {
  const u = new URL(url);
  const headers = Object.keys(cfg.exporter.kind === 'otlp' ? cfg.exporter.headers : {}).map((h) => h.toLowerCase());
  if (fileHasLangsmith || /smith\.langchain/.test(u.hostname) || /\/otel\/v1\/traces\/?$/.test(u.pathname) || headers.includes('langsmith-project'))
    return 'langsmith';
  if (cfg.annotations || u.port === '6006' || cfg.project !== undefined || headers.includes('x-project-name')) return 'phoenix';
  return 'otlp';
}

/** The fix for a failed canary POST, by status and backend. */
function fixForStatus(status: number, cfg: TelemetryConfig, backend: DoctorBackend, url: string): string {
  const protocol = cfg.exporter.kind === 'otlp' ? cfg.exporter.protocol : 'http/protobuf';
  if (status === 415) {
    return protocol === 'http/json'
      ? `the server does not take OTLP/JSON${backend === 'phoenix' ? ' (Phoenix accepts only protobuf)' : ''}: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (the default) and drop protocol = "http/json" from runspec.toml`
      : 'the server refuses application/x-protobuf here: check that the URL is its OTLP/HTTP traces endpoint';
  }
  if (status === 404 || status === 405)
    return pathFix(url, backend) ?? `nothing takes POST ${new URL(url).pathname}: point the endpoint at the OTLP traces URL`;
  if (status === 401 || status === 403) {
    return backend === 'langsmith'
      ? 'LangSmith wants header x-api-key: set OTEL_EXPORTER_OTLP_HEADERS="x-api-key=${LANGSMITH_API_KEY},Langsmith-Project=<project>"'
      : backend === 'phoenix'
        ? phoenixAuthFix(cfg)
        : 'the receiver wants credentials: set them in OTEL_EXPORTER_OTLP_HEADERS';
  }
  if (status === 413) return 'the receiver limits body size; the canary is tiny, so a proxy in between is likely refusing it';
  return `the receiver answered HTTP ${status}; check its logs`;
}

/**
 * Phoenix refused the canary (auth on): a key that was never sent, one set but not sent with the export, or one
 * sent and refused each need a different change.
 */
function phoenixAuthFix(cfg: TelemetryConfig): string {
  const headers = cfg.exporter.kind === 'otlp' ? cfg.exporter.headers : {};
  const sent = Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
  if (sent) {
    return `Phoenix refused the key sent as Authorization: Bearer (not a key of this Phoenix: mistyped, revoked or expired, or another instance's): create a system API key in Phoenix (Settings → API Keys) and export it as ${cfg.apiKeyEnv}`;
  }
  if (cfg.apiKey !== undefined) {
    return `${cfg.apiKeyEnv} is set but the trace export does not send it: set eval_annotations = true in [telemetry] (the key then authenticates the export too), or OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20<key>"`;
  }
  return `Phoenix has authentication on and no key was sent: export ${cfg.apiKeyEnv}=<a Phoenix API key> and set eval_annotations = true in [telemetry], or set OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20<key>"`;
}

/** A wrong or doubled `/v1/traces` suffix, when the path shows one. */
function pathFix(url: string, backend: DoctorBackend): string | undefined {
  const path = new URL(url).pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1/traces/v1/traces')) {
    return 'the traces path is doubled (…/v1/traces/v1/traces): OTEL_EXPORTER_OTLP_ENDPOINT takes the base URL (the /v1/traces suffix is added), while OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and [telemetry] endpoint take the full traces URL';
  }
  const want = backend === 'langsmith' ? '/otel/v1/traces' : '/v1/traces';
  if (!path.endsWith(want)) {
    return `the traces URL should end in ${want} (got ${path || '/'}): set OTEL_EXPORTER_OTLP_TRACES_ENDPOINT to the full URL, or OTEL_EXPORTER_OTLP_ENDPOINT to the base URL`;
  }
  return undefined;
}

/** The fix for a network or TLS failure of the canary. */
function fixForError(err: Error, url: string): string {
  const e = err as Error & { code?: string };
  const cause = (err.cause ?? {}) as { code?: string; message?: string };
  const code = e.code ?? cause.code ?? '';
  const message = `${err.message} ${cause.message ?? ''}`;
  const u = new URL(url);
  if (code === 'ECONNREFUSED')
    return `nothing listens on ${u.host}: start the collector/backend, or fix the host and port (Phoenix: 6006 for HTTP; collectors: 4318 HTTP, 4317 gRPC)`;
  // undici's HTTP/1.1 parser meeting an HTTP/2 server's preface: an OTLP/gRPC port (Phoenix's, a collector's 4317).
  if (code === 'HPE_INVALID_CONSTANT' || /does not match the HTTP\/1\.1 protocol/i.test(message)) {
    return `${u.host} speaks HTTP/2 only, like an OTLP/gRPC port: for OTLP/HTTP use the server's HTTP port (Phoenix: its web port, 6006 by default; collectors: 4318), or export over gRPC with OTEL_EXPORTER_OTLP_PROTOCOL=grpc`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host ${u.hostname} does not resolve: fix the endpoint's host name`;
  if (/WRONG_VERSION_NUMBER|wrong version number|ERR_SSL_/i.test(code + message) && u.protocol === 'https:') {
    return `the server speaks plain HTTP on ${u.host}: use http:// in the endpoint (or enable TLS on the server)`;
  }
  if (/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_/i.test(code + message)) {
    return 'the server certificate is not trusted: set OTEL_EXPORTER_OTLP_CERTIFICATE (or [telemetry] ca_file) to the PEM of the CA that signed it';
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the certificate does not name ${u.hostname}: use the host name the certificate was issued for`;
  if ((code === 'ECONNRESET' || /socket hang up|other side closed/i.test(message)) && u.protocol === 'http:') {
    return `the connection was closed: if ${u.host} serves TLS, use https:// in the endpoint`;
  }
  if (/timeout|Timeout/.test(code + message)) return `no answer from ${u.host} in time: check firewalls and proxies on the way`;
  return 'check the endpoint URL and that the server is up';
}

/** The fix for a failed OTLP/gRPC canary, from grpc-js's error text. */
function fixForGrpc(problem: string, url: string, cfg: TelemetryConfig, backend: DoctorBackend): string {
  const host = new URL(url).host;
  if (/Protocol error/i.test(problem)) {
    return `${host} does not speak gRPC (an HTTP/1.1 server, such as Phoenix's web port): point the endpoint at the OTLP/gRPC port (Phoenix: PHOENIX_GRPC_PORT, 4317 by default), or set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf with the http://host:port/v1/traces URL`;
  }
  if (/ECONNREFUSED|No connection established/i.test(problem))
    return `nothing accepts gRPC on ${host}: start the backend, or fix the host and port (OTLP/gRPC: 4317 by default)`;
  if (/UNAUTHENTICATED|PERMISSION_DENIED|Unauthenticated/i.test(problem)) {
    return backend === 'phoenix' ? phoenixAuthFix(cfg) : 'the receiver wants credentials: set them in OTEL_EXPORTER_OTLP_HEADERS';
  }
  return 'check the gRPC endpoint (host:port, usually 4317) and its credentials';
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function canaryRequest(cfg: TelemetryConfig, traceId: string, spanId: string): OtlpTraceRequest {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const resource = [
    { key: ATTR_SERVICE_NAME, value: { stringValue: cfg.serviceName } },
    ...(cfg.project !== undefined ? [{ key: SEMRESATTRS_PROJECT_NAME, value: { stringValue: cfg.project } }] : []),
  ];
  return {
    resourceSpans: [
      {
        resource: { attributes: resource },
        scopeSpans: [
          {
            scope: { name: 'runspec-eval doctor' },
            spans: [
              {
                traceId,
                spanId,
                name: 'runspec-eval doctor canary',
                kind: 1,
                startTimeUnixNano: String(nowNs),
                endTimeUnixNano: String(nowNs + 1_000_000n),
                attributes: [{ key: ATTR_RUNSPEC_EVAL_CASE_ID, value: { stringValue: 'doctor-canary' } }],
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  };
}

/**
 * Run the checks against the telemetry configured for the project (flags aside: what `run` would use).
 *
 * @example const report = await runDoctor(ctx, { timeoutMs: 10_000 }); report.ok
 */
export async function runDoctor(ctx: AppContext, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const pollMs = opts.pollMs ?? 500;
  const env = readEnv(ctx.env);
  const file = loadConfigFile(ctx.projectDir);
  const cfg = resolveTelemetryConfig({
    flags: { telemetry: true, langsmithFeedback: true, feedbackOnly: true },
    env,
    file: file.telemetry,
    projectDir: ctx.projectDir,
  });
  for (const w of env.warnings.splice(0)) ctx.warn(w);
  const checks: DoctorCheck[] = [];
  const done = (report: Omit<DoctorReport, 'ok' | 'verified'>): DoctorReport => {
    const ok = report.checks.length > 0 && report.checks.every((c) => c.ok);
    // The one exit point of the report: every URL in it loses its credentials (user:password, ?api-key=).
    const shown = report.checks.map((c) => ({ ...c, detail: redactUrlsInText(c.detail), ...(c.fix !== undefined ? { fix: redactUrlsInText(c.fix) } : {}) }));
    const endpoint = report.endpoint !== undefined ? { endpoint: redactUrl(report.endpoint) } : {};
    return { ...report, ...endpoint, checks: shown, ok, verified: ok && !report.checks.some((c) => c.notCheckable) };
  };
  if (cfg.exporter.kind === 'file') {
    checks.push({
      name: 'endpoint',
      ok: false,
      detail: `no OTLP endpoint configured: traces go to files under ${cfg.exporter.dir}`,
      fix: 'set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://127.0.0.1:6006 for Phoenix) or [telemetry] endpoint in runspec.toml',
    });
    return done({ backend: 'file', checks });
  }
  const exporter = cfg.exporter;
  const url = exporter.url;
  const backend = opts.backend && opts.backend !== 'auto' ? opts.backend : detectBackend(cfg, url, file.telemetry?.langsmith !== undefined);
  const shape = exporter.protocol === 'grpc' ? undefined : pathFix(url, backend);
  checks.push({ name: 'endpoint', ok: shape === undefined, detail: `${url} (${exporter.protocol}, ${backend})`, ...(shape ? { fix: shape } : {}) });

  const tls = { caFile: exporter.caFile, certFile: exporter.clientCertFile, keyFile: exporter.clientKeyFile };
  let client: HttpClient;
  try {
    // One attempt per request: doctor reports what it sees; read-back polls on its own schedule.
    client = createHttpClient({
      label: 'doctor',
      timeoutMs: 10_000,
      attempts: 1,
      maxConcurrent: 2,
      keepAliveMs: 500,
      tls,
      secrets: [cfg.apiKey, cfg.langsmith?.apiKey, ...secretHeaderValues(exporter.headers)],
    });
  } catch (err) {
    checks.push({
      name: 'tls',
      ok: false,
      detail: (err as Error).message,
      fix: 'point OTEL_EXPORTER_OTLP_CERTIFICATE / ca_file (and the client certificate and key) at readable PEM files',
    });
    return done({ backend, endpoint: url, checks });
  }
  const http: Request = async (target, init) => {
    const reply = await client.send({
      method: init.method as 'GET' | 'POST',
      url: target,
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    if (reply.ok) return { status: reply.status, body: reply.text };
    if (reply.kind === 'status') return { status: reply.status, body: reply.snippet };
    if (reply.kind === 'redirect') return { status: reply.status, body: '' };
    throw new DoctorHttpError(client.describe(reply), reply.kind === 'connection' ? reply.code : reply.kind === 'timeout' ? 'Timeout' : reply.kind);
  };
  const traceId = hex(16);
  const spanId = hex(8);
  try {
    // What Phoenix holds before the canary (its projects, to tell a new project from a mistyped one).
    const phoenixBefore = backend === 'phoenix' ? await phoenixProjects(cfg, url, http) : undefined;
    // 1. The canary trace.
    const canary = canaryRequest(cfg, traceId, spanId);
    let sent = false;
    if (exporter.protocol === 'grpc') {
      const problem = await sendGrpcCanary(url, exporter.headers, encodeTraceRequest(canary), tls);
      sent = problem === undefined;
      checks.push(
        sent
          ? { name: 'canary trace', ok: true, detail: `trace ${traceId} accepted over OTLP/gRPC` }
          : { name: 'canary trace', ok: false, detail: problem!, fix: fixForGrpc(problem!, url, cfg, backend) },
      );
    } else {
      const json = exporter.protocol === 'http/json';
      const headers = { ...exporter.headers, 'content-type': json ? 'application/json' : 'application/x-protobuf' };
      try {
        const res = await http(url, { method: 'POST', headers, body: json ? JSON.stringify(canary) : encodeTraceRequest(canary) });
        sent = res.status >= 200 && res.status < 300;
        checks.push(
          sent
            ? { name: 'canary trace', ok: true, detail: `trace ${traceId} accepted (HTTP ${res.status})` }
            : { name: 'canary trace', ok: false, detail: `POST ${url} answered HTTP ${res.status}`, fix: fixForStatus(res.status, cfg, backend, url) },
        );
      } catch (err) {
        checks.push({ name: 'canary trace', ok: false, detail: (err as Error).message, fix: fixForError(err as Error, url) });
      }
    }
    if (!sent) return done({ backend, endpoint: url, checks });

    const deadline = Date.now() + timeoutMs;
    const poll = async <T>(probe: () => Promise<T | undefined>): Promise<T | undefined> => {
      for (let i = 0; i < 100_000; i++) {
        const v = await probe().catch(() => undefined);
        if (v !== undefined) return v;
        if (Date.now() + pollMs > deadline) return undefined;
        await new Promise((r) => setTimeout(r, pollMs));
      }
      return undefined;
    };

    if (backend === 'phoenix') await phoenixChecks({ cfg, url, spanId, http, poll, checks, timeoutMs, before: phoenixBefore! });
    else if (backend === 'langsmith') await langsmithChecks({ cfg, spanId, http, poll, checks, timeoutMs, pollMs });
    else
      checks.push({
        name: 'read-back',
        ok: true,
        notCheckable: true,
        detail: 'not checked: a generic OTLP receiver offers no read-back, so arrival cannot be confirmed',
      });
    return done({ backend, endpoint: url, checks });
  } finally {
    await client.close();
  }
}

/** A request that got no answer: the client's one-line description, and the code `fixForError` reads. */
class DoctorHttpError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

interface BackendCheckInput {
  cfg: TelemetryConfig;
  spanId: string;
  http: Request;
  poll: <T>(probe: () => Promise<T | undefined>) => Promise<T | undefined>;
  checks: DoctorCheck[];
  timeoutMs: number;
}

/** Phoenix's REST base URL and headers: annotations_url (or the traces endpoint's origin) and the API key. */
function phoenixRest(cfg: TelemetryConfig, url: string): { base: string; headers: Record<string, string> } {
  return { base: cfg.annotationsUrl ?? new URL(url).origin, headers: cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {} };
}

interface PhoenixBefore {
  /** The REST API could not be reached at all (not an HTTP answer): why. */
  unreachable?: Error;
  /** Project names before the canary, when Phoenix listed them. */
  projects?: string[];
}

/** GET /v1/projects before the canary; never throws. */
async function phoenixProjects(cfg: TelemetryConfig, url: string, http: Request): Promise<PhoenixBefore> {
  const { base, headers } = phoenixRest(cfg, url);
  try {
    const res = await http(`${base}/v1/projects?limit=1000`, { method: 'GET', headers });
    if (res.status !== 200) return {};
    const data = (JSON.parse(res.body) as { data?: Array<{ name?: unknown }> }).data;
    return Array.isArray(data) ? { projects: data.map((p) => p.name).filter((n): n is string => typeof n === 'string') } : {};
  } catch (err) {
    return err instanceof SyntaxError ? {} : { unreachable: err as Error };
  }
}

async function phoenixChecks(input: BackendCheckInput & { url: string; before: PhoenixBefore }): Promise<void> {
  const { cfg, spanId, http, poll, checks } = input;
  const { base, headers } = phoenixRest(cfg, input.url);
  const project = cfg.project ?? 'default';
  if (input.before.unreachable) {
    const grpcDerived = cfg.exporter.kind === 'otlp' && cfg.exporter.protocol === 'grpc' && base === new URL(input.url).origin;
    checks.push({
      name: 'phoenix api',
      ok: false,
      detail: `GET ${base}/v1/projects failed: ${input.before.unreachable.message}`,
      fix: grpcDerived
        ? `over OTLP/gRPC the traces endpoint is not Phoenix's web URL: set annotations_url = "http://<host>:<web port>" (6006 by default) in [telemetry]; read-back and annotations use it`
        : `${base} is not Phoenix's web URL (its REST API did not answer): set annotations_url in [telemetry] to it; ${fixForError(input.before.unreachable, base)}`,
    });
    return;
  }
  const spansIn = (p: string) => async (): Promise<true | undefined> => {
    const res = await http(`${base}/v1/projects/${encodeURIComponent(p)}/spans?span_id=${spanId}&limit=100`, { method: 'GET', headers });
    if (res.status !== 200) return undefined;
    const data = (JSON.parse(res.body) as { data?: Array<{ context?: { span_id?: string } }> }).data ?? [];
    return data.some((s) => s.context?.span_id?.toLowerCase() === spanId) ? true : undefined;
  };
  if (cfg.project === undefined) {
    checks.push({
      name: 'project',
      ok: true,
      detail: 'no Phoenix project set: spans go to the project "default"',
      fix: 'set [telemetry] project = "<name>" or PHOENIX_PROJECT_NAME (sent as resource openinference.project.name)',
    });
  }
  const found = await poll(spansIn(project));
  if (found) {
    checks.push({ name: 'trace read-back', ok: true, detail: `span ${spanId} is in Phoenix project "${project}"` });
    const known = input.before.projects;
    if (cfg.project !== undefined && known !== undefined && !known.includes(project)) {
      // Phoenix makes a project for the first span that names it, so a mistyped name "works" and hides the traces.
      const closest = closestName(project, known);
      checks.push(
        closest === undefined
          ? { name: 'project', ok: true, detail: `Phoenix had no project "${project}" before this check: it created it for the canary` }
          : {
              name: 'project',
              ok: false,
              detail: `Phoenix had no project "${project}" before this check (it created it for the canary), but has "${closest}"`,
              fix: `if that is a typo, set [telemetry] project = "${closest}" (or PHOENIX_PROJECT_NAME=${closest}); if a new project is meant, run doctor again (it exists now)`,
            },
      );
    }
  } else {
    const elsewhere = project !== 'default' ? await spansIn('default')().catch(() => undefined) : undefined;
    checks.push(
      elsewhere
        ? {
            name: 'trace read-back',
            ok: false,
            detail: `span ${spanId} landed in project "default", not "${project}"`,
            fix:
              'the project did not reach Phoenix: older Phoenix reads only the resource attribute openinference.project.name, newer also the x-project-name header; add OTEL_EXPORTER_OTLP_HEADERS="x-project-name=' +
              project +
              '" or upgrade Phoenix',
          }
        : {
            name: 'trace read-back',
            ok: false,
            detail: `span ${spanId} not found in Phoenix project "${project}" within ${input.timeoutMs} ms (GET ${base}/v1/projects/${project}/spans)`,
            fix:
              cfg.project === undefined
                ? 'no project is set, so Phoenix files spans under "default": set [telemetry] project or PHOENIX_PROJECT_NAME; check the Phoenix logs for ingest errors'
                : 'check the Phoenix logs for ingest errors, and that the traces endpoint is this Phoenix',
          },
    );
  }
  // 2. The canary annotation (sync=false: Phoenix queues it until the span is ingested).
  const posted = await postSpanAnnotations({
    baseUrl: base,
    annotations: [
      {
        span_id: spanId,
        name: DOCTOR_EVALUATION_NAME,
        annotator_kind: 'CODE',
        result: { label: 'pass', score: 1, explanation: 'runspec-eval doctor canary' },
        metadata: { case_id: 'doctor-canary' },
        identifier: 'doctor',
      },
    ],
    ...(cfg.apiKey !== undefined ? { apiKey: cfg.apiKey } : {}),
    ...annotationTls(cfg),
    timeoutMs: Math.min(input.timeoutMs, 10_000),
  });
  if (posted.warning !== undefined) {
    checks.push({
      name: 'canary annotation',
      ok: false,
      detail: posted.warning,
      fix:
        posted.status === 401 || posted.status === 403
          ? 'Phoenix auth is on: export PHOENIX_API_KEY (sent as Authorization: Bearer)'
          : `check that ${base} is the Phoenix web URL (annotations_url in runspec.toml overrides it)`,
    });
    return;
  }
  const annotated = await poll(async () => {
    const res = await http(`${base}/v1/projects/${encodeURIComponent(project)}/span_annotations?span_ids=${spanId}&limit=100`, { method: 'GET', headers });
    if (res.status !== 200) return undefined;
    const data = (JSON.parse(res.body) as { data?: Array<{ span_id?: string; name?: string }> }).data ?? [];
    return data.some((a) => a.span_id?.toLowerCase() === spanId && a.name === DOCTOR_EVALUATION_NAME) ? true : undefined;
  });
  checks.push(
    annotated
      ? { name: 'annotation read-back', ok: true, detail: `annotation ${DOCTOR_EVALUATION_NAME} is on span ${spanId}` }
      : {
          name: 'annotation read-back',
          ok: false,
          detail: `annotation not found on span ${spanId} within ${input.timeoutMs} ms`,
          fix: 'Phoenix attaches queued annotations once the span is ingested; if the span arrived, check the Phoenix logs',
        },
  );
}

async function langsmithChecks(input: BackendCheckInput & { pollMs: number }): Promise<void> {
  const { cfg, spanId, http, poll, checks } = input;
  const ls = cfg.langsmith;
  const runId = langsmithRunId(spanId);
  const headerKey = cfg.exporter.kind === 'otlp' ? Object.entries(cfg.exporter.headers).find(([k]) => k.toLowerCase() === 'x-api-key')?.[1] : undefined;
  const apiKey = ls?.apiKey ?? headerKey;
  if (!ls || apiKey === undefined) {
    checks.push({
      name: 'langsmith api',
      ok: false,
      detail: 'no LangSmith API key for read-back and feedback',
      fix: 'export LANGSMITH_API_KEY (and LANGSMITH_ENDPOINT for a non-default API base)',
    });
    return;
  }
  const hasProject = cfg.exporter.kind === 'otlp' && Object.keys(cfg.exporter.headers).some((k) => k.toLowerCase() === 'langsmith-project');
  if (!hasProject) {
    checks.push({
      name: 'project',
      ok: true,
      detail: 'no Langsmith-Project header: runs go to the project "default"',
      fix: 'add Langsmith-Project=<project> to OTEL_EXPORTER_OTLP_HEADERS to pick the project',
    });
  }
  const headers = { 'x-api-key': apiKey };
  const readRun = async (): Promise<Record<string, unknown> | undefined> => {
    const res = await http(`${ls.endpoint}/runs/${runId}`, { method: 'GET', headers });
    return res.status === 200 ? (JSON.parse(res.body) as Record<string, unknown>) : undefined;
  };
  const run = await poll(readRun);
  checks.push(
    run
      ? { name: 'trace read-back', ok: true, detail: `run ${runId} (from span ${spanId}) is in LangSmith` }
      : {
          name: 'trace read-back',
          ok: false,
          detail: `run ${runId} not found within ${input.timeoutMs} ms (GET ${ls.endpoint}/runs/${runId})`,
          fix: "check that the traces endpoint is LangSmith's (…/otel/v1/traces) with x-api-key, and that LANGSMITH_ENDPOINT is the same deployment (self-hosted ends in /api/v1)",
        },
  );
  const fb = await postLangSmithFeedback({
    endpoint: ls.endpoint,
    apiKey,
    feedback: [
      {
        id: feedbackId(runId, DOCTOR_EVALUATION_NAME),
        run_id: runId,
        trace_id: runId,
        key: DOCTOR_EVALUATION_NAME,
        score: 1,
        value: 'pass',
        comment: 'runspec-eval doctor canary',
        feedback_source: { type: 'api', metadata: { source: 'runspec-eval doctor' } },
      },
    ],
    maxWaitMs: input.timeoutMs,
    backoffMs: Math.max(input.pollMs, 1),
    ...annotationTls(cfg),
  });
  if (fb.posted !== 1) {
    checks.push({
      name: 'canary feedback',
      ok: false,
      detail: fb.warning ?? 'feedback not accepted',
      fix: fb.status === 401 || fb.status === 403 ? 'check LANGSMITH_API_KEY' : `check LANGSMITH_ENDPOINT (${ls.endpoint}): feedback goes to its /feedback`,
    });
    return;
  }
  const withFeedback = await poll(async () => {
    const r = await readRun();
    const stats = r?.feedback_stats as Record<string, unknown> | undefined;
    return stats && Object.hasOwn(stats, DOCTOR_EVALUATION_NAME) ? true : undefined;
  });
  checks.push(
    withFeedback
      ? { name: 'feedback read-back', ok: true, detail: `feedback ${DOCTOR_EVALUATION_NAME} is on run ${runId}` }
      : {
          name: 'feedback read-back',
          ok: false,
          detail: `feedback accepted but not visible on run ${runId} within ${input.timeoutMs} ms`,
          fix: 'LangSmith aggregates feedback asynchronously; rerun doctor with a longer --timeout-ms',
        },
  );
}

/** Export the canary over OTLP/gRPC with a raw unary call; the problem text, or undefined when accepted. */
async function sendGrpcCanary(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  tls: { caFile?: string | undefined; certFile?: string | undefined; keyFile?: string | undefined },
): Promise<string | undefined> {
  const grpc = await importOptionalPeer('@grpc/grpc-js', 'an OTLP/gRPC check', () => import('@grpc/grpc-js'));
  const u = new URL(url);
  // The same CA, client certificate and key as the export (an mTLS collector refused the canary without them).
  const read = (file: string | undefined): Buffer | null => (file ? readFileSync(file) : null);
  const creds =
    u.protocol === 'https:' ? grpc.credentials.createSsl(read(tls.caFile), read(tls.keyFile), read(tls.certFile)) : grpc.credentials.createInsecure();
  const client = new grpc.Client(u.host, creds);
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k.toLowerCase(), v);
  try {
    return await new Promise<string | undefined>((resolve) => {
      client.makeUnaryRequest(
        '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => b,
        body,
        md,
        { deadline: Date.now() + 10_000 },
        (err) => resolve(err ? `gRPC Export failed: ${err.details || err.message}` : undefined),
      );
    });
  } finally {
    client.close();
  }
}
