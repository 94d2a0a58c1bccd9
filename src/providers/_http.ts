import { createHttpClient, DEFAULT_MAX_RESPONSE_BYTES, describeHttpFailure, type HttpFailure, type TlsFiles } from '../core/http-client.js';
import { isRecord } from '../core/is-record.js';
import type { ReachabilityWatch } from '../core/reachability.js';
import { redactUrl } from '../core/redact.js';
import { ProviderError } from '../errors.js';
import type { HttpProviderOptions, RetryInfo } from './types.js';

// The providers' side of the one HTTP client (core/http-client.ts): JSON request bodies built once, and
// failures turned into ProviderErrors with the provider's hints.

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
  apiKey?: string | undefined;
  apiKeyEnv?: string | undefined;
  onRetry?: ((info: RetryInfo) => void) | undefined;
  reachability?: ReachabilityWatch | undefined;
  /** Largest response body read, in bytes; a bigger one is an error, not retried. @default 33554432 */
  maxResponseBytes?: number | undefined;
  tls?: TlsFiles | undefined;
}

export { DEFAULT_MAX_RESPONSE_BYTES };

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

/** The provider HTTP client: the one client, its failures thrown as ProviderErrors. */
export function createProviderClient(opts: HttpClientOptions): HttpClient {
  const client = createHttpClient({
    label: opts.label,
    timeoutMs: opts.timeoutMs,
    attempts: opts.retries,
    backoff: { baseMs: opts.retryBaseMs, maxMs: opts.maxRetryDelayMs },
    maxConcurrent: opts.maxConcurrent,
    ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
    ...(opts.tls ? { tls: opts.tls } : {}),
    secrets: [opts.apiKey],
    ...(opts.onRetry ? { onRetry: ({ attempt, delayMs, reason }) => opts.onRetry?.({ attempt, delayMs, reason }) } : {}),
    ...(opts.reachability ? { reachability: opts.reachability } : {}),
  });
  let closed = false;
  return {
    async send(ex) {
      if (closed) throw new ProviderError('PROVIDER', `${opts.label}: provider is closed`);
      const body = ex.body === undefined ? undefined : ex.body instanceof JsonText ? ex.body : JSON.stringify(ex.body);
      const reply = await client.json({
        method: ex.method,
        url: ex.url,
        headers: ex.headers,
        ...(body !== undefined ? { body } : {}),
        ...(ex.signal ? { signal: ex.signal } : {}),
      });
      if (reply.ok) return { json: reply.json, status: reply.status, latencyMs: reply.latencyMs };
      throw providerError(opts, reply);
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/** A failure of the one client as the provider's error: the code, and a hint naming what to change. */
function providerError(opts: HttpClientOptions, f: HttpFailure): ProviderError {
  const message = `${opts.label}: ${describeHttpFailure(f)}`;
  switch (f.kind) {
    case 'cancelled':
      return new ProviderError('CANCELLED', `${opts.label}: request cancelled`);
    case 'too-large':
      return new ProviderError('PROVIDER_RESPONSE', message, {
        hint: 'raise the limit with [llm] max_response_bytes or RUNSPEC_MAX_RESPONSE_BYTES, or check --base-url',
      });
    case 'timeout':
      return new ProviderError('PROVIDER_TIMEOUT', message, { hint: 'raise the time limit (--timeout-ms or [llm] timeout_ms) or check the server' });
    case 'connection':
      return new ProviderError('PROVIDER', message, { hint: 'is the server running at that address? check --base-url' });
    case 'not-json':
      return new ProviderError('PROVIDER_RESPONSE', message, {
        hint: 'is --base-url pointing at an API endpoint (for OpenAI-compatible servers it usually ends in /v1)?',
        status: f.status,
      });
    case 'redirect':
      return new ProviderError('PROVIDER', message, {
        hint: 'point --base-url (or base_url in runspec.toml) at the address the server redirects to',
        status: f.status,
      });
    case 'status': {
      if (f.status === 401 || f.status === 403) {
        const keyHint = opts.apiKeyEnv
          ? opts.apiKey
            ? `check the key in ${opts.apiKeyEnv}`
            : `set ${opts.apiKeyEnv} in the environment`
          : 'set api_key_env on the provider profile in runspec.toml and export that variable';
        return new ProviderError(
          'PROVIDER_AUTH',
          `${opts.label}: ${f.method} ${redactUrl(f.url)} answered ${f.status}: the API key was ${opts.apiKey ? 'rejected' : 'missing'} (${f.snippet})`,
          { hint: keyHint, status: f.status },
        );
      }
      return new ProviderError('PROVIDER', message, {
        hint: f.retryable
          ? 'the server is failing or rate-limiting; retry later or raise --attempts'
          : 'the request was refused; check --model and the server logs',
        status: f.status,
      });
    }
  }
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
  return createProviderClient({
    label,
    timeoutMs: opts.timeoutMs ?? 120_000,
    retries: opts.retries ?? 3,
    retryBaseMs: opts.retryBaseMs ?? 1000,
    maxRetryDelayMs: opts.maxRetryDelayMs ?? 30_000,
    maxConcurrent: opts.maxConcurrent ?? 8,
    apiKey: opts.apiKey,
    apiKeyEnv: opts.apiKeyEnv,
    onRetry: opts.onRetry,
    reachability: opts.reachability,
    maxResponseBytes: opts.maxResponseBytes,
    tls: opts.tls,
  });
}

/**
 * Model discovery when no model is named: `GET {url}` once, lazily, and take the first listed id. A failed
 * look-up is not cached, so the next call tries again.
 */
export function createModelLookup(
  http: HttpClient,
  opts: { url: string; headers: Record<string, string>; label: string },
): (signal?: AbortSignal) => Promise<string> {
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
