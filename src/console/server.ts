// `runspec-eval ui`: a loopback HTTP server for the Evals console. The page is static (its script and
// style are files of this server, allowed by the CSP); data comes from /api as JSON, and reports as
// markup from the same report view the HTML file uses. Every /api request carries the session token.
import { isLoopbackHost } from '../core/loopback.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { EnvSource } from '../config/env.js';
import { redactSecrets } from '../core/redact.js';
import { isRunspecError } from '../errors.js';
import { renderCompareView, renderReportView } from '../report/view.js';
import { scoreTraces } from '../app/score-traces.js';
import { traceRunEntry } from '../report/verdict-line.js';
import type { RunEntry } from '../report/results.js';
import { guard, HttpProblem, readJson, securityHeaders, sendJson, sendText } from './_http.js';
import { CONSOLE_HTML, CONSOLE_SCRIPT, CONSOLE_STYLE } from './_page.js';
import { confinedPath, productionDocument, readVerdictFile } from './_production.js';
import { listReports, readReport } from './_reports.js';
import { createRunManager, type EvalRunner } from './_runs.js';
import { appRunner } from './_app-run.js';
import { deleteSuite, listSuites, saveSuite, suiteText, validateText } from './_suites.js';

export type { EvalRunner, ConsoleRunFlags } from './_runs.js';

export interface ConsoleOptions {
  /** The project directory: runspec.toml, runspec_evals.toml, .runspec/. */
  projectDir: string;
  /** For discovery (HOME, XDG_CONFIG_HOME) and to keep secret values out of every response. */
  env: EnvSource;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (any free port) */
  port?: number;
  /** The library run behind the Run tab. @default the app layer's suite run (what `run` does) */
  runner?: EvalRunner;
  /** `[telemetry] trace_url`: link template of a sample's trace (`{trace_id}`, `{span_id}`). */
  traceUrl?: string;
  /** Providers the Run tab offers (presets and profiles); names only. */
  providers?: string[];
  /** Defaults shown in the Run tab. */
  defaults?: { provider?: string; model?: string; toolMode?: string; telemetry?: boolean };
  version?: string;
  onWarning?: (msg: string) => void;
}

export interface ConsoleServer {
  /** The page's address with the session token in the fragment (never sent to the server in a Referer). */
  url: string;
  /** The address without the token. */
  origin: string;
  token: string;
  close(): Promise<void>;
}

function hostNames(bound: string, port: number): Set<string> {
  const names = new Set<string>();
  const add = (h: string): void => void names.add(`${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}`.toLowerCase());
  const wildcard = bound === '0.0.0.0' || bound === '::';
  if (isLoopbackHost(bound) || wildcard) for (const h of ['127.0.0.1', 'localhost', '[::1]']) add(h);
  // Bound to every interface (`--host 0.0.0.0`): the machine's own addresses, and no other name.
  if (wildcard) for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) add(a.address);
  if (!isLoopbackHost(bound) && !wildcard) add(bound);
  return names;
}

function param(url: URL, name: string): string {
  const v = url.searchParams.get(name);
  if (!v) throw new HttpProblem(400, `missing ?${name}=`);
  return v;
}

/**
 * Start the console.
 * @example const ui = await startConsole({ projectDir: '.', env: process.env }); console.log(ui.url)
 */
export async function startConsole(opts: ConsoleOptions): Promise<ConsoleServer> {
  const token = randomBytes(24).toString('base64url');
  const bindHost = opts.host ?? '127.0.0.1';
  const runner = opts.runner ?? appRunner({ projectDir: opts.projectDir, env: opts.env, ...(opts.onWarning ? { onLine: opts.onWarning } : {}) });
  const runs = createRunManager({ projectDir: opts.projectDir, runner });
  const suitesOpts = { projectDir: opts.projectDir, env: opts.env, ...(opts.onWarning ? { onWarning: opts.onWarning } : {}) };
  let allowedHosts = new Set<string>();
  const redact = (text: string): string => redactSecrets(text, opts.env);
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    const text = redact(JSON.stringify(body));
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };

  const production = async (paths: string[]): Promise<{ html: string; traces: number; unmatched: number; problems: string[] }> => {
    if (!Array.isArray(paths) || paths.length === 0 || paths.length > 20) throw new HttpProblem(400, 'paths: expected 1..20 file paths inside the project');
    const files = await Promise.all(paths.map((p) => confinedPath(opts.projectDir, String(p))));
    const lines: RunEntry[] = [];
    const traceFiles: string[] = [];
    for (const f of files) {
      const verdicts = readVerdictFile(f);
      if (verdicts) lines.push(...verdicts);
      else traceFiles.push(f);
    }
    const problems: string[] = [];
    if (traceFiles.length) {
      // The app layer's scoring, as `score` does it: the cases, rules and toolsets `run` would pick.
      const ctx = { projectDir: opts.projectDir, cwd: opts.projectDir, env: opts.env, err: () => {}, warn: (w: string) => void problems.push(w) };
      const { summary } = await scoreTraces(ctx, traceFiles, { onLine: (l) => void lines.push(traceRunEntry(l)) });
      for (const f of summary.badFiles) problems.push(`${f}: nothing readable`);
    }
    const { doc, unmatched } = productionDocument(lines, paths.join(', '));
    return {
      html: renderReportView(doc, { ...(opts.traceUrl ? { traceUrl: opts.traceUrl } : {}), idPrefix: 'prod' }),
      traces: lines.length,
      unmatched,
      problems: problems.slice(0, 20),
    };
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const suiteMatch = /^\/api\/suites\/([^/]+)$/.exec(path);
    const runMatch = /^\/api\/runs\/([^/]+)(\/cancel)?$/.exec(path);
    const reportMatch = /^\/api\/reports\/([^/]+)$/.exec(path);
    if (path === '/api/info' && method === 'GET') {
      return json(res, 200, {
        version: opts.version ?? null,
        canRun: true,
        providers: opts.providers ?? [],
        defaults: opts.defaults ?? {},
        traceLinks: !!opts.traceUrl,
      });
    }
    if (path === '/api/suites' && method === 'GET') return json(res, 200, { suites: await listSuites(suitesOpts) });
    if (suiteMatch && method === 'GET') return json(res, 200, await suiteText(suitesOpts, decodeURIComponent(suiteMatch[1]!)));
    if (suiteMatch && method === 'PUT') {
      const body = await readJson(req);
      if (typeof body.text !== 'string') throw new HttpProblem(400, 'text: expected the suite as [[eval]] TOML');
      const result = await saveSuite(suitesOpts, decodeURIComponent(suiteMatch[1]!), body.text);
      return json(res, result.ok ? 200 : 422, result);
    }
    if (suiteMatch && method === 'DELETE') {
      await deleteSuite(suitesOpts, decodeURIComponent(suiteMatch[1]!));
      return json(res, 200, { ok: true });
    }
    if (path === '/api/validate' && method === 'POST') {
      const body = await readJson(req);
      if (typeof body.text !== 'string' || typeof body.name !== 'string') throw new HttpProblem(400, 'expected { name, text }');
      return json(res, 200, validateText(body.name || 'suite', body.text));
    }
    if (path === '/api/runs' && method === 'POST') return json(res, 202, runs.start(await readJson(req)));
    if (runMatch && !runMatch[2] && method === 'GET') return json(res, 200, runs.get(decodeURIComponent(runMatch[1]!)));
    if (runMatch && runMatch[2] && method === 'POST') return json(res, 200, runs.cancel(decodeURIComponent(runMatch[1]!)));
    if (path === '/api/reports' && method === 'GET') return json(res, 200, { reports: await listReports(opts.projectDir) });
    if (reportMatch && method === 'GET') {
      const doc = await readReport(opts.projectDir, decodeURIComponent(reportMatch[1]!));
      return json(res, 200, { html: renderReportView(doc, opts.traceUrl ? { traceUrl: opts.traceUrl } : {}) });
    }
    if (path === '/api/compare' && method === 'GET') {
      const a = param(url, 'a');
      const b = param(url, 'b');
      return json(res, 200, { html: renderCompareView({ doc: await readReport(opts.projectDir, a) }, { doc: await readReport(opts.projectDir, b) }) });
    }
    if (path === '/api/production' && method === 'POST') {
      const body = await readJson(req);
      return json(res, 200, await production(body.paths as string[]));
    }
    throw new HttpProblem(404, `no such endpoint: ${method} ${path}`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    securityHeaders(res);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://console.invalid');
    } catch {
      return sendJson(res, 400, { error: 'bad request line' });
    }
    const isApi = url.pathname.startsWith('/api/');
    try {
      guard(req, { token, allowedHosts }, isApi);
      if (isApi) return await api(req, res, url);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpProblem(405, 'method not allowed');
      if (url.pathname === '/' || url.pathname === '/index.html') return sendText(res, 200, 'text/html; charset=utf-8', CONSOLE_HTML);
      if (url.pathname === '/app.js') return sendText(res, 200, 'text/javascript; charset=utf-8', CONSOLE_SCRIPT);
      if (url.pathname === '/app.css') return sendText(res, 200, 'text/css; charset=utf-8', CONSOLE_STYLE);
      throw new HttpProblem(404, 'not found');
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpProblem) return json(res, err.status, { error: err.message });
      // Bad input on disk (a suites file that does not load, a bad runspec.toml): the CLI's one-line message.
      // A file that cannot be written (disk full, read-only): 507, the file and cause named, the old file intact.
      if (isRunspecError(err)) return json(res, err.code === 'OUTPUT' ? 507 : 422, { error: err.hint ? `${err.message} (hint: ${err.hint})` : err.message });
      const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      return json(res, 500, { error: message });
    }
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, bindHost, () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  allowedHosts = hostNames(bindHost, port);
  const shown = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  const origin = `http://${shown}:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    token,
    async close() {
      await runs.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
