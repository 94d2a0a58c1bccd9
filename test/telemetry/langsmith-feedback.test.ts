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
  it('run: posts each verdict on the root span\'s derived run id once ingest catches up', async () => {
    ls = await startFakeLangSmith({ apiKey: KEY, lagRequests: 2 });
    const project = join(dir, 'p1');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    writeFileSync(join(project, 'runspec.toml'), '[telemetry.langsmith]\nfeedback = true\nbackoff_ms = 5\n');
    const r = await cli(['--path', project, 'run', join(dir, 'evals.toml'), '--provider', 'mock', '--script', join(dir, 'script.json'), '--out', join(dir, 'res.json')], dir, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ls.url}/otel/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-api-key=${KEY},Langsmith-Project=runspec`,
      LANGSMITH_ENDPOINT: ls.url,
      LANGSMITH_API_KEY: KEY,
    });
    expect(r.code).toBe(1); // restart is a no_run: feedback never changes the exit code
    const roots = ls.spans.filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(2);
    const accepted = ls.accepted();
    expect(sorted(accepted.map((f) => String(f.run_id)))).toEqual(sorted(roots.map((s) => `00000000-0000-0000-${s.spanId.slice(0, 4)}-${s.spanId.slice(4)}`)));
    // The simulated ingest lag: each run's first two posts were 404s, then accepted.
    expect(ls.feedback.filter((f) => f.status === 404)).toHaveLength(4);
    expect(ls.feedback.every((f) => f.headers['x-api-key'] === KEY && f.path === '/feedback')).toBe(true);
    const byValue = Object.fromEntries(accepted.map((f) => [f.value, f]));
    expect(byValue.pass).toMatchObject({ key: 'runspec.tool_selection', score: 1, feedback_source: { type: 'api', metadata: { case_id: 'status', sample: 0 } } });
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
    const run = await cli(['--path', project, 'run', join(dir, 'evals.toml'), '--provider', 'mock', '--script', join(dir, 'script.json'), '--out', join(dir, 'res2.json')], dir);
    expect(run.code).toBe(1);
    const traceDir = join(project, '.runspec', 'traces');
    const file = join(traceDir, readdirSync(traceDir)[0]!);
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const res = await fetch(`${ls.url.replace('/api/v1', '')}/otel/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: line });
      expect(res.status).toBe(200);
    }
    const r = await cli(['--path', project, 'score', file, '--cases', join(dir, 'evals.toml'), '--annotate', '--langsmith-feedback'], dir, { LANGSMITH_ENDPOINT: ls.url, LANGSMITH_API_KEY: KEY });
    expect(r.out).not.toContain('warning');
    const roots = ls.spans.filter((s) => !s.parentSpanId);
    expect(sorted(ls.accepted().map((f) => String(f.run_id)))).toEqual(sorted(roots.map((s) => `00000000-0000-0000-${s.spanId.slice(0, 4)}-${s.spanId.slice(4)}`)));
    expect(ls.feedback.every((f) => f.path === '/api/v1/feedback')).toBe(true);
    expect(r.out).not.toContain(KEY);
  });

  it('config shows the feedback settings with the key as set, never its value', async () => {
    const project = join(dir, 'p3');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    writeFileSync(join(project, 'runspec.toml'), '[telemetry.langsmith]\nfeedback = true\nmax_wait_ms = 5000\n');
    const r = await cli(['--path', project, 'config'], dir, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}/otel`, LANGSMITH_API_KEY: KEY });
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
    const never = await postLangSmithFeedback({ endpoint: ls.url, apiKey: KEY, feedback, now: () => t, random, sleep: async (ms) => void (waits.push(ms), (t += ms)) });
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
