// LangSmith native feedback: POST ${endpoint}/feedback (as LangSmith's SDKs do; header x-api-key) with
// one item per verdict on the run LangSmith derived from the root span (core/trace-link.ts
// `langsmithRunId`: the 8 span-id bytes right-aligned in 16 zero bytes,
//   span 1a2b3c4d5e6f7a8b → run 00000000-0000-0000-1a2b-3c4d5e6f7a8b).
// Feedback for a run not yet ingested gets 404: such items are retried with backoff for at most
// `maxWaitMs` (60 s by default). Best effort, like Phoenix annotations: never throws, returns a warning.
import { setTimeout as sleep } from 'node:timers/promises';
import { runPool } from '../core/concurrency.js';
import { createHttpClient, type HttpClient, type HttpClock, type HttpFailure, type RetryEvent } from '../core/http-client.js';
import { isRecord } from '../core/is-record.js';
import { redactUrl } from '../core/redact.js';
import { langsmithRunId } from '../core/trace-link.js';
import { RUNSPEC_EVALUATION_NAME } from '../semconv/vendor.js';
import type { AnnotationTarget } from './phoenix.js';
import { summarizeVerdict } from './conventions/runspec.js';


/** One LangSmith FeedbackCreate body. */
export interface LangSmithFeedback {
  run_id: string;
  /** The evaluator (metric) name. */
  key: string;
  score: number;
  /** The verdict category. */
  value: string;
  /** The reason. */
  comment: string;
  feedback_source: { type: 'api'; metadata: Record<string, unknown> };
}

/** Feedback items for the targets (one per sample root span); targets without a valid span id are skipped. */
export function buildLangSmithFeedback(targets: readonly AnnotationTarget[]): LangSmithFeedback[] {
  return targets.flatMap((t) => {
    // The derivation needs the 8-byte span id as 16 hex digits (core/trace-link.ts owns the rule).
    if (!/^[0-9a-f]{16}$/i.test(t.spanId)) return [];
    const runId = langsmithRunId(t.spanId);
    const s = summarizeVerdict(t);
    return [
      {
        run_id: runId,
        key: RUNSPEC_EVALUATION_NAME,
        score: s.pass ? 1 : 0,
        value: s.category,
        comment: s.reason,
        feedback_source: {
          type: 'api' as const,
          metadata: { case_id: t.caseId, sample: t.sample, ...(t.runId !== undefined ? { run_id: t.runId } : {}), source: 'runspec-eval' },
        },
      },
    ];
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
      if (reply.ok) {
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
    return { posted, status: denied.status, warning: `langsmith feedback: POST ${redactUrl(url)} answered ${denied.status} (check LANGSMITH_API_KEY); ${notSent(posted)}` };
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
}

/**
 * Feedback for annotation targets, posted with the configured settings and the export's TLS files: the one path `run` (telemetry.ts)
 * and `score`/`serve` (app/score-traces.ts) share. Never throws: a failure is the result's warning.
 */
export function postFeedbackForTargets(
  settings: LangSmithFeedbackSettings,
  targets: readonly AnnotationTarget[],
  tls: { caFile?: string; clientCertFile?: string; clientKeyFile?: string } = {},
): Promise<PostFeedbackResult> {
  return postLangSmithFeedback({
    ...tls,
    endpoint: settings.endpoint,
    feedback: buildLangSmithFeedback(targets),
    ...(settings.maxWaitMs !== undefined ? { maxWaitMs: settings.maxWaitMs } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.backoffMs !== undefined ? { backoffMs: settings.backoffMs } : {}),
  }).catch((err: Error) => ({ posted: 0, warning: `langsmith feedback: ${err.message}` }));
}
