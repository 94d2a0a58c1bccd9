// The few GitHub REST calls the CI commands make (the GitHub Action's steps): the base branch's last
// successful workflow run, and one sticky pull-request comment found again by a marker across comment pages.
// Everything goes through the one HTTP client (core/http-client.ts): its retry policy, TLS, size limit and
// redaction. The token comes from the environment only and is never printed.
import { createHttpClient, type HttpClient, type HttpFailure } from '../core/http-client.js';
import { RunspecError } from '../errors.js';
import { isRecord } from '../core/is-record.js';

/** What the Actions runner tells a step, read from its environment variables. */
export interface GitHubEnv {
  /** GITHUB_API_URL (GitHub Enterprise has its own). @default https://api.github.com */
  apiUrl: string;
  /** GITHUB_REPOSITORY: `owner/repo`. */
  repository: string;
  /** GITHUB_TOKEN (the action passes `github.token`). */
  token: string | undefined;
}

export interface GitHubApi {
  /** The newest successful run of `workflow` (file name or id) on `branch`, or undefined. */
  lastSuccessfulRun(workflow: string, branch: string): Promise<{ id: number; url?: string; headSha?: string } | undefined>;
  /**
   * Create or update the one comment holding `marker` on pull request `pr`. `forbidden` when the token may
   * not write (a fork's read-only token answers 403).
   */
  upsertComment(
    pr: number,
    marker: string,
    body: string,
  ): Promise<{ action: 'created' | 'updated'; id: number; url?: string } | { action: 'forbidden'; message: string }>;
  close(): Promise<void>;
}

/** The next page of a GitHub listing, from its `Link` header (`<url>; rel="next"`). */
export function nextPageUrl(link: string | string[] | undefined): string | undefined {
  const text = Array.isArray(link) ? link.join(',') : link;
  if (!text) return undefined;
  for (const part of text.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

/** Comment pages read at most (100 comments a page): a pull request with 5,000 comments is not searched further. */
const MAX_COMMENT_PAGES = 50;

export function createGitHubApi(env: GitHubEnv, opts: { timeoutMs?: number; onRetry?: (line: string) => void } = {}): GitHubApi {
  if (!env.token) {
    throw new RunspecError('CONFIG', 'GITHUB_TOKEN is not set', {
      hint: 'pass `github-token: ${{ github.token }}` to the action, or set GITHUB_TOKEN for the step',
    });
  }
  const http: HttpClient = createHttpClient({
    label: 'github',
    timeoutMs: opts.timeoutMs ?? 30_000,
    attempts: 3,
    secrets: [env.token],
    ...(opts.onRetry ? { onRetry: (e) => opts.onRetry!(`retrying: github: ${e.reason}`) } : {}),
  });
  const api = env.apiUrl.replace(/\/+$/, '');
  const [owner, repo] = env.repository.split('/');
  if (!owner || !repo) throw new RunspecError('CONFIG', `GITHUB_REPOSITORY: expected owner/repo (got ${JSON.stringify(env.repository)})`);
  const base = `${api}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  const headers = {
    accept: 'application/vnd.github+json',
    authorization: `Bearer ${env.token}`,
    'x-github-api-version': '2022-11-28',
    'user-agent': 'runspec-eval',
    'content-type': 'application/json',
  };
  const fail = (f: HttpFailure): never => {
    throw new RunspecError('COLLECTOR', http.describe(f), { hint: 'check GITHUB_TOKEN, GITHUB_REPOSITORY and GITHUB_API_URL' });
  };

  return {
    async lastSuccessfulRun(workflow, branch) {
      const url = `${base}/actions/workflows/${encodeURIComponent(workflow)}/runs?branch=${encodeURIComponent(branch)}&status=success&per_page=1`;
      const r = await http.json({ method: 'GET', url, headers }, (j) => isRecord(j) && Array.isArray(j.workflow_runs));
      if (!r.ok) {
        // No such workflow on the base branch yet (a new workflow): no baseline, not an error.
        if (r.kind === 'status' && r.status === 404) return undefined;
        return fail(r);
      }
      const run = (r.json as { workflow_runs: unknown[] }).workflow_runs[0];
      if (!isRecord(run) || typeof run.id !== 'number') return undefined;
      return {
        id: run.id,
        ...(typeof run.html_url === 'string' ? { url: run.html_url } : {}),
        ...(typeof run.head_sha === 'string' ? { headSha: run.head_sha } : {}),
      };
    },

    async upsertComment(pr, marker, body) {
      let url: string | undefined = `${base}/issues/${pr}/comments?per_page=100`;
      let found: number | undefined;
      for (let page = 0; url && page < MAX_COMMENT_PAGES && found === undefined; page++) {
        const r = await http.send({ method: 'GET', url, headers });
        if (!r.ok) return fail(r);
        let comments: unknown;
        try {
          comments = JSON.parse(r.text);
        } catch {
          comments = undefined;
        }
        if (!Array.isArray(comments))
          throw new RunspecError('COLLECTOR', `github: GET ${base}/issues/${pr}/comments answered a body that is not a list of comments`);
        for (const c of comments) if (isRecord(c) && typeof c.id === 'number' && typeof c.body === 'string' && c.body.includes(marker)) found = c.id;
        url = nextPageUrl(r.headers.link);
      }
      const payload = JSON.stringify({ body });
      const write =
        found === undefined
          ? { method: 'POST' as const, url: `${base}/issues/${pr}/comments` }
          : { method: 'PATCH' as const, url: `${base}/issues/comments/${found}` };
      const w = await http.json({ ...write, headers, body: payload }, (j) => isRecord(j) && typeof j.id === 'number');
      if (!w.ok) {
        if (w.kind === 'status' && (w.status === 403 || w.status === 404)) return { action: 'forbidden', message: http.describe(w) };
        return fail(w);
      }
      const reply = w.json as { id: number; html_url?: unknown };
      return { action: found === undefined ? 'created' : 'updated', id: reply.id, ...(typeof reply.html_url === 'string' ? { url: reply.html_url } : {}) };
    },

    close: () => http.close(),
  };
}
