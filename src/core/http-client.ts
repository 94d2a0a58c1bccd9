// The one HTTP client of every outbound call we make (model providers, Phoenix annotations, LangSmith
// feedback, doctor's canary and read-back): one keep-alive pool with one TLS setup (CA file, client
// certificate and key), one retry policy (core/retry.ts, Retry-After honoured), one response-size limit, one
// redaction of URLs and quoted replies, abortable by the caller. Failures are values (`HttpFailure`), so each
// caller words them its own way: a provider throws, telemetry warns, doctor names the fix.
import { cutText } from './cut.js';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { createLimiter, type Limiter } from './concurrency.js';
import { isTimeout } from './error-text.js';
import { DEFAULT_MAX_RESPONSE_BYTES, SNIPPET_CHARS } from './http-limits.js';
import type { ReachabilityWatch, RequestReach } from './reachability.js';
import { redactEchoedSecrets, redactUrl, redactUrlsInText } from './redact.js';
import { isRetryableStatus, retryAfterMs, retryDelayMs, type BackoffOptions } from './retry.js';

export { DEFAULT_MAX_RESPONSE_BYTES, SNIPPET_CHARS } from './http-limits.js';

/** PEM files for https: the CA to trust, and a client certificate and key for mutual TLS. */
export interface TlsFiles {
  caFile?: string | undefined;
  certFile?: string | undefined;
  keyFile?: string | undefined;
}

/** A retry is about to happen. `reason` is the cause in a stable wording, so a caller can group by it. */
export interface RetryEvent {
  /** The client's label (`openai provider`, `phoenix annotations`). */
  label: string;
  /** 1-based number of the attempt that failed. */
  attempt: number;
  /** Wait before the next attempt, in milliseconds (Retry-After honoured, capped). */
  delayMs: number;
  /** One line, the same for every retry of the same cause: `HTTP 429`, `no response within 5000 ms`. */
  reason: string;
}

export interface HttpClientOptions {
  /** Starts every failure line: `openai provider`, `phoenix annotations`. */
  label: string;
  /** Per-attempt limit for the headers and the body, in milliseconds. */
  timeoutMs: number;
  /** Attempts per request, the first included (0 or 1: no retry). @default 1 */
  attempts?: number;
  /** Waits between attempts (doubling, equal jitter, capped). @default { baseMs: 1000, maxMs: 30000 } */
  backoff?: BackoffOptions;
  /** Statuses retried on top of the shared rule (core/retry.ts), e.g. LangSmith's 404 "not ingested yet". */
  alsoRetry?: readonly number[];
  /** Requests in flight at once (and pooled connections). @default 8 */
  maxConcurrent?: number;
  /** Largest response body read, in bytes; a bigger one fails once, never retried. @default 33554432 */
  maxResponseBytes?: number;
  tls?: TlsFiles;
  /** Values blanked out of quoted replies (the caller's own key), on top of the shared redaction. */
  secrets?: ReadonlyArray<string | undefined>;
  /** Called before each retry wait. */
  onRetry?: (event: RetryEvent) => void;
  /** Told of each request in flight and whether its attempts connect (a run's fast stop when the server is down). */
  reachability?: ReachabilityWatch;
  /** Idle keep-alive of pooled connections. @default 10000 */
  keepAliveMs?: number;
  /** The clock of deadlines and retry waits (tests pass a fake one). @default Date.now and a timer */
  clock?: HttpClock;
}

/** Time as the client sees it: deadlines are read from `now`, retry waits go through `sleep`. */
export interface HttpClock {
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const SYSTEM_CLOCK: HttpClock = {
  now: Date.now,
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined),
};

/** A request body: text or bytes, or an object that serialises itself once (providers' `JsonText`). */
export type HttpBody = string | Uint8Array | { body(): Buffer | string };

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  body?: HttpBody;
  /** The caller's cancellation: ends the attempt in flight and any wait. */
  signal?: AbortSignal;
  /**
   * A budget for the retries, in the clock's epoch milliseconds: no wait goes past it (the last is cut to end
   * there, and one last attempt follows), no attempt starts after it, and an attempt started before it ends
   * with it.
   */
  deadlineMs?: number;
}

type Headers = Record<string, string | string[] | undefined>;

/** A 2xx answer, its body read in full (within the size limit). */
export interface HttpReply {
  ok: true;
  status: number;
  headers: Headers;
  text: string;
  /** Wall time of the successful attempt. */
  latencyMs: number;
}

/** A 2xx answer whose body is the expected JSON. */
export interface HttpJsonReply extends Omit<HttpReply, 'text'> {
  json: unknown;
}

/** Why a request did not succeed; `attempts` counts the attempts made. */
export type HttpFailure = { ok: false; method: string; url: string; attempts: number } & (
  | { kind: 'status'; status: number; headers: Headers; retryable: boolean; snippet: string }
  | { kind: 'redirect'; status: number; location: string | undefined }
  | { kind: 'not-json'; status: number; snippet: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'connection'; code: string }
  | { kind: 'too-large'; limitBytes: number }
  | { kind: 'cancelled' }
);

export interface HttpClient {
  readonly label: string;
  /** Any answer status; a non-2xx is a failure value (retried first when the policy says so). Never throws. */
  send(request: HttpRequest): Promise<HttpReply | HttpFailure>;
  /**
   * `send`, then the body as JSON: a 2xx whose body is not JSON, or that `isExpected` refuses (an HTML login
   * page, a proxy's banner), is a `not-json` failure quoting a redacted snippet. Never throws.
   */
  json(request: HttpRequest, isExpected?: (json: unknown) => boolean): Promise<HttpJsonReply | HttpFailure>;
  /** The one-line wording of a failure: `POST https://***@host/x answered 503 after 3 attempts: …`. */
  describe(failure: HttpFailure): string;
  /** Releases the pool; safe to call twice. Requests after close fail as `cancelled`. */
  close(): Promise<void>;
}

/** The TLS files could not be read: a setup problem, named with the file. */
/** A TLS file that cannot be read: `file` names which of `TlsFiles`, `detail` says what, without the label. */
export class HttpSetupError extends Error {
  constructor(
    readonly file: keyof TlsFiles,
    readonly detail: string,
    label: string,
  ) {
    super(`${label}: ${detail}`);
  }
}

/**
 * The one HTTP client (see the header): a pool with the TLS files read once, a concurrency limit, and the
 * shared retry policy. Throws `HttpSetupError` only when a TLS file cannot be read.
 *
 * @example
 * const http = createHttpClient({ label: 'phoenix annotations', timeoutMs: 10_000, attempts: 3 });
 * const r = await http.json({ method: 'POST', url, headers, body: JSON.stringify({ data }) });
 * if (!r.ok) warn(http.describe(r));
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const settings = settle(options);
  const agent = createAgent(options, settings.maxConcurrent);
  const limiter = createLimiter(settings.maxConcurrent);
  const state = { closed: false };
  const send = (request: HttpRequest): Promise<HttpReply | HttpFailure> => sendWithRetries(agent, limiter, settings, state, request);
  return {
    label: options.label,
    send,
    async json(request, isExpected) {
      const reply = await send(request);
      return reply.ok ? parseJson(reply, request, settings, isExpected) : reply;
    },
    describe: (failure) => describeHttpFailure(failure),
    async close() {
      if (state.closed) return;
      state.closed = true;
      await agent.destroy().catch(() => undefined);
    },
  };
}

interface Settings {
  label: string;
  timeoutMs: number;
  attempts: number;
  backoff: BackoffOptions;
  alsoRetry: readonly number[];
  maxConcurrent: number;
  maxResponseBytes: number;
  secrets: string[];
  onRetry: ((event: RetryEvent) => void) | undefined;
  reachability: ReachabilityWatch | undefined;
  clock: HttpClock;
}

function settle(o: HttpClientOptions): Settings {
  return {
    label: o.label,
    timeoutMs: o.timeoutMs,
    attempts: Math.max(1, Math.floor(o.attempts ?? 1)),
    backoff: o.backoff ?? { baseMs: 1000, maxMs: 30_000 },
    alsoRetry: o.alsoRetry ?? [],
    maxConcurrent: Math.max(1, Math.floor(o.maxConcurrent ?? 8)),
    maxResponseBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    // Short values would blank out ordinary words.
    secrets: (o.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 4),
    onRetry: o.onRetry,
    reachability: o.reachability,
    clock: o.clock ?? SYSTEM_CLOCK,
  };
}

/** Step 1: the pool, with the TLS files read once. */
function createAgent(o: HttpClientOptions, connections: number): Agent {
  const read = (what: string, which: keyof TlsFiles): Buffer | undefined => {
    const file = o.tls?.[which];
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new HttpSetupError(which, `cannot read the TLS ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, o.label);
    }
  };
  const ca = read('CA file', 'caFile');
  const cert = read('client certificate', 'certFile');
  const key = read('client key', 'keyFile');
  return new Agent({
    keepAliveTimeout: o.keepAliveMs ?? 10_000,
    connections,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    connect: { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) },
  });
}

/** Step 2: the attempts of one request under the retry policy. */
async function sendWithRetries(agent: Agent, limiter: Limiter, s: Settings, state: { closed: boolean }, req: HttpRequest): Promise<HttpReply | HttpFailure> {
  const cancelled = (attempts: number): HttpFailure => ({ ok: false, method: req.method, url: req.url, attempts, kind: 'cancelled' });
  if (state.closed || req.signal?.aborted) return cancelled(0);
  try {
    await limiter.acquire(req.signal);
  } catch {
    return cancelled(0);
  }
  const reach = s.reachability?.request();
  try {
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptOnce(agent, s, req);
      if (req.signal?.aborted || state.closed) return cancelled(attempt);
      if (reach) reportReach(reach, outcome, s.label);
      const verdict = judge(outcome, s, req, attempt);
      if (verdict.done || attempt >= s.attempts) return verdict.result;
      let waitMs = retryDelayMs(attempt, s.backoff, verdict.retryAfterMs);
      if (req.deadlineMs !== undefined) {
        const left = req.deadlineMs - s.clock.now();
        if (left <= 0) return verdict.result;
        waitMs = Math.min(waitMs, left);
      }
      s.onRetry?.({ label: s.label, attempt, delayMs: waitMs, reason: retryReason(verdict.result) });
      try {
        await s.clock.sleep(waitMs, req.signal);
      } catch {
        return cancelled(attempt);
      }
    }
  } finally {
    reach?.ended();
    limiter.release();
  }
}

// Errors that mean no connection was made (a reset or a time-out after connecting says nothing either way).
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Tell the reachability watch whether this attempt reached the server. */
function reportReach(reach: RequestReach, o: Outcome, label: string): void {
  if (o.kind !== 'error') return reach.connected();
  const code = errorCode(o.error);
  if (CONNECT_FAILURES.has(code)) reach.failedToConnect(`${label}: connection failed (${code})`);
}

type Outcome =
  | { kind: 'answer'; status: number; headers: Headers; text: string; latencyMs: number }
  | { kind: 'too-large' }
  | { kind: 'error'; error: unknown; timeoutMs: number };

/**
 * The abort signal of one attempt, in the `EventEmitter` form undici's `request` accepts besides an
 * `AbortSignal` (it reads `aborted` and `reason` from either). On Node 20 an `AbortController` costs about
 * 8 µs to make and wire, this about 1.5 µs, once per attempt.
 */
class AttemptSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

// The attempts in flight under each caller signal, ended when it aborts: one listener on a caller signal
// while any of its attempts is in flight (a run passes one signal to every request, so it stays on while the
// run keeps requests in flight), instead of one added and removed per attempt. None is left once they end.
interface Followers {
  signal: AbortSignal;
  attempts: Set<AttemptSignal>;
  onAbort: () => void;
}
const followersOf = new WeakMap<AbortSignal, Followers>();

function follow(signal: AbortSignal, attempt: AttemptSignal): Followers {
  let followers = followersOf.get(signal);
  if (followers === undefined) {
    const attempts = new Set<AttemptSignal>();
    followers = {
      signal,
      attempts,
      onAbort: () => {
        for (const a of attempts) a.abort(signal.reason);
      },
    };
    followersOf.set(signal, followers);
  }
  if (followers.attempts.size === 0) signal.addEventListener('abort', followers.onAbort, { once: true });
  followers.attempts.add(attempt);
  return followers;
}

function unfollow(followers: Followers, attempt: AttemptSignal): void {
  followers.attempts.delete(attempt);
  if (followers.attempts.size === 0) followers.signal.removeEventListener('abort', followers.onAbort);
}

/** Step 3: one exchange with its own timer, following the caller's signal. */
async function attemptOnce(agent: Agent, s: Settings, req: HttpRequest): Promise<Outcome> {
  // Within a budget an attempt ends with it; the attempt that follows a wait cut to the budget's end keeps
  // its own limit (so a fake clock standing at the deadline still gets one last real attempt).
  const left = req.deadlineMs === undefined ? 0 : req.deadlineMs - s.clock.now();
  const timeoutMs = left > 0 ? Math.min(s.timeoutMs, left) : s.timeoutMs;
  const signal = new AttemptSignal();
  const timer = setTimeout(() => signal.abort(new DOMException(`no response within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  let following: Followers | undefined;
  if (req.signal?.aborted) signal.abort(req.signal.reason);
  else if (req.signal !== undefined) following = follow(req.signal, signal);
  const started = performance.now();
  try {
    const { origin, path } = targetOf(req.url);
    const body = req.body === undefined ? undefined : typeof req.body === 'string' || req.body instanceof Uint8Array ? req.body : req.body.body();
    const res = await agent.request({ origin, path, method: req.method, headers: req.headers ?? {}, body, signal });
    const text = await readBounded(res.body, res.headers, s.maxResponseBytes);
    if (text === undefined) return { kind: 'too-large' };
    return { kind: 'answer', status: res.statusCode, headers: res.headers, text, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    // Named by the configured limit: a budget may have cut this attempt shorter, never longer.
    return { kind: 'error', error, timeoutMs: s.timeoutMs };
  } finally {
    clearTimeout(timer);
    if (following) unfollow(following, signal);
  }
}

type Readable = AsyncIterable<unknown> & { bytes(): Promise<Uint8Array>; destroy(): unknown; on(event: 'error', fn: () => void): unknown };

/** Step 4: the body as text, or undefined when it is over the limit (the rest is never read). */
async function readBounded(body: Readable, headers: Headers, limit: number): Promise<string | undefined> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared <= limit) {
    // undici holds a response to its content-length, so the body is taken whole: cheaper than chunk by chunk.
    const bytes = await body.bytes();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }
  const chunks: Buffer[] = [];
  let size = Number.isFinite(declared) ? declared : 0;
  if (size <= limit) {
    size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > limit) break;
      chunks.push(chunk as Buffer);
    }
  }
  if (size <= limit) return Buffer.concat(chunks).toString('utf8');
  // undici fails a body destroyed before its end with an abort error: expected here, and with no listener it
  // would be an uncaught exception (the process would die on an oversized answer).
  body.on('error', () => {});
  body.destroy();
  return undefined;
}

type Judged = { done: true; result: HttpReply | HttpFailure } | { done: false; result: HttpFailure; retryAfterMs: number | undefined };

/** Step 5: what an attempt's outcome means under the policy: a result, or a failure worth another attempt. */
function judge(o: Outcome, s: Settings, req: HttpRequest, attempts: number): Judged {
  const url = req.url;
  if (o.kind === 'too-large')
    return { done: true, result: { ok: false, method: req.method, url, attempts, kind: 'too-large', limitBytes: s.maxResponseBytes } };
  if (o.kind === 'error') {
    const result: HttpFailure = isTimeout(o.error)
      ? { ok: false, method: req.method, url, attempts, kind: 'timeout', timeoutMs: o.timeoutMs }
      : { ok: false, method: req.method, url, attempts, kind: 'connection', code: errorCode(o.error) };
    return { done: false, result, retryAfterMs: undefined };
  }
  const { status, headers, text } = o;
  if (status >= 200 && status < 300) return { done: true, result: { ok: true, status, headers, text, latencyMs: o.latencyMs } };
  if (status >= 300 && status < 400) {
    const location = typeof headers.location === 'string' ? headers.location : undefined;
    return { done: true, result: { ok: false, method: req.method, url, attempts, kind: 'redirect', status, location } };
  }
  const retryable = isRetryableStatus(status, { alsoRetry: s.alsoRetry });
  const result: HttpFailure = { ok: false, method: req.method, url, attempts, kind: 'status', status, headers, retryable, snippet: snippetOf(text, s.secrets) };
  return retryable ? { done: false, result, retryAfterMs: retryAfterMs(headers) } : { done: true, result };
}

/** Step 6: a 2xx body as the expected JSON, or a `not-json` failure with a redacted snippet. */
function parseJson(reply: HttpReply, req: HttpRequest, s: Settings, isExpected?: (json: unknown) => boolean): HttpJsonReply | HttpFailure {
  let json: unknown;
  try {
    json = JSON.parse(reply.text);
  } catch {
    return { ok: false, method: req.method, url: req.url, attempts: 1, kind: 'not-json', status: reply.status, snippet: snippetOf(reply.text, s.secrets) };
  }
  if (isExpected && !isExpected(json))
    return { ok: false, method: req.method, url: req.url, attempts: 1, kind: 'not-json', status: reply.status, snippet: snippetOf(reply.text, s.secrets) };
  return { ok: true, status: reply.status, headers: reply.headers, json, latencyMs: reply.latencyMs };
}

/**
 * A reply fit to quote: whitespace folded, the caller's secrets and anything that looks like a credential
 * (core/redact.ts) blanked, URLs redacted, cut to {@link SNIPPET_CHARS} characters.
 */
export function snippetOf(text: string, secrets: readonly string[] = []): string {
  let s = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) s = s.split(secret).join('***');
  s = redactEchoedSecrets(s);
  return cutText(s, SNIPPET_CHARS);
}

/** The cause of a failure in a wording shared by every retry of that cause (the key to collapse them on). */
export function retryReason(f: HttpFailure): string {
  switch (f.kind) {
    case 'status':
      return `HTTP ${f.status}`;
    case 'timeout':
      return `no response within ${f.timeoutMs} ms`;
    case 'connection':
      return `connection failed (${f.code})`;
    default:
      return describeHttpFailure(f, { withUrl: false });
  }
}

/**
 * One line for a failure, the URL redacted: `POST https://***:***@h/v1/x answered 503 after 3 attempts: busy`,
 * `GET http://h/runs/1: no response within 10000 ms`. `withUrl: false` leaves the request out.
 */
export function describeHttpFailure(f: HttpFailure, opts: { withUrl?: boolean } = {}): string {
  const where = opts.withUrl === false ? '' : `${f.method} ${redactUrl(f.url)}`;
  const tries = f.attempts > 1 ? ` (${f.attempts} attempts)` : '';
  const colon = where ? `${where}: ` : '';
  switch (f.kind) {
    case 'status':
      return `${where ? `${where} ` : ''}answered ${f.status}${f.retryable && f.attempts > 1 ? ` after ${f.attempts} attempts` : ''}: ${f.snippet || '(empty body)'}`;
    case 'redirect':
      return `${where ? `${where} ` : ''}answered ${f.status}: redirect to ${f.location !== undefined ? redactUrl(f.location) : '(no location header)'}; redirects are not followed`;
    case 'not-json':
      return `${colon}answered ${f.status} but the body is not the expected JSON: ${JSON.stringify(f.snippet)}`;
    case 'timeout':
      return `${colon}no response within ${f.timeoutMs} ms${tries}`;
    case 'connection':
      return `${colon}connection failed (${f.code})${tries}`;
    case 'too-large':
      return `${colon}the response body is larger than ${f.limitBytes} bytes (not retried)`;
    case 'cancelled':
      return `${colon}request cancelled`;
  }
}

/**
 * Retry events collapsed into one line per cause: the first retry of each (label, reason) is printed as it
 * happens; `flush()` (at the end of a run) prints how many more followed. A provider that is down gives the
 * same cause for every request, and 120 identical lines would hide the one that matters. With `verbose`,
 * every retry is printed as it happens.
 * @example const retries = collapseRetries((l) => console.error(l)); createHttpClient({ ..., onRetry: retries.onRetry })
 */
export function collapseRetries(print: (line: string) => void, opts: { verbose?: boolean } = {}): { onRetry: (event: RetryEvent) => void; flush: () => void } {
  const seen = new Map<string, { label: string; reason: string; more: number }>();
  return {
    onRetry(e) {
      const line = `retrying: ${e.label}: ${e.reason}; attempt ${e.attempt + 1} in ${(e.delayMs / 1000).toFixed(1)} s`;
      if (opts.verbose) return print(line);
      const key = `${e.label}\u0000${e.reason}`;
      const entry = seen.get(key);
      if (entry) {
        entry.more++;
        return;
      }
      seen.set(key, { label: e.label, reason: e.reason, more: 0 });
      print(`${line} (further retries for this cause are not shown; -v shows each)`);
    },
    flush() {
      for (const e of seen.values()) if (e.more > 0) print(`retried: ${e.label}: ${e.more} more time(s) after ${e.reason}`);
      seen.clear();
    },
  };
}

const targets = new Map<string, { origin: string; path: string }>();
function targetOf(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    // Clients talk to a handful of URLs each; bound the cache anyway (read-back URLs carry ids).
    if (targets.size < 256) targets.set(url, t);
  }
  return t;
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  const code = e?.cause?.code ?? e?.code;
  if (typeof code === 'string') return code;
  return typeof e?.message === 'string' && e.message ? redactUrlsInText(e.message.split('\n')[0]!) : 'unknown error';
}
