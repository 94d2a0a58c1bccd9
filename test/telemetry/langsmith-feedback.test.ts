import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildLangSmithFeedback, postFeedbackForTargets, postLangSmithFeedback } from '../../src/telemetry/langsmith.js';
import { langsmithRunId } from '../../src/core/trace-link.js';
import { retryDelayMs } from '../../src/core/retry.js';
import { startFakeLangSmith, type FakeLangSmith } from '../helpers/fake-langsmith.js';
import { closedPort } from '../helpers/ports.js';

const KEY = 'lsv2-test-secret-key';
const sorted = (xs: string[]): string[] => [...xs].sort((a, b) => a.localeCompare(b));

function sink(): { write(s: string): boolean; text: () => string } {
  let buf = '';
  return { write: (s: string) => ((buf += s), true), text: () => buf };
}

async function cli(argv: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const out = sink();
  const code = await main({ argv, cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, NO_COLOR: '1', ...env }, stdout: out as never, stderr: out as never });
  return { code, out: out.text() };
}

const dir = mkdtempSync(join(tmpdir(), 'runspec-langsmith-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let ls: FakeLangSmith | undefined;
afterEach(async () => {
  await ls?.close();
  ls = undefined;
});

writeFileSync(
  join(dir, 'evals.toml'),
  `[[eval]]
id = "status"
prompt = "is nginx up?"
expect_tool = "service-status"

[[eval]]
id = "restart"
prompt = "restart nginx"
expect_tool = "restart-service"
`,
);
writeFileSync(
  join(dir, 'script.json'),
  JSON.stringify({ cases: { status: [{ toolCalls: [{ name: 'service-status', arguments: { service: 'nginx' } }] }], restart: [{ text: 'Which host?' }] } }),
);

describe('LangSmith run ids', () => {
  it.each([
    ['1a2b3c4d5e6f7a8b', '00000000-0000-0000-1a2b-3c4d5e6f7a8b'],
    ['FFFFFFFFFFFFFFFF', '00000000-0000-0000-ffff-ffffffffffff'],
    ['0000000000000001', '00000000-0000-0000-0000-000000000001'],
  ])('span %s is run %s', (span, run) => {
    expect(langsmithRunId(span)).toBe(run);
  });

  it('sends no feedback for what is not an 8-byte span id', () => {
    const bad = (spanId: string) => buildLangSmithFeedback([{ spanId, caseId: 'c', sample: 0, error: { code: 'PROVIDER', message: 'down' } }]);
    expect(bad('1a2b')).toEqual([]);
    expect(bad('zz2b3c4d5e6f7a8b')).toEqual([]);
    expect(bad('1A2B3C4D5E6F7A8B')[0]!.run_id).toBe('00000000-0000-0000-1a2b-3c4d5e6f7a8b');
  });
});

describe('LangSmith feedback', () => {
  it("run: posts each verdict on the root span's derived run id once ingest catches up", async () => {
    ls = await startFakeLangSmith({ apiKey: KEY, lagRequests: 2 });
    const project = join(dir, 'p1');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    writeFileSync(join(project, 'runspec.toml'), '[telemetry.langsmith]\nfeedback = true\nbackoff_ms = 5\n');
    const r = await cli(
      ['--path', project, 'run', join(dir, 'evals.toml'), '--provider', 'mock', '--script', join(dir, 'script.json'), '--out', join(dir, 'res.json')],
      dir,
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ls.url}/otel/v1/traces`,
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-api-key=${KEY},Langsmith-Project=runspec`,
        LANGSMITH_ENDPOINT: ls.url,
        LANGSMITH_API_KEY: KEY,
      },
    );
    expect(r.code).toBe(1); // restart is a no_run: feedback never changes the exit code
    const roots = ls.spans.filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(2);
    const accepted = ls.accepted();
    expect(sorted(accepted.map((f) => String(f.run_id)))).toEqual(sorted(roots.map((s) => `00000000-0000-0000-${s.spanId.slice(0, 4)}-${s.spanId.slice(4)}`)));
    // The simulated ingest lag: each run's first two posts were 404s, then accepted.
    expect(ls.feedback.filter((f) => f.status === 404)).toHaveLength(4);
    expect(ls.feedback.every((f) => f.headers['x-api-key'] === KEY && f.path === '/feedback')).toBe(true);
    const byValue = Object.fromEntries(accepted.map((f) => [f.value, f]));
    expect(byValue.pass).toMatchObject({
      key: 'runspec.tool_selection',
      score: 1,
      feedback_source: { type: 'api', metadata: { case_id: 'status', sample: 0 } },
    });
    expect(byValue.no_run).toMatchObject({ key: 'runspec.tool_selection', score: 0 });
    expect(String(byValue.no_run!.comment)).toMatch(/no runnable call/);
    expect(r.out).not.toContain(KEY);
  });

  it('score --annotate --langsmith-feedback: a self-hosted endpoint (/api/v1) and traces exported elsewhere', async () => {
    ls = await startFakeLangSmith({ apiKey: KEY, prefix: '/api/v1' });
    const project = join(dir, 'p2');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    // Traces to a file first, then shipped to the fake as OTLP JSON (as a LangSmith-bound pipeline would).
    const run = await cli(
      ['--path', project, 'run', join(dir, 'evals.toml'), '--provider', 'mock', '--script', join(dir, 'script.json'), '--out', join(dir, 'res2.json')],
      dir,
    );
    expect(run.code).toBe(1);
    const traceDir = join(project, '.runspec', 'traces');
    const file = join(traceDir, readdirSync(traceDir)[0]!);
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const res = await fetch(`${ls.url.replace('/api/v1', '')}/otel/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        body: line,
      });
      expect(res.status).toBe(200);
    }
    const r = await cli(['--path', project, 'score', file, '--cases', join(dir, 'evals.toml'), '--annotate', '--langsmith-feedback'], dir, {
      LANGSMITH_ENDPOINT: ls.url,
      LANGSMITH_API_KEY: KEY,
    });
    expect(r.out).not.toContain('warning');
    const roots = ls.spans.filter((s) => !s.parentSpanId);
    expect(sorted(ls.accepted().map((f) => String(f.run_id)))).toEqual(
      sorted(roots.map((s) => `00000000-0000-0000-${s.spanId.slice(0, 4)}-${s.spanId.slice(4)}`)),
    );
    expect(ls.feedback.every((f) => f.path === '/api/v1/feedback')).toBe(true);
    expect(r.out).not.toContain(KEY);
  });

  it('config shows the feedback settings with the key as set, never its value', async () => {
    const project = join(dir, 'p3');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    writeFileSync(join(project, 'runspec.toml'), '[telemetry.langsmith]\nfeedback = true\nmax_wait_ms = 5000\n');
    const r = await cli(['--path', project, 'config'], dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}/otel`,
      LANGSMITH_API_KEY: KEY,
    });
    expect(r.out).toMatch(/telemetry\.langsmith\.api_key\s+LANGSMITH_API_KEY \(set\)/);
    expect(r.out).toMatch(/telemetry\.langsmith\.max_wait_ms\s+5000\s+\(file\)/);
    expect(r.out).not.toContain(KEY);
  });

  it('gives up after max wait with one warning, and stops at once on a bad key', async () => {
    ls = await startFakeLangSmith({ apiKey: KEY });
    const feedback = buildLangSmithFeedback([{ spanId: '1a2b3c4d5e6f7a8b', caseId: 'c', sample: 0, error: { code: 'PROVIDER', message: 'down' } }]);
    expect(feedback[0]!.run_id).toBe('00000000-0000-0000-1a2b-3c4d5e6f7a8b');
    // A fake clock: every sleep advances it, so the 60 s budget passes without waiting.
    let t = 0;
    const waits: number[] = [];
    const random = () => 0.5;
    const never = await postLangSmithFeedback({
      endpoint: ls.url,
      apiKey: KEY,
      feedback,
      now: () => t,
      random,
      sleep: async (ms) => void (waits.push(ms), (t += ms)),
    });
    expect(never.posted).toBe(0);
    expect(never.warning).toMatch(/answered 404 after \d+ attempts: .*\(the run is not ingested yet\); 1 feedback item\(s\) not sent$/);
    // The waits are the shared backoff (core/retry.ts: from 1 s, doubling, equal jitter, capped at 8 s),
    // the last one cut to what is left of the 60 s budget; one post per round.
    const expected: number[] = [];
    for (let a = 1, sum = 0; sum < 60_000 && a < 100; a++) {
      const w = Math.min(retryDelayMs(a, { baseMs: 1000, maxMs: 8000, random }), 60_000 - sum);
      expected.push(w);
      sum += w;
    }
    expect(waits).toEqual(expected);
    expect(waits.slice(0, 4)).toEqual([750, 1500, 3000, 6000]);
    expect(ls.feedback.length).toBe(expected.length + 1);
    const before = ls.feedback.length;
    const bad = await postLangSmithFeedback({ endpoint: ls.url, apiKey: 'wrong', feedback, now: () => t, sleep: async (ms) => void (t += ms) });
    expect(bad.warning).toMatch(/answered 401 \(check LANGSMITH_API_KEY\)/);
    expect(ls.feedback.length - before).toBe(1);
  });

  it('run and score post through one path: the [telemetry.langsmith] settings and the targets', async () => {
    ls = await startFakeLangSmith({ apiKey: KEY });
    const targets = [{ spanId: '1a2b3c4d5e6f7a8b', caseId: 'c', sample: 0, error: { code: 'PROVIDER', message: 'down' } }];
    const bad = await postFeedbackForTargets({ endpoint: ls.url, apiKey: 'wrong', maxWaitMs: 0 }, targets);
    expect(bad).toMatchObject({ posted: 0, warning: expect.stringMatching(/answered 401/) });
    const gone = await postFeedbackForTargets({ endpoint: `http://127.0.0.1:${await closedPort()}`, apiKey: KEY, maxWaitMs: 0 }, targets);
    expect(gone.posted).toBe(0);
    expect(gone.warning).toMatch(/^langsmith feedback: /);
  });
});

// Feedback used to go under one key (runspec.tool_selection) for every evaluator, scored unscorable and
// errored samples 0, had no client id (a retry could duplicate it) and no trace or session id.
describe('LangSmith feedback bodies', () => {
  const verdict = (over: Partial<import('../../src/types/index.js').Verdict>): import('../../src/types/index.js').Verdict =>
    ({
      caseId: 'c',
      sample: 0,
      dialect: 'runspec',
      pass: true,
      category: 'pass',
      reason: 'ok',
      expected: {},
      observed: {},
      jsonDump: false,
      status: 'ok',
      calls: [],
      checks: [],
      ...over,
    }) as import('../../src/types/index.js').Verdict;

  it('one key per evaluator, as Phoenix names its annotations; a score only for judged verdicts; a stable client id and the trace id', () => {
    const items = buildLangSmithFeedback(
      [
        { spanId: '1a2b3c4d5e6f7a8b', caseId: 'c', sample: 0, verdict: verdict({}) },
        { spanId: '1a2b3c4d5e6f7a8c', caseId: 't', sample: 0, verdict: verdict({ dialect: 'replio', pass: false, category: 'wrong_sequence' }) },
        {
          spanId: '1a2b3c4d5e6f7a8d',
          caseId: 'no-restarts',
          sample: 0,
          verdict: verdict({ dialect: 'rule', caseId: 'no-restarts', pass: false, category: 'unscorable' }),
        },
        { spanId: '1a2b3c4d5e6f7a8e', caseId: 'c', sample: 0, error: { code: 'PROVIDER', message: 'down' } },
      ],
      'sess-1',
    );
    expect(items.map((i) => [i.key, i.value, i.score])).toEqual([
      ['runspec.tool_selection', 'pass', 1],
      ['runspec.trajectory', 'wrong_sequence', 0],
      ['runspec.rule.no-restarts', 'unscorable', undefined],
      ['runspec.tool_selection', 'error', undefined],
    ]);
    for (const i of items) {
      expect(i.trace_id).toBe(i.run_id);
      expect(i.session_id).toBe('sess-1');
      expect(i.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Object.hasOwn(i, 'score')).toBe(i.score !== undefined);
    }
    // The same run and evaluator give the same id on every build (retries are idempotent); another key another id.
    const again = buildLangSmithFeedback([{ spanId: '1a2b3c4d5e6f7a8b', caseId: 'c', sample: 0, verdict: verdict({ category: 'wrong_tool', pass: false }) }]);
    expect(again[0]!.id).toBe(items[0]!.id);
    expect(new Set(items.map((i) => i.id)).size).toBe(4);
  });

  it('looks the session up once per project, sends it, and counts a duplicate (409) as posted', async () => {
    ls = await startFakeLangSmith({ apiKey: KEY, projects: { ops: '5e55100e-0000-4000-8000-000000000042' } });
    const span = '2a2b3c4d5e6f7a8b';
    const { request: otlp, span: mk } = await import('../traces/_otlp.js');
    await fetch(`${ls.url}/otel/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify(otlp([{ ...mk({ trace: 1, id: 1, name: 'r', start: 0, end: 1 }), spanId: span }])),
    });
    const settings = { endpoint: ls.url, apiKey: KEY, maxWaitMs: 0, project: 'ops' };
    const targets = [{ spanId: span, caseId: 'c', sample: 0, verdict: verdict({}) }];
    const first = await postFeedbackForTargets(settings, targets);
    const second = await postFeedbackForTargets(settings, targets);
    expect([first, second]).toEqual([{ posted: 1 }, { posted: 1 }]);
    expect(ls.sessionReads).toEqual(['ops']);
    expect(ls.feedback.map((f) => [f.status, f.body.session_id])).toEqual([
      [200, '5e55100e-0000-4000-8000-000000000042'],
      [409, '5e55100e-0000-4000-8000-000000000042'],
    ]);
    expect(ls.accepted()).toHaveLength(1);
  });

  it('leaves session_id out with one warning when the project cannot be found', async () => {
    ls = await startFakeLangSmith({ apiKey: KEY, projects: {} });
    const targets = [{ spanId: '3a2b3c4d5e6f7a8b', caseId: 'c', sample: 0, verdict: verdict({}) }];
    const settings = { endpoint: ls.url, apiKey: KEY, maxWaitMs: 0, project: 'missing' };
    const first = await postFeedbackForTargets(settings, targets);
    const second = await postFeedbackForTargets(settings, targets);
    expect(first.warning).toMatch(/^langsmith feedback: project "missing" not resolved \(no such project\); feedback is sent without session_id/);
    expect(second.warning ?? '').not.toMatch(/not resolved/);
    expect(ls.feedback.every((f) => !Object.hasOwn(f.body, 'session_id'))).toBe(true);
    expect(ls.sessionReads).toEqual(['missing']);
  });
});
