// LangSmith native feedback: POST ${endpoint}/feedback (as LangSmith's SDKs do; header x-api-key) with
// one item per verdict on the run LangSmith derived from the root span (core/trace-link.ts
// `langsmithRunId`: the 8 span-id bytes right-aligned in 16 zero bytes,
//   span 1a2b3c4d5e6f7a8b → run 00000000-0000-0000-1a2b-3c4d5e6f7a8b).
// Feedback for a run not yet ingested gets 404: such items are retried with backoff for at most
// `maxWaitMs` (60 s by default). Best effort, like Phoenix annotations: never throws, returns a warning.
//
// Each item has one key per evaluator (the Phoenix annotation name: runspec.tool_selection,
// runspec.trajectory, runspec.rule.NAME), a score only for judged verdicts (none for unscorable,
// incomplete and errored samples, as docs/verdicts.md says), a client `id` derived from run and key (a
// retried post is the same feedback), the `trace_id`, and the project's `session_id` (looked up once per
// process by project name; left out, with one warning, when the lookup fails).
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { runPool } from '../core/concurrency.js';
import { createHttpClient, type HttpClient, type HttpClock, type HttpFailure, type RetryEvent } from '../core/http-client.js';
import { isRecord } from '../core/is-record.js';
import { redactUrl } from '../core/redact.js';
import { langsmithRunId } from '../core/trace-link.js';
import type { AnnotationTarget } from './phoenix.js';
import { summarizeVerdict } from './conventions/runspec.js';
import type { Client } from 'langsmith';

/** One LangSmith feedback body (POST /feedback), as the SDK's `Client.createFeedback` sends it. */
export interface LangSmithFeedback {
  /** Client id: the same for the same run and evaluator, so a retried post cannot duplicate the feedback. */
  id: string;
  run_id: string;
  /** The trace's root run (the sample's root span is the trace's root). */
  trace_id: string;
  /** The project's id (tracer session), when the lookup by project name succeeded. */
  session_id?: string;
  /** The evaluator name, as the Phoenix annotation name. */
  key: string;
  /** 1 pass, 0 fail; absent for unscorable, incomplete and errored samples (neither passed nor failed). */
  score?: number;
  /** The verdict category. */
  value: string;
  /** The reason. */
  comment: string;
  feedback_source: { type: 'api'; metadata: Record<string, unknown> };
}

// The body is checked against the langsmith package's own types (a devDependency: types only, nothing at
// runtime): every field is one `Client.createFeedback` sends, with the type it sends, and trace_id is
// the REST API's FeedbackCreateSchema field the SDK does not type yet.
type SdkFeedbackBody = Pick<Parameters<Client['createFeedback']>[2], 'feedbackId' | 'comment' | 'score' | 'value' | 'sessionId'>;
type SameAs<A, B> = [A] extends [B] ? true : false;
const bodyMatchesSdk: [
  SameAs<LangSmithFeedback['id'], NonNullable<SdkFeedbackBody['feedbackId']>>,
  SameAs<LangSmithFeedback['score'], SdkFeedbackBody['score']>,
  SameAs<LangSmithFeedback['value'], SdkFeedbackBody['value']>,
  SameAs<LangSmithFeedback['comment'], SdkFeedbackBody['comment']>,
  SameAs<LangSmithFeedback['session_id'], SdkFeedbackBody['sessionId']>,
] = [true, true, true, true, true];
void bodyMatchesSdk;

/**
 * A UUID (version 8, RFC 9562 "custom") from a SHA-256 of the run id and key: the same feedback gets the
 * same id on every post, so LangSmith refuses a duplicate instead of storing it twice.
 */
export function feedbackId(runId: string, key: string): string {
  const b = createHash('sha256').update(`${runId}\n${key}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Feedback items for the targets (one per sample root span); targets without a valid span id are skipped. */
export function buildLangSmithFeedback(targets: readonly AnnotationTarget[], sessionId?: string): LangSmithFeedback[] {
  return targets.flatMap((t) => {
    // The derivation needs the 8-byte span id as 16 hex digits (core/trace-link.ts owns the rule).
    if (!/^[0-9a-f]{16}$/i.test(t.spanId)) return [];
    const runId = langsmithRunId(t.spanId);
    const s = summarizeVerdict(t);
    const item: LangSmithFeedback = {
      id: feedbackId(runId, s.name),
      run_id: runId,
      trace_id: runId,
      key: s.name,
      value: s.category,
      comment: s.reason,
      feedback_source: {
        type: 'api' as const,
        metadata: { case_id: t.caseId, sample: t.sample, ...(t.runId !== undefined ? { run_id: t.runId } : {}), source: 'runspec-eval' },
      },
    };
    if (s.judged) item.score = s.pass ? 1 : 0;
    if (sessionId !== undefined) item.session_id = sessionId;
    return [item];
  });
}

export interface PostFeedbackOptions {
  /** API base: LANGSMITH_ENDPOINT, e.g. https://api.smith.langchain.com or https://host/api/v1 (self-hosted). */
  endpoint: string;
  apiKey?: string;
  feedback: LangSmithFeedback[];
  /** The longest the post waits for runs to be ingested (404s), retries included. @default 60000 */
  maxWaitMs?: number;
  /** First backoff between rounds (core/retry.ts: doubling, equal jitter) up to `maxBackoffMs`. @default 1000 */
  backoffMs?: number;
  /** @default 8000 */
  maxBackoffMs?: number;
  /** PEM CA file for https. */
  caFile?: string;
  /** Client certificate and key (PEM) for mutual TLS. */
  clientCertFile?: string;
  clientKeyFile?: string;
  /** Largest answer read (core/http-client.ts). @default 33554432 */
  maxResponseBytes?: number;
  /** Called before each retry wait (core/http-client.ts `collapseRetries` folds them per cause). */
  onRetry?: (event: RetryEvent) => void;
  /** Per-request limit. @default 10000 */
  requestTimeoutMs?: number;
  /** Posts in flight at once. @default 8 */
  concurrency?: number;
  /** Injected for tests: the clock and the wait between rounds. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** [0, 1) jitter source of the backoff (tests pass a constant). @default Math.random */
  random?: () => number;
}

export interface PostFeedbackResult {
  posted: number;
  /** One line on what was not sent; absent when everything was accepted. */
  warning?: string;
  /** The HTTP status of the failure that made the warning, when there was one. */
  status?: number;
}

/** Answers that mean "try again later": the shared rule (core/retry.ts) plus 404 (run not ingested yet) and 425. */
const NOT_YET = [404, 425] as const;

/** The feedback URL of an API base: `${endpoint}/feedback` (trailing slashes dropped). */
export function feedbackUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/feedback`;
}

/** LangSmith answers an accepted feedback with the stored FeedbackSchema object. */
const isFeedbackResponse = (json: unknown): boolean => isRecord(json);

/**
 * POST every feedback item through the one HTTP client; items answered 404 (or another retryable status,
 * core/retry.ts) are retried with the shared backoff until `maxWaitMs` has passed. Never throws.
 */
export async function postLangSmithFeedback(opts: PostFeedbackOptions): Promise<PostFeedbackResult> {
  const clock: HttpClock = {
    now: opts.now ?? Date.now,
    sleep: opts.sleep ? (ms) => opts.sleep!(ms) : (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined),
  };
  const deadlineMs = clock.now() + (opts.maxWaitMs ?? 60_000);
  const url = feedbackUrl(opts.endpoint);
  const concurrency = opts.concurrency ?? 8;
  const notSent = (posted: number): string => `${opts.feedback.length - posted} feedback item(s) not sent`;
  let http: HttpClient;
  try {
    http = createHttpClient({
      label: 'langsmith feedback',
      timeoutMs: opts.requestTimeoutMs ?? 10_000,
      // Bounded by the deadline, not by a count.
      attempts: 10_000,
      alsoRetry: NOT_YET,
      backoff: { baseMs: opts.backoffMs ?? 1000, maxMs: opts.maxBackoffMs ?? 8000, ...(opts.random ? { random: opts.random } : {}) },
      maxConcurrent: concurrency,
      keepAliveMs: 1000,
      tls: { caFile: opts.caFile, certFile: opts.clientCertFile, keyFile: opts.clientKeyFile },
      secrets: [opts.apiKey],
      clock,
      ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
      ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
    });
  } catch (err) {
    return { posted: 0, warning: `langsmith feedback: ${(err as Error).message.replace(/^langsmith feedback: /, '')}; ${notSent(0)}` };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let posted = 0;
  let failure: HttpFailure | undefined;
  let denied: HttpFailure | undefined;
  try {
    await runPool(opts.feedback, concurrency, async (item) => {
      // A refused key is refused for every item: stop at once.
      if (denied) return;
      const reply = await http.json({ method: 'POST', url, headers, body: JSON.stringify(item), deadlineMs }, isFeedbackResponse);
      // 409: a feedback with this client id exists (an earlier try got through): already posted.
      if (reply.ok || (reply.kind === 'status' && reply.status === 409)) {
        posted++;
        return;
      }
      failure ??= reply;
      if (reply.kind === 'status' && (reply.status === 401 || reply.status === 403)) denied ??= reply;
    });
  } finally {
    await http.close();
  }
  if (denied?.kind === 'status') {
    return {
      posted,
      status: denied.status,
      warning: `langsmith feedback: POST ${redactUrl(url)} answered ${denied.status} (check LANGSMITH_API_KEY); ${notSent(posted)}`,
    };
  }
  if (posted === opts.feedback.length || !failure) return { posted };
  const notYet = failure.kind === 'status' && failure.status === 404 ? ' (the run is not ingested yet)' : '';
  return {
    posted,
    ...(failure.kind === 'status' || failure.kind === 'not-json' ? { status: failure.status } : {}),
    warning: `langsmith feedback: ${http.describe(failure)}${notYet}; ${notSent(posted)}`,
  };
}

/** The `[telemetry.langsmith]` settings a feedback post needs (config/telemetry.ts resolves them). */
export interface LangSmithFeedbackSettings {
  endpoint: string;
  apiKey?: string | undefined;
  maxWaitMs?: number | undefined;
  backoffMs?: number | undefined;
  /** @default "default" (LangSmith's project when none is named) */
  project?: string | undefined;
}

// One lookup per API base and project for the whole process: every feedback batch of a run (and of a
// long `serve`) reuses it, and a failed lookup warns once.
const sessions = new Map<string, Promise<{ id?: string; warning?: string }>>();

/** The project's id by name (GET /sessions?name=…), cached; a failure is reported once and leaves it out. */
export function langsmithSessionId(settings: LangSmithFeedbackSettings, tls: TlsSettings = {}): Promise<{ id?: string; warning?: string }> {
  const project = settings.project ?? 'default';
  const cacheKey = `${settings.endpoint}\n${project}`;
  const cached = sessions.get(cacheKey);
  if (cached) return cached.then(({ id }) => (id !== undefined ? { id } : {}));
  const lookup = lookUpSession(settings, project, tls);
  sessions.set(cacheKey, lookup);
  return lookup;
}

type TlsSettings = { caFile?: string; clientCertFile?: string; clientKeyFile?: string };

async function lookUpSession(settings: LangSmithFeedbackSettings, project: string, tls: TlsSettings): Promise<{ id?: string; warning?: string }> {
  const url = `${settings.endpoint.replace(/\/+$/, '')}/sessions?name=${encodeURIComponent(project)}&limit=1`;
  const fail = (why: string) => ({
    warning: `langsmith feedback: project ${JSON.stringify(project)} not resolved (${why}); feedback is sent without session_id`,
  });
  let http: HttpClient;
  try {
    http = createHttpClient({
      label: 'langsmith sessions',
      timeoutMs: 10_000,
      attempts: 1,
      secrets: [settings.apiKey],
      tls: { caFile: tls.caFile, certFile: tls.clientCertFile, keyFile: tls.clientKeyFile },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
    const r = await http.json({ method: 'GET', url, headers }, (j) => Array.isArray(j));
    if (!r.ok) return fail(http.describe(r));
    const found = (r.json as unknown[]).find((x): x is { id: string; name: string } => isRecord(x) && x.name === project && typeof x.id === 'string');
    return found ? { id: found.id } : fail('no such project');
  } finally {
    await http.close();
  }
}

/**
 * Feedback for annotation targets, posted with the configured settings and the export's TLS files: the one path `run` (telemetry.ts)
 * and `score`/`serve` (app/score-traces.ts) share. Never throws: a failure is the result's warning.
 */
export async function postFeedbackForTargets(
  settings: LangSmithFeedbackSettings,
  targets: readonly AnnotationTarget[],
  tls: TlsSettings = {},
): Promise<PostFeedbackResult> {
  // No project named anywhere: no session_id (a lookup of "default" could file it under another project).
  const session =
    settings.project === undefined
      ? {}
      : await langsmithSessionId(settings, tls).catch((err: Error) => ({ warning: `langsmith feedback: ${err.message}` }) as { id?: string; warning?: string });
  const result = await postLangSmithFeedback({
    ...tls,
    endpoint: settings.endpoint,
    feedback: buildLangSmithFeedback(targets, session.id),
    ...(settings.maxWaitMs !== undefined ? { maxWaitMs: settings.maxWaitMs } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.backoffMs !== undefined ? { backoffMs: settings.backoffMs } : {}),
  }).catch((err: Error) => ({ posted: 0, warning: `langsmith feedback: ${err.message}` }) as PostFeedbackResult);
  if (!session.warning) return result;
  return { ...result, warning: result.warning ? `${session.warning}; ${result.warning}` : session.warning };
}
