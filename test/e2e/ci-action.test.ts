import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { restartSuite, tempProject } from './_helpers.js';

// The GitHub Action's steps as the runner runs them: each step is one of our commands with the runner's
// variables set, against a loopback server speaking GitHub's REST API (comment pages with a Link header,
// create, update, a fork's read-only token), with a fake event payload.

const IDS = ['c1', 'c2', 'c3'];
const TOKEN = 'ghs_testtoken123456';
const MARKER = '<!-- runspec-eval:pr-comment -->';

function script(wrong: string[]): string {
  return JSON.stringify({
    cases: Object.fromEntries(
      IDS.map((id, i) => [
        id,
        [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: wrong.includes(id) ? 'other' : `svc${i}` } }] }],
      ]),
    ),
  });
}

describe('the GitHub Action steps', { timeout: 120_000 }, () => {
  const project = tempProject();
  let gh: FakeGitHub;
  const event = (pr: number) => {
    const file = join(project.dir, `event-${pr}.json`);
    writeFileSync(file, JSON.stringify({ pull_request: { number: pr, base: { ref: 'main' }, head: { ref: 'feature' } } }));
    return file;
  };
  const runnerEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    HOME: project.dir,
    GITHUB_API_URL: gh.url,
    GITHUB_REPOSITORY: 'acme/agent',
    GITHUB_TOKEN: TOKEN,
    GITHUB_WORKFLOW_REF: 'acme/agent/.github/workflows/evals.yml@refs/pull/7/merge',
    GITHUB_OUTPUT: join(project.dir, 'output.txt'),
    GITHUB_STEP_SUMMARY: join(project.dir, 'summary.md'),
    ...extra,
  });
  const run = (args: string[], env: Record<string, string>) => runCli(['--path', project.dir, ...args], { env, cwd: project.dir, spawn: true });

  beforeAll(async () => {
    gh = await startFakeGitHub({ readOnlyToken: 'ghs_forktoken' });
    project.write('evals/fleet.toml', restartSuite(IDS));
    project.write('base.mock.json', script([]));
    project.write('head.mock.json', script(['c2']));
    // The base branch's results, as the artifact download leaves them.
    const base = await run(
      ['ci', 'run', 'evals/fleet.toml', '--provider', 'mock', '--script', 'base.mock.json', '--no-telemetry', '--dir', '.runspec/baseline'],
      { HOME: project.dir },
    );
    expect(base.exitCode, base.stderr).toBe(0);
  });
  afterAll(async () => {
    await gh.close();
    project.cleanup();
  });

  it('ci run writes results, JUnit, HTML and the job summary, and sets the outputs', async () => {
    const r = await run(['ci', 'run', 'evals/fleet.toml', '--provider', 'mock', '--script', 'head.mock.json', '--no-telemetry'], runnerEnv());
    expect(r.exitCode).toBe(1);
    for (const f of ['results.json', 'junit.xml', 'report.html', 'summary.md']) expect(existsSync(join(project.dir, '.runspec/ci', f)), f).toBe(true);
    expect(readFileSync(join(project.dir, '.runspec/ci/junit.xml'), 'utf8')).toContain('<testsuite');
    expect(readFileSync(join(project.dir, 'summary.md'), 'utf8')).toContain('c2');
    expect(readFileSync(join(project.dir, 'output.txt'), 'utf8')).toMatch(/^results=.*\.runspec\/ci\/results\.json$/m);
  });

  it('ci baseline finds the base branch last successful run of this workflow', async () => {
    gh.runs.set('evals.yml', [
      { id: 4242, branch: 'main' },
      { id: 4100, branch: 'main' },
    ]);
    const r = await run(['ci', 'baseline'], runnerEnv({ GITHUB_EVENT_PATH: event(7) }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('baseline: run 4242 of evals.yml on main');
    expect(readFileSync(join(project.dir, 'output.txt'), 'utf8')).toMatch(/^found=true\nrun-id=4242$/m);
    const req = gh.requests.find((q) => q.path.endsWith('/actions/workflows/evals.yml/runs'))!;
    expect(Object.fromEntries(req.query)).toMatchObject({ branch: 'main', status: 'success' });
    expect(req.headers['x-github-api-version']).toBe('2022-11-28');
    const none = await run(['ci', 'baseline', '--workflow', 'other.yml'], runnerEnv({ GITHUB_EVENT_PATH: event(7) }));
    expect(none.exitCode).toBe(0);
    expect(none.stderr).toContain('no successful run of other.yml on main');
    expect(readFileSync(join(project.dir, 'output.txt'), 'utf8')).toMatch(/^found=false$/m);
  });

  it('ci comment creates one comment, finds it again across two pages and updates it, and exits 1 on a regression', async () => {
    // Four comments of other people: ours will be on the second page.
    gh.comments.set(
      7,
      [1, 2, 3, 4].map((i) => ({ id: i, body: `review comment ${i}` })),
    );
    const args = ['ci', 'comment', '--head', '.runspec/ci/results.json', '--base', '.runspec/baseline/results.json'];
    const first = await run(args, runnerEnv({ GITHUB_EVENT_PATH: event(7) }));
    expect(first.exitCode).toBe(1);
    expect(first.stderr).toContain('comment: created on #7');
    const mine = gh.comments.get(7)!.filter((c) => c.body.includes(MARKER));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toMatch(/1 regressed, 0 fixed/);
    expect(mine[0]!.body).toMatch(/\| c2 \| pass → fail \|/);
    const second = await run(args, runnerEnv({ GITHUB_EVENT_PATH: event(7) }));
    expect(second.stderr).toContain(`comment: updated on #7`);
    expect(gh.comments.get(7)!.filter((c) => c.body.includes(MARKER))).toHaveLength(1);
    // The second listing followed the Link header to page 2, where the comment is.
    expect(gh.requests.filter((q) => q.method === 'GET' && q.path === '/repos/acme/agent/issues/7/comments').map((q) => q.query.get('page'))).toContain('2');
    expect(gh.requests.filter((q) => q.method === 'PATCH')).toHaveLength(1);
    expect(readFileSync(join(project.dir, 'output.txt'), 'utf8')).toMatch(/^regressed=true$/m);
    expect(first.stderr + second.stderr).not.toContain(TOKEN);
  });

  it("a fork's read-only token writes the summary and a warning instead of failing", async () => {
    const summary = join(project.dir, 'fork-summary.md');
    const r = await run(
      ['ci', 'comment', '--head', '.runspec/ci/results.json', '--base', '.runspec/baseline/results.json', '--fail-on', 'none'],
      runnerEnv({ GITHUB_EVENT_PATH: event(9), GITHUB_TOKEN: 'ghs_forktoken', GITHUB_STEP_SUMMARY: summary }),
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^::warning::runspec-eval could not comment on #9 .*403.*the diff is in the job summary$/m);
    expect(readFileSync(summary, 'utf8')).toContain('pass → fail');
    expect(gh.comments.get(9)).toBeUndefined();
  });

  it('without a baseline artifact the comment shows this run alone', async () => {
    mkdirSync(join(project.dir, 'empty'), { recursive: true });
    const r = await run(['ci', 'comment', '--head', '.runspec/ci/results.json', '--base', 'empty/results.json'], runnerEnv({ GITHUB_EVENT_PATH: event(11) }));
    expect(r.exitCode).toBe(0);
    expect(gh.comments.get(11)![0]!.body).toContain('3 cases, 1 below their threshold');
  });

  it('with comment "false" the action still gates: the step it runs exits 1 on a regression and posts nothing', async () => {
    const steps = actionSteps().filter((s) => s.run?.includes('RUNSPEC_EVAL') && /ci (diff|comment)/.test(s.run) && stepRuns(s.if, { comment: 'false' }));
    expect(steps.map((s) => /ci \w+/.exec(s.run!)![0])).toEqual(['ci diff']);
    const posts = gh.requests.filter((q) => q.method !== 'GET').length;
    const summary = join(project.dir, 'nocomment-summary.md');
    const r = await run(commandOf(steps[0]!, { INPUT_FAIL_ON: 'any' }), runnerEnv({ GITHUB_EVENT_PATH: event(13), GITHUB_STEP_SUMMARY: summary }));
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^diff: 1 case\(s\) regressed against the baseline; the diff is in the job summary$/m);
    expect(readFileSync(summary, 'utf8')).toMatch(/\| c2 \| pass → fail \|/);
    expect(readFileSync(join(project.dir, 'output.txt'), 'utf8').trim().split('\n').at(-1)).toBe('regressed=true');
    expect(gh.comments.get(13)).toBeUndefined();
    expect(gh.requests.filter((q) => q.method !== 'GET')).toHaveLength(posts);
    // --fail-on none: the same diff, no failure.
    const lenient = await run(commandOf(steps[0]!, { INPUT_FAIL_ON: 'none' }), runnerEnv({ GITHUB_EVENT_PATH: event(13), GITHUB_STEP_SUMMARY: summary }));
    expect(lenient.exitCode, lenient.stderr).toBe(0);
    // With comment "true" the comment step runs instead (it applies fail-on itself; see above).
    expect(
      actionSteps()
        .filter((s) => s.run?.includes('RUNSPEC_EVAL') && /ci (diff|comment)/.test(s.run) && stepRuns(s.if, { comment: 'true' }))
        .map((s) => /ci \w+/.exec(s.run!)![0]),
    ).toEqual(['ci comment']);
  });

  it('action.yml runs exactly our commands in its run steps', () => {
    const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as { runs: { using: string; steps: Array<{ run?: string; uses?: string }> } };
    expect(action.runs.using).toBe('composite');
    const commands = action.runs.steps.flatMap((s) => (s.run ? s.run.split('\n').filter((l) => l.includes('RUNSPEC_EVAL') || l.includes('action-setup')) : []));
    expect(commands.map((l) => /(ci \w+|action-setup\.sh)/.exec(l)?.[1])).toEqual(['action-setup.sh', 'ci run', 'ci baseline', 'ci diff', 'ci comment']);
    expect(action.runs.steps.flatMap((s) => (s.uses ? [s.uses] : []))).toEqual(['actions/upload-artifact@v4', 'actions/download-artifact@v4']);
  });
});

interface ActionStep {
  if?: string;
  run?: string;
  uses?: string;
}

function actionSteps(): ActionStep[] {
  return (parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as { runs: { steps: ActionStep[] } }).runs.steps;
}

/**
 * Whether a step's `if:` holds on a pull_request event with these inputs. Only the terms action.yml uses
 * are understood; any other term fails the test, so a new condition is not silently taken as true.
 */
function stepRuns(condition: string | undefined, inputs: Record<string, string>): boolean {
  if (condition === undefined) return true;
  return condition.split('&&').every((raw) => {
    const term = raw.trim();
    if (term === 'always()') return true;
    const m = /^([\w.-]+) (==|!=) '([^']*)'$/.exec(term);
    if (!m) throw new Error(`action.yml: an if: term this test does not understand: ${term}`);
    const [, name, op, want] = m;
    const value = name === 'github.event_name' ? 'pull_request' : name!.startsWith('inputs.') ? inputs[name!.slice('inputs.'.length)] : undefined;
    if (value === undefined) throw new Error(`action.yml: an if: term this test does not understand: ${term}`);
    return op === '==' ? value === want : value !== want;
  });
}

/** A step's `"$RUNSPEC_EVAL" ...` line as CLI arguments, with its environment variables filled in. */
function commandOf(step: ActionStep, vars: Record<string, string>): string[] {
  const line = step.run!.split('\n').find((l) => l.includes('RUNSPEC_EVAL'))!;
  return line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((t) => t.replace(/^"\$(\w+)"$/, (_m, v: string) => vars[v] ?? `$${v}`));
}
