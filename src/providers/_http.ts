import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { redactEchoedSecrets, redactUrl } from '../core/redact.js';
import { ProviderError } from '../errors.js';
import type { HttpProviderOptions, RetryInfo } from './types.js';
import { isRecord } from '../core/is-record.js';
import { isRetryableStatus, retryAfterMs, retryDelayMs } from '../core/retry.js';
import { createLimiter } from '../core/concurrency.js';

// The HTTP plumbing shared by the OpenAI and Anthropic providers: one keep-alive pool per provider,
// a concurrency limit, per-attempt timeouts, retries with backoff and Retry-After, and error mapping.

export interface HttpClientOptions {
  /** `openai provider` — the start of every error message. */
  label: string;
  timeoutMs: number;
  /** Attempts per request, the first included (0 or 1: no retry). */
  retries: number;
  retryBaseMs: number;
  maxRetryDelayMs: number;
  maxConcurrent: number;
  /** Only used to blank it out of error snippets. */
  apiKey?: string;
  apiKeyEnv?: string;
  onRetry?: (info: RetryInfo) => void;
  /** Largest response body read, in bytes; a bigger one is an error, not retried. @default 33554432 */
  maxResponseBytes?: number;
}

/** Default limit on a provider response body (32 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** A response over the size limit: reported once, never retried. */
class BodyTooLargeError extends Error {}

/** A request body already serialised as JSON (see {@link jsonWithTail}). */
export class JsonText {
  private encoded: Buffer | string | undefined;
  /** `head` then `tail` (the part shared by every request, with its UTF-8 bytes encoded once). */
  constructor(
    private readonly head: string,
    private readonly tail?: { text: string; bytes: Buffer },
  ) {}

  /** What goes on the wire: the text's UTF-8 bytes (the shared part copied, not encoded again). */
  body(): Buffer | string {
    return (this.encoded ??= this.tail ? Buffer.concat([Buffer.from(this.head, 'utf8'), this.tail.bytes]) : this.head);
  }
}

const tailCache = new WeakMap<object, { text: string; bytes: Buffer }>();

/**
 * `JSON.stringify({ ...head, ...tail })` where `tail` is the same object on every request (a provider's
 * tool definitions): its JSON, and the bytes of that JSON, are built once per object instead of once per
 * request. Same bytes.
 */
export function jsonWithTail(head: Record<string, unknown>, tail: Record<string, unknown> | undefined, cacheKey: object | undefined): JsonText {
  const headText = JSON.stringify(head);
  if (!tail || Object.keys(tail).length === 0) return new JsonText(headText);
  let shared = cacheKey ? tailCache.get(cacheKey) : undefined;
  if (shared === undefined) {
    const text = JSON.stringify(tail).slice(1);
    shared = { text, bytes: Buffer.from(text, 'utf8') };
    if (cacheKey) tailCache.set(cacheKey, shared);
  }
  return new JsonText(headText === '{}' ? '{' : `${headText.slice(0, -1)},`, shared);
}

export interface JsonExchange {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON; a `JsonText` is sent as it is (already serialised). */
  body?: unknown;
  signal?: AbortSignal;
}

export interface JsonReply {
  json: unknown;
  status: number;
  /** Wall time of the successful attempt. */
  latencyMs: number;
}

export interface HttpClient {
  send(exchange: JsonExchange): Promise<JsonReply>;
  close(): Promise<void>;
}

const SNIPPET_CHARS = 200;

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connections: Math.max(1, opts.maxConcurrent),
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  const limiter = createLimiter(Math.max(1, opts.maxConcurrent));
  const attempts = Math.max(1, Math.floor(opts.retries));
  let closed = false;
  const snippet = (text: string): string => {
    let s = text.replace(/\s+/g, ' ').trim();
    if (opts.apiKey && opts.apiKey.length >= 4) s = s.split(opts.apiKey).join('***');
    s = redactEchoedSecrets(s);
    return s.length > SNIPPET_CHARS ? `${s.slice(0, SNIPPET_CHARS)}…` : s;
  };

  async function waitBeforeRetry(attempt: number, reason: string, retryAfterMs: number | undefined, signal?: AbortSignal): Promise<void> {
    const delayMs = retryDelayMs(attempt, { baseMs: opts.retryBaseMs, maxMs: opts.maxRetryDelayMs }, retryAfterMs);
    opts.onRetry?.({ attempt, delayMs, reason });
    try {
      await sleep(delayMs, undefined, signal ? { signal } : undefined);
    } catch {
      throw cancelled(opts.label);
    }
  }

  async function attemptOnce(ex: JsonExchange): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; latencyMs: number }> {
    // One controller and one timer per attempt: AbortSignal.timeout + AbortSignal.any cost more than the
    // rest of a request's client-side work at zero latency (a timer object and a composite signal each).
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new DOMException(`no response within ${opts.timeoutMs} ms`, 'TimeoutError')), opts.timeoutMs);
    const unfollow = ex.signal ? follow(ex.signal, ac) : undefined;
    try {
      return await exchange(ex, ac.signal);
    } finally {
      clearTimeout(timer);
      unfollow?.();
    }
  }

  // The attempts in flight under each caller's signal, aborted with it: one listener per signal while it has
  // attempts in flight, rather than one added and removed per attempt (a run's requests share its signal).
  // The listener goes when the last attempt ends: a timeout signal with a listener is kept alive until it fires.
  const followers = new WeakMap<AbortSignal, { attempts: Set<AbortController>; onAbort: () => void }>();
  function follow(signal: AbortSignal, ac: AbortController): (() => void) | undefined {
    if (signal.aborted) {
      ac.abort(signal.reason);
      return undefined;
    }
    let f = followers.get(signal);
    if (!f) {
      const attempts = new Set<AbortController>();
      const onAbort = (): void => {
        followers.delete(signal);
        for (const c of attempts) c.abort(signal.reason);
        attempts.clear();
      };
      f = { attempts, onAbort };
      followers.set(signal, f);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const mine = f;
    mine.attempts.add(ac);
    return () => {
      mine.attempts.delete(ac);
      if (mine.attempts.size === 0 && followers.get(signal) === mine) {
        followers.delete(signal);
        signal.removeEventListener('abort', mine.onAbort);
      }
    };
  }

  async function exchange(ex: JsonExchange, signal: AbortSignal): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; latencyMs: number }> {
    const started = performance.now();
    // The agent's own request(): what undici's top-level request() does after parsing the URL, which a
    // provider's few URLs need only once.
    const { origin, path } = targetOf(ex.url);
    const res = await agent.request({
      origin,
      path,
      method: ex.method,
      headers: ex.headers,
      body: ex.body === undefined ? undefined : ex.body instanceof JsonText ? ex.body.body() : JSON.stringify(ex.body),
      signal,
    });
    const limit = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared <= limit) {
      // The body is as long as declared (undici holds a response to its content-length): taken whole, which
      // is cheaper than iterating the stream chunk by chunk. Decoded as below (a byte-order mark is kept).
      const bytes = await res.body.bytes();
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
      return { status: res.statusCode, headers: res.headers, text, latencyMs: Math.round(performance.now() - started) };
    }
    const chunks: Buffer[] = [];
    let size = Number.isFinite(declared) ? declared : 0;
    if (size <= limit) {
      size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > limit) break;
        chunks.push(chunk as Buffer);
      }
    }
    if (size > limit) {
      // undici fails a body destroyed before its end with an abort error: expected here, and with no
      // listener it would be an uncaught exception (the process would die on an oversized answer).
      res.body.on('error', () => {});
      res.body.destroy();
      throw new BodyTooLargeError(`the response body is larger than ${limit} bytes`);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: res.statusCode, headers: res.headers, text, latencyMs: Math.round(performance.now() - started) };
  }

  const targets = new Map<string, { origin: string; path: string }>();
  const targetOf = (url: string): { origin: string; path: string } => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { origin: u.origin, path: `${u.pathname}${u.search}` };
      // A provider talks to a handful of URLs; bound the cache anyway.
      if (targets.size < 64) targets.set(url, t);
    }
    return t;
  };

  async function send(ex: JsonExchange): Promise<JsonReply> {
    if (closed) throw new ProviderError('PROVIDER', `${opts.label}: provider is closed`);
    if (ex.signal?.aborted) throw cancelled(opts.label);
    await limiter.acquire(ex.signal).catch(() => {
      throw cancelled(opts.label);
    });
    // Only error messages name the request: its URL is redacted when one is written, not per request.
    const where = (): string => `${ex.method} ${redactUrl(ex.url)}`;
    try {
      for (let attempt = 1; ; attempt++) {
        let reply: Awaited<ReturnType<typeof attemptOnce>>;
        try {
          reply = await attemptOnce(ex);
        } catch (err) {
          if (ex.signal?.aborted) throw cancelled(opts.label);
          if (err instanceof BodyTooLargeError) {
            throw new ProviderError('PROVIDER_RESPONSE', `${opts.label}: ${where()}: ${err.message} (not retried)`, {
              hint: 'raise the limit with [llm] max_response_bytes or RUNSPEC_MAX_RESPONSE_BYTES, or check --base-url',
            });
          }
          const timedOut = isTimeout(err);
          const reason = timedOut ? `no response within ${opts.timeoutMs} ms` : `connection failed (${errorCode(err)})`;
          if (attempt < attempts) {
            await waitBeforeRetry(attempt, reason, undefined, ex.signal);
            continue;
          }
          const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
          if (timedOut) {
            throw new ProviderError('PROVIDER_TIMEOUT', `${opts.label}: ${where()}: ${reason}${tries}`, {
              hint: 'raise the time limit (--timeout-ms or [llm] timeout_ms) or check the server',
              cause: err,
            });
          }
          throw new ProviderError('PROVIDER', `${opts.label}: ${where()}: ${reason}${tries}`, {
            hint: 'is the server running at that address? check --base-url',
            cause: err,
          });
        }
        const { status, text } = reply;
        if (status >= 200 && status < 300) {
          try {
            return { json: JSON.parse(text), status, latencyMs: reply.latencyMs };
          } catch (err) {
            throw new ProviderError('PROVIDER_RESPONSE', `${opts.label}: ${where()}: the response body is not JSON: ${JSON.stringify(snippet(text))}`, {
              hint: 'is --base-url pointing at an API endpoint (for OpenAI-compatible servers it usually ends in /v1)?',
              cause: err,
              status,
            });
          }
        }
        if (status === 401 || status === 403) {
          const keyHint = opts.apiKeyEnv
            ? opts.apiKey
              ? `check the key in ${opts.apiKeyEnv}`
              : `set ${opts.apiKeyEnv} in the environment`
            : 'set api_key_env on the provider profile in runspec.toml and export that variable';
          throw new ProviderError(
            'PROVIDER_AUTH',
            `${opts.label}: ${where()} answered ${status}: the API key was ${opts.apiKey ? 'rejected' : 'missing'} (${snippet(text)})`,
            { hint: keyHint, status },
          );
        }
        if (status >= 300 && status < 400) {
          const location = reply.headers.location;
          const to = typeof location === 'string' ? redactUrl(location) : '(no location header)';
          throw new ProviderError('PROVIDER', `${opts.label}: ${where()} answered ${status}: redirect to ${to}; redirects are not followed`, {
            hint: 'point --base-url (or base_url in runspec.toml) at the address the server redirects to',
            status,
          });
        }
        const retryable = isRetryableStatus(status);
        if (retryable && attempt < attempts) {
          await waitBeforeRetry(attempt, `HTTP ${status}`, retryAfterMs(reply.headers), ex.signal);
          continue;
        }
        const tries = retryable && attempts > 1 ? ` after ${attempts} attempts` : '';
        throw new ProviderError('PROVIDER', `${opts.label}: ${where()} answered ${status}${tries}: ${snippet(text) || '(empty body)'}`, {
          hint: retryable ? 'the server is failing or rate-limiting; retry later or raise --attempts' : 'the request was refused; check --model and the server logs',
          status,
        });
      }
    } finally {
      limiter.release();
    }
  }

  return {
    send,
    async close() {
      if (closed) return;
      closed = true;
      await agent.destroy();
    },
  };
}

function cancelled(label: string): ProviderError {
  return new ProviderError('CANCELLED', `${label}: request cancelled`);
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  const code = e?.cause?.code ?? e?.code;
  if (typeof code === 'string') return code;
  return typeof e?.message === 'string' ? e.message.split('\n')[0]! : 'unknown error';
}

function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; code?: string };
  return (
    e?.name === 'TimeoutError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT' ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}

export { retryAfterMs } from '../core/retry.js';


/** host and port of a base URL, for server.address / server.port. */
export function serverOf(baseUrl: string): { serverAddress?: string; serverPort?: number } {
  try {
    const u = new URL(baseUrl);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    return { serverAddress: u.hostname, serverPort: port };
  } catch {
    return {};
  }
}

/** Join a base URL and a path without doubling or dropping slashes. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The HTTP client of a model provider, with the shared defaults (2 min timeout, 3 attempts, 8 in flight). */
export function createProviderHttp(label: string, opts: HttpProviderOptions): HttpClient {
  return createHttpClient({
    label,
    timeoutMs: opts.timeoutMs ?? 120_000,
    retries: opts.retries ?? 3,
    retryBaseMs: opts.retryBaseMs ?? 1000,
    maxRetryDelayMs: opts.maxRetryDelayMs ?? 30_000,
    maxConcurrent: opts.maxConcurrent ?? 8,
    apiKey: opts.apiKey,
    apiKeyEnv: opts.apiKeyEnv,
    onRetry: opts.onRetry,
    maxResponseBytes: opts.maxResponseBytes,
  });
}

/**
 * Model discovery when no model is named: `GET {url}` once, lazily, and take the first listed id. A failed
 * look-up is not cached, so the next call tries again.
 */
export function createModelLookup(http: HttpClient, opts: { url: string; headers: Record<string, string>; label: string }): (signal?: AbortSignal) => Promise<string> {
  let pending: Promise<string> | undefined;
  return (signal) => {
    pending ??= http
      .send({ method: 'GET', url: opts.url, headers: opts.headers, signal })
      .then(({ json }) => {
        const first = isRecord(json) && Array.isArray(json.data) ? json.data.find((m) => isRecord(m) && typeof m.id === 'string') : undefined;
        if (!first) throw new ProviderError('PROVIDER_RESPONSE', `${opts.label}: GET ${opts.url} lists no models`, { hint: 'name the model with --model' });
        return (first as { id: string }).id;
      })
      .catch((err: unknown) => {
        pending = undefined;
        throw err;
      });
    return pending;
  };
}
