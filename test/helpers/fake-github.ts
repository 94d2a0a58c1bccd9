import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback server speaking the parts of GitHub's REST API the CI commands use: workflow runs, issue
// comments listed in pages with a Link header, comment create (201) and update (200), and 403 for a token
// that may not write (a fork's). It keeps what it was sent.

export interface FakeGitHubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  json?: unknown;
}

export interface FakeGitHub {
  url: string;
  requests: FakeGitHubRequest[];
  /** Comments of each pull request, in order. */
  comments: Map<number, Array<{ id: number; body: string }>>;
  /** Successful runs by workflow file: newest first. */
  runs: Map<string, Array<{ id: number; branch: string }>>;
  close(): Promise<void>;
}

/** Comments per page (GitHub's maximum is 100; small here so two pages are easy to make). */
const PAGE = 3;

export async function startFakeGitHub(opts: { owner?: string; repo?: string; readOnlyToken?: string } = {}): Promise<FakeGitHub> {
  const base = `/repos/${opts.owner ?? 'acme'}/${opts.repo ?? 'agent'}`;
  const requests: FakeGitHubRequest[] = [];
  const comments = new Map<number, Array<{ id: number; body: string }>>();
  const runs = new Map<string, Array<{ id: number; branch: string }>>();
  let nextId = 1000;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: FakeGitHubRequest = { method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers };
      if (text) entry.json = JSON.parse(text) as unknown;
      requests.push(entry);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) return send(401, { message: 'Requires authentication' });
      const readOnly = opts.readOnlyToken !== undefined && req.headers.authorization === `Bearer ${opts.readOnlyToken}`;
      let m = new RegExp(`^${base}/actions/workflows/([^/]+)/runs$`).exec(u.pathname);
      if (m && req.method === 'GET') {
        const list = runs.get(decodeURIComponent(m[1]!));
        if (!list) return send(404, { message: 'Not Found' });
        const branch = u.searchParams.get('branch');
        const found = list.filter((r) => !branch || r.branch === branch);
        return send(200, {
          total_count: found.length,
          workflow_runs: found
            .slice(0, Number(u.searchParams.get('per_page') ?? 30))
            .map((r) => ({ id: r.id, head_branch: r.branch, conclusion: 'success', html_url: `https://github.test/runs/${r.id}` })),
        });
      }
      m = new RegExp(`^${base}/issues/(\\d+)/comments$`).exec(u.pathname);
      if (m) {
        const pr = Number(m[1]);
        const list = comments.get(pr) ?? [];
        if (req.method === 'GET') {
          const page = Number(u.searchParams.get('page') ?? '1');
          const slice = list.slice((page - 1) * PAGE, page * PAGE);
          const headers: Record<string, string> = {};
          if (page * PAGE < list.length)
            headers.link = `<http://${req.headers.host}${u.pathname}?per_page=100&page=${page + 1}>; rel="next", <http://${req.headers.host}${u.pathname}?page=1>; rel="first"`;
          return send(
            200,
            slice.map((c) => ({ id: c.id, body: c.body, user: { login: 'someone' } })),
            headers,
          );
        }
        if (req.method === 'POST') {
          if (readOnly) return send(403, { message: 'Resource not accessible by integration' });
          const body = (entry.json as { body: string }).body;
          const c = { id: nextId++, body };
          comments.set(pr, [...list, c]);
          return send(201, { id: c.id, body, html_url: `https://github.test/pr/${pr}#issuecomment-${c.id}` });
        }
      }
      m = new RegExp(`^${base}/issues/comments/(\\d+)$`).exec(u.pathname);
      if (m && req.method === 'PATCH') {
        if (readOnly) return send(403, { message: 'Resource not accessible by integration' });
        const id = Number(m[1]);
        for (const list of comments.values()) {
          const c = list.find((x) => x.id === id);
          if (c) {
            c.body = (entry.json as { body: string }).body;
            return send(200, { id, body: c.body, html_url: `https://github.test/c/${id}` });
          }
        }
        return send(404, { message: 'Not Found' });
      }
      send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    comments,
    runs,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
