// The steps of the GitHub Action (action.yml at the repository root), as commands that run anywhere:
// `ci run` writes the results, JUnit, HTML and a step summary; `ci baseline` finds the base branch's last
// successful run (whose results artifact the action downloads); `ci diff` diffs the run against that
// baseline (the job summary, and exit 1 on a regression); `ci comment` does the same and keeps one sticky
// pull-request comment. They honour the runner's variables (GITHUB_API_URL,
// GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT) and work without
// them (outputs and summary are then skipped), so they are tested against a local server speaking GitHub's API.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEnv, type Env } from '../config/env.js';
import { RunspecError } from '../errors.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { isRecord } from '../core/is-record.js';
import { readResultsDocument } from '../report/results-docs.js';
import { renderDocument } from '../report/render.js';
import { renderDiff, type DiffFailOn } from '../report/diff.js';
import type { ResultsDocument } from '../report/results.js';
import { diffResultFiles, readBaselineDocument } from './diff.js';
import { createGitHubApi, type GitHubApi } from './github.js';
import type { AppContext } from './context.js';

/** Marks our pull-request comment, so a later run updates it instead of adding another. */
export const PR_COMMENT_MARKER = '<!-- runspec-eval:pr-comment -->';

/** Append `name=value` lines to GITHUB_OUTPUT (when the runner set it). */
function setOutputs(env: Env, outputs: Record<string, string>): void {
  const file = env.get('GITHUB_OUTPUT');
  if (!file) return;
  appendFileSync(
    file,
    Object.entries(outputs)
      .map(([k, v]) => `${k}=${v.replace(/[\r\n]+/g, ' ')}\n`)
      .join(''),
  );
}

/** Append Markdown to the job's summary page (when the runner set GITHUB_STEP_SUMMARY). */
function appendSummary(env: Env, markdown: string): void {
  const file = env.get('GITHUB_STEP_SUMMARY');
  if (file) appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
}

/** The webhook payload of the event that started the workflow (GITHUB_EVENT_PATH), or {}. */
function eventPayload(env: Env): Record<string, unknown> {
  const file = env.get('GITHUB_EVENT_PATH');
  if (!file) return {};
  try {
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isRecord(json) ? json : {};
  } catch (err) {
    throw new RunspecError('CONFIG', `GITHUB_EVENT_PATH: ${file}: cannot read the event payload (${err instanceof Error ? err.message : String(err)})`);
  }
}

function pullRequestOf(event: Record<string, unknown>): { number: number; baseRef?: string } | undefined {
  const pr = event.pull_request;
  if (!isRecord(pr) || typeof pr.number !== 'number') return undefined;
  const base = isRecord(pr.base) && typeof pr.base.ref === 'string' ? pr.base.ref : undefined;
  return { number: pr.number, ...(base ? { baseRef: base } : {}) };
}

function githubApi(ctx: AppContext, env: Env): GitHubApi {
  return createGitHubApi(
    { apiUrl: env.get('GITHUB_API_URL') ?? 'https://api.github.com', repository: env.get('GITHUB_REPOSITORY') ?? '', token: env.get('GITHUB_TOKEN') },
    { onRetry: (line) => ctx.err(line) },
  );
}

/**
 * `ci run`'s artifacts from a finished run's results file: JUnit XML, the HTML report and a Markdown
 * summary in `dir`, the summary appended to the job's summary page, the paths as step outputs.
 */
export function writeCiArtifacts(ctx: AppContext, opts: { resultsFile: string; dir: string }): { junit: string; html: string; summary: string } {
  const env = readEnv(ctx.env);
  const doc = readResultsDocument(opts.resultsFile);
  mkdirSync(opts.dir, { recursive: true });
  const junit = join(opts.dir, 'junit.xml');
  const html = join(opts.dir, 'report.html');
  const summary = join(opts.dir, 'summary.md');
  const md = renderDocument(doc, 'md');
  writeFileAtomic(junit, renderDocument(doc, 'junit'));
  writeFileAtomic(html, renderDocument(doc, 'html'));
  writeFileAtomic(summary, md);
  appendSummary(env, md);
  setOutputs(env, { results: opts.resultsFile, junit, html });
  return { junit, html, summary };
}

/**
 * `ci baseline`: the base branch's last successful run of this workflow, whose results artifact is the
 * baseline. The branch: `--branch`, else the pull request's base, else GITHUB_BASE_REF; the workflow:
 * `--workflow`, else the file of GITHUB_WORKFLOW_REF. Outputs `found` and `run-id`.
 */
export async function ciBaseline(ctx: AppContext, opts: { workflow?: string; branch?: string }): Promise<{ runId?: number; line: string }> {
  const env = readEnv(ctx.env);
  const event = eventPayload(env);
  const branch = opts.branch ?? pullRequestOf(event)?.baseRef ?? env.get('GITHUB_BASE_REF');
  if (!branch) throw new RunspecError('USAGE', 'ci baseline: no base branch', { hint: 'run it on a pull_request event, or pass --branch main' });
  const workflowRef = env.get('GITHUB_WORKFLOW_REF');
  const workflow = opts.workflow ?? (workflowRef ? /\/([^/@]+)@/.exec(workflowRef)?.[1] : undefined);
  if (!workflow)
    throw new RunspecError('USAGE', 'ci baseline: no workflow', {
      hint: 'pass --workflow evals.yml (the file under .github/workflows/ that uploads the results)',
    });
  const api = githubApi(ctx, env);
  try {
    const run = await api.lastSuccessfulRun(workflow, branch);
    setOutputs(env, { found: run ? 'true' : 'false', 'run-id': run ? String(run.id) : '' });
    return run
      ? { runId: run.id, line: `baseline: run ${run.id} of ${workflow} on ${branch}${run.url ? ` (${run.url})` : ''}` }
      : { line: `baseline: no successful run of ${workflow} on ${branch} yet; the comment will show this run alone` };
  } finally {
    await api.close();
  }
}

function headSummary(doc: ResultsDocument): string {
  const it = doc.iterations[doc.iterations.length - 1];
  const cases = Object.values(it?.cases ?? {});
  const below = cases.filter((c) => !c.meets_threshold).length;
  return `**${cases.length} cases, ${below} below their threshold** — no baseline from the base branch yet; the next run on it becomes the baseline.`;
}

/**
 * `ci diff`: the diff of `head` against `base` (a results file or a directory; absent: no baseline yet) in
 * the job summary, the `regressed` output set, and the exit code: 1 when a case regressed under `failOn`.
 * The action's gate when it does not comment; `ci comment` does the same and then comments.
 */
export function ciDiff(ctx: AppContext, opts: { head: string; base?: string; failOn?: DiffFailOn }): { exitCode: 0 | 1; lines: string[]; comment: string } {
  const env = readEnv(ctx.env);
  let body: string;
  let exitCode: 0 | 1 = 0;
  let regressed: string[] = [];
  const hasBase = opts.base !== undefined && existsSync(opts.base) && hasResults(opts.base, opts.head);
  if (hasBase) {
    const { diff, exitCode: code } = diffResultFiles({ base: opts.base!, head: opts.head, ...(opts.failOn ? { failOn: opts.failOn } : {}) });
    body = renderDiff(diff, 'md');
    exitCode = code;
    regressed = diff.regressions;
  } else {
    body = `${headSummary(readResultsDocument(opts.head))}\n`;
  }
  const comment = `${PR_COMMENT_MARKER}\n### runspec-eval\n\n${body}`;
  appendSummary(env, comment);
  setOutputs(env, { regressed: regressed.length > 0 ? 'true' : 'false' });
  const line = !hasBase
    ? 'diff: no baseline; the job summary shows this run alone'
    : regressed.length > 0
      ? `diff: ${regressed.length} case(s) regressed against the baseline${exitCode === 0 ? ' (not failing: --fail-on)' : ''}; the diff is in the job summary`
      : 'diff: nothing regressed against the baseline; the diff is in the job summary';
  return { exitCode, lines: [line], comment };
}

/**
 * `ci comment`: {@link ciDiff}, then the diff as one sticky pull-request comment. A token that may not
 * comment (a fork's) gets the summary and a warning, not a failure. Returns ciDiff's exit code.
 */
export async function ciComment(ctx: AppContext, opts: { head: string; base?: string; failOn?: DiffFailOn }): Promise<{ exitCode: 0 | 1; lines: string[] }> {
  const env = readEnv(ctx.env);
  const { exitCode, comment } = ciDiff(ctx, opts);
  const lines: string[] = [];
  const pr = pullRequestOf(eventPayload(env));
  if (!pr) {
    lines.push('comment: not a pull request event; the diff is in the job summary');
    return { exitCode, lines };
  }
  const api = githubApi(ctx, env);
  try {
    const r = await api.upsertComment(pr.number, PR_COMMENT_MARKER, comment);
    if (r.action === 'forbidden') {
      // A fork's token is read-only: the summary holds the diff; say so where the log shows warnings.
      lines.push(
        `::warning::runspec-eval could not comment on #${pr.number} (the token may not write, as on a fork): ${r.message}; the diff is in the job summary`,
      );
    } else {
      lines.push(`comment: ${r.action} on #${pr.number}${r.url ? ` (${r.url})` : ''}`);
      setOutputs(env, { 'comment-id': String(r.id) });
    }
  } finally {
    await api.close();
  }
  return { exitCode, lines };
}

/** Whether `base` holds a results document other than `head` (a download may have found none). */
function hasResults(base: string, head: string): boolean {
  try {
    readBaselineDocument(base, head);
    return true;
  } catch {
    return false;
  }
}
