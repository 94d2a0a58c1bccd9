// LangSmith native feedback: POST ${endpoint}/feedback (as LangSmith's SDKs do; header x-api-key) with
// one item per verdict on the run LangSmith derived from the root span (core/trace-link.ts
// `langsmithRunId`: the 8 span-id bytes right-aligned in 16 zero bytes,
//   span 1a2b3c4d5e6f7a8b → run 00000000-0000-0000-1a2b-3c4d5e6f7a8b).
// Feedback for a run not yet ingested gets 404: such items are retried with backoff for at most
// `maxWaitMs` (60 s by default). Best effort, like Phoenix annotations: never throws, returns a warning.
import { readFileSync } from 'node:fs';
import type { Agent } from 'undici';
import { runPool } from '../core/concurrency.js';
import { isRetryableStatus, retryDelayMs } from '../core/retry.js';
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
}

/** Answers that mean "try again later": the shared rule (core/retry.ts) plus 404 (run not ingested yet) and 425. */
const NOT_YET = [404, 425] as const;

/** The feedback URL of an API base: `${endpoint}/feedback` (trailing slashes dropped). */
export function feedbackUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/feedback`;
}

/**
 * POST every feedback item; items answered 404 (or another retryable status, core/retry.ts) are retried
 * in rounds with the shared backoff until `maxWaitMs` has passed. Never throws.
 */
export async function postLangSmithFeedback(opts: PostFeedbackOptions): Promise<PostFeedbackResult> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + (opts.maxWaitMs ?? 60_000);
  const maxBackoffMs = opts.maxBackoffMs ?? 8000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
  const url = feedbackUrl(opts.endpoint);
  const { Agent: UndiciAgent, request } = await import('./undici.js');
  let dispatcher: Agent;
  try {
    dispatcher = new UndiciAgent({ connect: opts.caFile ? { ca: readFileSync(opts.caFile) } : {}, keepAliveTimeout: 1000 });
  } catch (err) {
    return { posted: 0, warning: `langsmith feedback: cannot read CA file: ${(err as Error).message}` };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let pending = [...opts.feedback];
  let posted = 0;
  let lastProblem = '';
  const backoff = { baseMs: opts.backoffMs ?? 1000, maxMs: maxBackoffMs, ...(opts.random ? { random: opts.random } : {}) };
  try {
    for (let round = 0; pending.length > 0 && round < 10_000; round++) {
      const retry: LangSmithFeedback[] = [];
      let denied: number | undefined;
      // A few posts in flight at once: a run of thousands of samples should not post one by one.
      await runPool(pending, opts.concurrency ?? 8, async (item) => {
        if (denied !== undefined) return;
        try {
          const res = await request(url, {
            method: 'POST',
            headers,
            body: JSON.stringify(item),
            dispatcher,
            headersTimeout: requestTimeoutMs,
            bodyTimeout: requestTimeoutMs,
            signal: AbortSignal.timeout(requestTimeoutMs),
          });
          await res.body.text().catch(() => '');
          if (res.statusCode >= 200 && res.statusCode < 300) {
            posted++;
            return;
          }
          lastProblem = res.statusCode === 404 ? 'HTTP 404: run not ingested yet' : `HTTP ${res.statusCode}`;
          if (isRetryableStatus(res.statusCode, { alsoRetry: NOT_YET })) retry.push(item);
          else if (res.statusCode === 401 || res.statusCode === 403) denied = res.statusCode;
        } catch (err) {
          lastProblem = (err as Error).name === 'TimeoutError' ? `no answer within ${requestTimeoutMs} ms` : (err as Error).message;
          retry.push(item);
        }
      });
      if (denied !== undefined) {
        return { posted, warning: `langsmith feedback: POST ${url} answered ${denied} (check LANGSMITH_API_KEY); ${opts.feedback.length - posted} feedback item(s) not sent` };
      }
      pending = retry;
      if (pending.length === 0) break;
      const left = deadline - now();
      if (left <= 0) break;
      await sleep(Math.min(retryDelayMs(round + 1, backoff), left));
    }
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
  if (posted === opts.feedback.length) return { posted };
  return {
    posted,
    warning: `langsmith feedback: POST ${url} failed (${lastProblem || 'not accepted'}); ${opts.feedback.length - posted} feedback item(s) not sent`,
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
 * Feedback for annotation targets, posted with the configured settings: the one path `run` (telemetry.ts)
 * and `score`/`serve` (app/score-traces.ts) share. Never throws: a failure is the result's warning.
 */
export function postFeedbackForTargets(settings: LangSmithFeedbackSettings, targets: readonly AnnotationTarget[]): Promise<PostFeedbackResult> {
  return postLangSmithFeedback({
    endpoint: settings.endpoint,
    feedback: buildLangSmithFeedback(targets),
    ...(settings.maxWaitMs !== undefined ? { maxWaitMs: settings.maxWaitMs } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.backoffMs !== undefined ? { backoffMs: settings.backoffMs } : {}),
  }).catch((err: Error) => ({ posted: 0, warning: `langsmith feedback: ${err.message}` }));
}
