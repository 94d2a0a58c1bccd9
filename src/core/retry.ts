// The retry policy of every HTTP client we run (model providers, Phoenix annotations, LangSmith feedback).

/**
 * Whether an HTTP status is worth retrying: 408 (request timeout), 409 (conflict, e.g. a lock),
 * 429 (rate limited) and every 5xx, including Anthropic's 529 "overloaded". This is the rule of the
 * official OpenAI and Anthropic SDKs (`shouldRetry` in openai/openai-node: src/client.ts and
 * anthropics/anthropic-sdk-typescript: src/client.ts). Other 4xx are the caller's mistake and are not retried.
 */
export function isRetryableStatus(status: number, options?: RetryableStatusOptions): boolean {
  if (options?.alsoRetry?.includes(status)) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Statuses a client retries on top of the SDK rule. */
export interface RetryableStatusOptions {
  /**
   * Extra statuses that mean "not yet" for this API, e.g. LangSmith feedback answers 404 until the run
   * has been ingested, and 425 (Too Early).
   */
  alsoRetry?: readonly number[];
}

/** Backoff settings: the first retry waits about `baseMs`, each next one twice as long, capped at `maxMs`. */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** [0, 1) random source (tests pass a constant). @default Math.random */
  random?: () => number;
}

/**
 * Milliseconds to wait before retry number `attempt` (1 = the first retry): the server's Retry-After
 * when it sent one, else exponential backoff with "equal jitter" (half fixed, half random), so clients
 * that failed together do not retry together. Never more than `maxMs`.
 */
export function retryDelayMs(attempt: number, options: BackoffOptions, retryAfter?: number): number {
  const exp = options.baseMs * 2 ** Math.max(0, attempt - 1);
  const jitter = (options.random ?? Math.random)();
  const backoff = exp / 2 + jitter * (exp / 2);
  return Math.round(Math.max(0, Math.min(options.maxMs, retryAfter ?? backoff)));
}

/** Retry-After as milliseconds: `retry-after-ms` (OpenAI), then `retry-after` seconds or an HTTP date. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, nowMs = Date.now()): number | undefined {
  const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.max(0, Number(ms));
  const ra = first(headers['retry-after'])?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
