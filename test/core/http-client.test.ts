// The one HTTP client, driven through its three kinds of caller (Phoenix annotations, LangSmith feedback, a
// model provider) by the same cases: retries honouring Retry-After, TLS with a private CA and a client
// certificate, the response-size limit on an endless 200, a 2xx that is not the expected JSON, a time-out.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collapseRetries, createHttpClient, type RetryEvent } from '../../src/core/http-client.js';
import { errorText } from '../../src/core/error-text.js';
import type { ReachabilityWatch } from '../../src/core/reachability.js';
import { closedPort } from '../helpers/ports.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import { postLangSmithFeedback } from '../../src/telemetry/langsmith.js';
import { postSpanAnnotations } from '../../src/telemetry/phoenix.js';

const SERVER_TLS = join(import.meta.dirname, '..', 'telemetry', 'tls');
const CLIENT_TLS = join(import.meta.dirname, 'tls');
const CA = join(SERVER_TLS, 'ca.pem');
const CLIENT_CERT = join(CLIENT_TLS, 'client.pem');
const CLIENT_KEY = join(CLIENT_TLS, 'client.key');
const KEY = 'ls-secret-key-0123456789';
const LIMIT = 64 * 1024;

type Step = { status: number; body: string; headers?: Record<string, string> } | 'endless' | 'hang';

interface Scripted {
  url: string;
  requests: number;
  /** Bytes the endless answers managed to write before the client hung up. */
  endlessBytes: number;
  close(): Promise<void>;
}

/** A server on 127.0.0.1:0 that answers each request with the next step, then with `success`. */
async function startScripted(steps: Step[], success: string, tls?: 'server' | 'mutual'): Promise<Scripted> {
  const sockets = new Set<Socket>();
  const state = { requests: 0, endlessBytes: 0 };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      const step = steps.shift() ?? { status: 200, body: success, headers: { 'content-type': 'application/json' } };
      if (step === 'hang') return;
      if (step === 'endless') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        // Bounded: at most 256 MiB, far beyond the limit under test.
        const pump = (): void => {
          while (state.endlessBytes < 256 * 1024 * 1024 && !res.destroyed) {
            state.endlessBytes += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
      res.writeHead(step.status, step.headers ?? { 'content-type': 'application/json' });
      res.end(step.body);
    });
  };
  const server: Server =
    tls === undefined
      ? createHttpServer(handler)
      : createHttpsServer(
          {
            key: readFileSync(join(SERVER_TLS, 'server.key')),
            cert: readFileSync(join(SERVER_TLS, 'server.pem')),
            ...(tls === 'mutual' ? { requestCert: true, rejectUnauthorized: true, ca: readFileSync(CLIENT_CERT) } : {}),
          },
          handler,
        );
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get endlessBytes() {
      return state.endlessBytes;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

interface CallOptions {
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  timeoutMs?: number;
  onRetry?: (e: RetryEvent) => void;
}

interface Caller {
  name: string;
  /** What the service answers on success. */
  success: string;
  call(baseUrl: string, o: CallOptions): Promise<{ ok: boolean; text: string }>;
}

const completion = JSON.stringify({
  id: 'c1',
  model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const CALLERS: Caller[] = [
  {
    name: 'phoenix annotations',
    success: '{"data":[]}',
    async call(baseUrl, o) {
      const r = await postSpanAnnotations({
        baseUrl,
        apiKey: KEY,
        annotations: [
          { span_id: '1a2b3c4d5e6f7a8b', name: 'n', annotator_kind: 'CODE', result: { label: 'pass', explanation: '' }, metadata: {}, identifier: 'i' },
        ],
        timeoutMs: o.timeoutMs ?? 5000,
        attempts: 3,
        maxResponseBytes: LIMIT,
        ...(o.tls?.caFile ? { caFile: o.tls.caFile } : {}),
        ...(o.tls?.certFile ? { clientCertFile: o.tls.certFile } : {}),
        ...(o.tls?.keyFile ? { clientKeyFile: o.tls.keyFile } : {}),
        ...(o.onRetry ? { onRetry: o.onRetry } : {}),
      });
      return { ok: r.posted === 1 && r.warning === undefined, text: r.warning ?? '' };
    },
  },
  {
    name: 'langsmith feedback',
    success: '{"id":"fb-1"}',
    async call(endpoint, o) {
      const r = await postLangSmithFeedback({
        endpoint,
        apiKey: KEY,
        feedback: [
          {
            id: '00000000-0000-8000-8000-000000000001',
            run_id: '00000000-0000-0000-1a2b-3c4d5e6f7a8b',
            trace_id: '00000000-0000-0000-1a2b-3c4d5e6f7a8b',
            key: 'k',
            score: 1,
            value: 'pass',
            comment: '',
            feedback_source: { type: 'api', metadata: {} },
          },
        ],
        maxWaitMs: o.timeoutMs !== undefined ? 0 : 5000,
        requestTimeoutMs: o.timeoutMs ?? 5000,
        backoffMs: 1,
        maxResponseBytes: LIMIT,
        ...(o.tls?.caFile ? { caFile: o.tls.caFile } : {}),
        ...(o.tls?.certFile ? { clientCertFile: o.tls.certFile } : {}),
        ...(o.tls?.keyFile ? { clientKeyFile: o.tls.keyFile } : {}),
        ...(o.onRetry ? { onRetry: o.onRetry } : {}),
      });
      return { ok: r.posted === 1 && r.warning === undefined, text: r.warning ?? '' };
    },
  },
  {
    name: 'openai provider',
    success: completion,
    async call(baseUrl, o) {
      const provider = createOpenAIProvider({
        baseUrl,
        apiKey: KEY,
        model: 'm',
        retries: 3,
        retryBaseMs: 1,
        timeoutMs: o.timeoutMs ?? 5000,
        maxResponseBytes: LIMIT,
        ...(o.tls ? { tls: o.tls } : {}),
        ...(o.onRetry ? { onRetry: (r) => o.onRetry?.({ label: 'openai provider', ...r }) } : {}),
      });
      try {
        await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
        return { ok: true, text: '' };
      } catch (err) {
        return { ok: false, text: (err as Error).message };
      } finally {
        await provider.close();
      }
    },
  },
];

let server: Scripted | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(CALLERS)('$name through the one HTTP client', (caller) => {
  it('retries a 503 and a 429, waiting what Retry-After says, then succeeds', async () => {
    server = await startScripted(
      [
        { status: 503, body: '{"detail":"busy"}', headers: { 'retry-after': '0' } },
        { status: 429, body: '{"detail":"slow down"}', headers: { 'retry-after-ms': '7' } },
      ],
      caller.success,
    );
    const events: RetryEvent[] = [];
    const r = await caller.call(server.url, { onRetry: (e) => events.push(e) });
    expect(r).toEqual({ ok: true, text: '' });
    expect(server.requests).toBe(3);
    expect(events.map((e) => [e.attempt, e.delayMs, e.reason])).toEqual([
      [1, 0, 'HTTP 503'],
      [2, 7, 'HTTP 429'],
    ]);
  });

  it('does not retry a 400, and quotes the answer redacted', async () => {
    server = await startScripted([{ status: 400, body: `{"detail":"bad","echo":"Bearer ${KEY}"}` }], caller.success);
    const r = await caller.call(server.url, {});
    expect(r.ok).toBe(false);
    expect(server.requests).toBe(1);
    expect(r.text).toMatch(/answered 400/);
    expect(r.text).not.toContain(KEY);
  });

  it('trusts a private CA and presents the client certificate (mutual TLS)', async () => {
    server = await startScripted([], caller.success, 'mutual');
    expect(await caller.call(server.url, { tls: { caFile: CA, certFile: CLIENT_CERT, keyFile: CLIENT_KEY } })).toEqual({ ok: true, text: '' });
  });

  it('fails without the client certificate, and without the CA', async () => {
    server = await startScripted([], caller.success, 'mutual');
    const noCert = await caller.call(server.url, { tls: { caFile: CA }, timeoutMs: 2000 });
    expect(noCert.ok).toBe(false);
    const noCa = await caller.call(server.url, { tls: { certFile: CLIENT_CERT, keyFile: CLIENT_KEY }, timeoutMs: 2000 });
    expect(noCa.ok).toBe(false);
    expect(noCa.text).toMatch(/certificate|UNABLE_TO_VERIFY|SELF_SIGNED/i);
  });

  it('names an unreadable TLS file', async () => {
    server = await startScripted([], caller.success, 'server');
    const r = await caller.call(server.url, { tls: { caFile: join(CLIENT_TLS, 'missing.pem') } }).catch((err: Error) => ({ ok: false, text: err.message }));
    expect(r.ok).toBe(false);
    expect(r.text).toContain('missing.pem');
  });

  // Used to read the body whole: an endless 200 aborted the process (Phoenix) or took gigabytes (LangSmith).
  it('stops reading an endless 200 at the size limit, once, without retrying', async () => {
    server = await startScripted(['endless'], caller.success);
    const r = await caller.call(server.url, {});
    expect(r.ok).toBe(false);
    expect(r.text).toContain(`larger than ${LIMIT} bytes`);
    expect(server.requests).toBe(1);
    expect(server.endlessBytes).toBeLessThan(64 * 1024 * 1024);
  });

  // Used to count as posted: a 200 login page of a proxy in front of the service.
  it('fails on a 200 that is an HTML page, quoting it redacted', async () => {
    server = await startScripted(
      [{ status: 200, body: `<html><body>Sign in <a href="/login?token=${KEY}">here</a></body></html>`, headers: { 'content-type': 'text/html' } }],
      caller.success,
    );
    const r = await caller.call(server.url, {});
    expect(r.ok).toBe(false);
    expect(r.text).toMatch(/not (the expected )?JSON/);
    expect(r.text).toContain('Sign in');
    expect(r.text).not.toContain(KEY);
  });

  // Used to warn `failed (undefined)` or `no answer within` the whole budget.
  it('names a time-out with its limit', async () => {
    server = await startScripted(['hang', 'hang', 'hang'], caller.success);
    const r = await caller.call(server.url, { timeoutMs: 300 });
    expect(r.ok).toBe(false);
    expect(r.text).toMatch(/no response within 300 ms/);
    expect(r.text).not.toContain('undefined');
  });
});

describe('the client on its own', () => {
  it('redacts user-info and key-like query parameters of the URL it names', async () => {
    server = await startScripted([{ status: 404, body: 'nope' }], '');
    const http = createHttpClient({ label: 't', timeoutMs: 2000 });
    const url = server.url.replace('://', '://bob:hunter2@') + '/x?api-key=abcd1234&v=1';
    const r = await http.send({ method: 'GET', url });
    await http.close();
    expect(r.ok).toBe(false);
    const line = r.ok ? '' : http.describe(r);
    expect(line).toMatch(/^GET http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/x\?api-key=\*\*\*&v=1 answered 404: nope$/);
  });

  // Used to print the LangSmith endpoint with its password.
  it('names the LangSmith endpoint without its password when the key is refused', async () => {
    server = await startScripted([{ status: 401, body: '{"detail":"bad key"}' }], '');
    const r = await postLangSmithFeedback({
      endpoint: server.url.replace('://', '://bob:hunter2pw@'),
      apiKey: KEY,
      feedback: [{ id: 'f', run_id: 'r', trace_id: 'r', key: 'k', score: 1, value: 'pass', comment: '', feedback_source: { type: 'api', metadata: {} } }],
      maxWaitMs: 0,
    });
    expect(r.warning).toMatch(/^langsmith feedback: POST http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/feedback answered 401 \(check LANGSMITH_API_KEY\)/);
    expect(r.warning).not.toContain('hunter2pw');
  });

  it('stops waiting when the caller aborts', async () => {
    server = await startScripted(['hang'], '');
    const http = createHttpClient({ label: 't', timeoutMs: 60_000 });
    const ac = new AbortController();
    const pending = http.send({ method: 'GET', url: server.url, signal: ac.signal });
    ac.abort();
    const r = await pending;
    await http.close();
    expect(r).toMatchObject({ ok: false, kind: 'cancelled' });
  });

  it('ends every attempt in flight under a caller signal when it aborts, and no other', async () => {
    server = await startScripted(['hang', 'hang'], '{"ok":true}');
    const http = createHttpClient({ label: 't', timeoutMs: 60_000, maxConcurrent: 4 });
    const ac = new AbortController();
    const first = http.send({ method: 'GET', url: server.url, signal: ac.signal });
    const second = http.send({ method: 'GET', url: server.url, signal: ac.signal });
    // Both attempts reached the server (they are in flight, not waiting for a slot).
    while (server.requests < 2) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const results = await Promise.all([first, second]);
    // A request under another signal, after the abort, is not touched by it.
    const other = await http.send({ method: 'GET', url: server.url, signal: new AbortController().signal });
    // A signal aborted before the request starts makes no attempt.
    const late = await http.send({ method: 'GET', url: server.url, signal: ac.signal });
    expect(results).toMatchObject([
      { ok: false, kind: 'cancelled', attempts: 1 },
      { ok: false, kind: 'cancelled', attempts: 1 },
    ]);
    expect(other).toMatchObject({ ok: true, status: 200, text: '{"ok":true}' });
    expect(late).toMatchObject({ ok: false, kind: 'cancelled', attempts: 0 });
    expect(server.requests).toBe(3);
    // Nothing is left listening on either signal once their requests have ended.
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    const kept = new AbortController();
    expect(await http.send({ method: 'GET', url: server.url, signal: kept.signal })).toMatchObject({ ok: true });
    await http.close();
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
  });

  it('collapses retry events into one line per cause', () => {
    const lines: string[] = [];
    const c = collapseRetries((l) => lines.push(l));
    for (let i = 1; i <= 4; i++) c.onRetry({ label: 'openai provider', attempt: i, delayMs: 1000, reason: 'HTTP 429' });
    c.onRetry({ label: 'openai provider', attempt: 1, delayMs: 500, reason: 'connection failed (ECONNRESET)' });
    c.flush();
    expect(lines).toEqual([
      'retrying: openai provider: HTTP 429; attempt 2 in 1.0 s (further retries for this cause are not shown; -v shows each)',
      'retrying: openai provider: connection failed (ECONNRESET); attempt 2 in 0.5 s (further retries for this cause are not shown; -v shows each)',
      'retried: openai provider: 3 more time(s) after HTTP 429',
    ]);
  });

  it('tells the reachability watch whether each attempt connected', async () => {
    const seen: string[] = [];
    const reachability: ReachabilityWatch = {
      request: () => ({ connected: () => seen.push('connected'), failedToConnect: (r) => seen.push(r), ended: () => seen.push('ended') }),
      watch: () => () => {},
    };
    const dead = createHttpClient({ label: 'openai provider', timeoutMs: 5_000, attempts: 2, backoff: { baseMs: 1, maxMs: 1 }, reachability });
    const r = await dead.send({ method: 'GET', url: `http://127.0.0.1:${await closedPort()}/v1/models` });
    await dead.close();
    expect(r).toMatchObject({ ok: false, kind: 'connection', code: 'ECONNREFUSED' });
    expect(seen).toEqual(['openai provider: connection failed (ECONNREFUSED)', 'openai provider: connection failed (ECONNREFUSED)', 'ended']);

    seen.length = 0;
    server = await startScripted([{ status: 503, body: 'busy' }], '{}');
    const live = createHttpClient({ label: 't', timeoutMs: 5_000, attempts: 2, backoff: { baseMs: 1, maxMs: 1 }, reachability });
    expect(await live.send({ method: 'GET', url: server.url })).toMatchObject({ ok: true });
    await live.close();
    // A 503 is an answer: the server is reachable.
    expect(seen).toEqual(['connected', 'connected', 'ended']);
  });

  it('prints every retry with verbose, and nothing more at flush', () => {
    const lines: string[] = [];
    const c = collapseRetries((l) => lines.push(l), { verbose: true });
    for (let i = 1; i <= 2; i++) c.onRetry({ label: 'openai', attempt: i, delayMs: 2000, reason: 'HTTP 503' });
    c.flush();
    expect(lines).toEqual(['retrying: openai: HTTP 503; attempt 2 in 2.0 s', 'retrying: openai: HTTP 503; attempt 3 in 2.0 s']);
  });

  it('words errors without a message, arrays of errors and time-outs (never "undefined")', () => {
    expect(errorText([new Error('Timeout'), new Error('Request timed out')], 5000)).toBe('no response within 5000 ms');
    expect(errorText(undefined)).toBe('unknown error (no message)');
    expect(errorText(Object.assign(new Error(''), { code: 'ECONNRESET' }))).toBe('error ECONNRESET');
  });
});
