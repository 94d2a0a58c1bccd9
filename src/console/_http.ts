// The console's HTTP guard rails: every response gets the security headers; every /api request must
// carry the session token and a Host we serve (DNS rebinding); state-changing ones an Origin of ours.
import { isRecord } from '../core/is-record.js';
import { sameSecret } from '../core/token.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The console page's Content-Security-Policy: its own script and style only, no frames, no plugins. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Largest request body the API reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

export class HttpProblem extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export interface GuardOptions {
  token: string;
  /** `host:port` values the Host header may carry. */
  allowedHosts: ReadonlySet<string>;
}

/** Throws an HttpProblem when a request may not go on; `api` requests need the token. */
export function guard(req: IncomingMessage, opts: GuardOptions, api: boolean): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!opts.allowedHosts.has(host)) throw new HttpProblem(421, `unexpected Host header ${JSON.stringify(host)}`);
  if (!api) return;
  const given = req.headers['x-runspec-token'];
  if (typeof given !== 'string' || !sameSecret(given, opts.token)) throw new HttpProblem(401, 'missing or wrong session token');
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    // A page of another origin can send a simple POST; ours always says where it comes from.
    const origin = req.headers.origin;
    if (origin !== `http://${host}`) throw new HttpProblem(403, `cross-origin request refused (Origin ${JSON.stringify(origin ?? null)})`);
    const type = req.headers['content-type'] ?? '';
    if (method !== 'DELETE' && !/^application\/json\b/i.test(type)) throw new HttpProblem(415, 'expected application/json');
  }
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpProblem(413, `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'expected a JSON body');
  }
  if (!isRecord(value)) throw new HttpProblem(400, 'expected a JSON object');
  return value;
}
