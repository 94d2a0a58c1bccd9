// One final verdict per trace. serve used to judge a root that arrived alone as uninterpretable and drop
// its children arriving later as late, so a forbidden call was never flagged; spans after the window were
// only counted at shutdown. Now each judgement is a revision (0, 1, …), the last one is written again as
// `final` when the re-open window closes, only final verdicts are counted, and records after the window
// give a `late` report at the time. The clock is injected: no test here waits.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTracePipeline } from '../../src/traces/pipeline.js';
import { createTraceScorer } from '../../src/traces/score-traces.js';
import { parseRulesText } from '../../src/traces/rules.js';
import type { LateRecordsLine, TraceOutcome } from '../../src/traces/score-traces.js';
import { spansFromRequest } from '../../src/traces/spans.js';
import { CLI } from '../helpers/run-cli.js';
import { request, span, traceId } from './_otlp.js';
import type { RunEntry } from '../../src/report/results.js';
import { verdictView } from '../helpers/verdict-lines.js';

const RULES = parseRulesText('[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n', 'rules.toml');
const rootOnly = (t: number) =>
  request([span({ trace: t, id: 1, name: 'invoke_agent ops', start: 0, end: 50, attrs: { 'gen_ai.operation.name': 'invoke_agent' } })]);
const children = (t: number) =>
  request([
    span({
      trace: t,
      id: 2,
      parent: 1,
      name: 'chat gpt-4o',
      start: 1,
      end: 5,
      attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.response.finish_reasons': ['tool_calls'] },
    }),
    span({
      trace: t,
      id: 3,
      parent: 1,
      name: 'execute_tool service_restart',
      start: 6,
      end: 7,
      attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'service_restart' },
    }),
  ]);
const lateChild = (t: number) =>
  request([span({ trace: t, id: 4, parent: 1, name: 'execute_tool service_status', start: 8, end: 9, attrs: { 'gen_ai.tool.name': 'service_status' } })]);

function servePipeline(extra: { reopenWindow?: number; maxRetainedBytes?: number } = {}) {
  const outcomes: TraceOutcome[] = [];
  const late: LateRecordsLine[] = [];
  const p = createTracePipeline({
    rules: RULES,
    assembler: { quiet: 300, reopenWindow: 60_000, ...extra },
    onOutcome: (o) => outcomes.push(o),
    onLate: (l) => late.push(l),
  });
  return { p, outcomes, late };
}
const view = (o: TraceOutcome) => [o.kind === 'scored' ? o.lines[0]!.category : o.kind, o.revision, o.final];

describe('revisions of one trace (serve, injected clock)', () => {
  it('a root-only trace re-opened by its children 4 s later flags the forbidden call; the final verdict is the one counted', () => {
    const { p, outcomes, late } = servePipeline();
    p.addSpans(spansFromRequest(rootOnly(1), 'x').spans, 0);
    p.tick(300);
    expect(outcomes.map(view)).toEqual([['uninterpretable', 0, false]]);
    p.addSpans(spansFromRequest(children(1), 'x').spans, 4000);
    p.tick(4300);
    expect(outcomes.map(view)).toEqual([
      ['uninterpretable', 0, false],
      ['forbidden_tool', 1, false],
    ]);
    expect(outcomes[1]!.kind === 'scored' && outcomes[1]!.lines[0]).toMatchObject({ traceId: traceId(1), supersedes: true, family: 'otel-genai' });
    expect(p.summary()).toMatchObject({ traces: 0, failed: 0 });
    p.tick(64_299);
    expect(outcomes).toHaveLength(2);
    p.tick(64_300);
    expect(outcomes.map(view)[2]).toEqual(['forbidden_tool', 1, true]);
    expect(p.summary()).toMatchObject({ traces: 1, failed: 1, uninterpretable: 0, reopenedTraces: 1 });
    expect(late).toEqual([]);
  });

  it('records after the window give a late report at that moment, never a verdict', () => {
    const { p, outcomes, late } = servePipeline({ reopenWindow: 1000 });
    p.addSpans([...spansFromRequest(rootOnly(2), 'x').spans, ...spansFromRequest(children(2), 'x').spans], 0);
    p.tick(300);
    p.tick(1300);
    expect(outcomes.map(view)).toEqual([
      ['forbidden_tool', 0, false],
      ['forbidden_tool', 0, true],
    ]);
    p.addSpans(spansFromRequest(lateChild(2), 'x').spans, 1400);
    expect(late).toEqual([{ kind: 'late', traceId: traceId(2), records: 1, reason: expect.stringMatching(/after the trace's re-open window/) }]);
    p.tick(5000);
    expect(outcomes).toHaveLength(2);
    expect(p.summary()).toMatchObject({ traces: 1, failed: 1, lateRecords: 1 });
  });

  it('a window that closes with nothing new hands out the provisional judgement as final, the same as judging it again', () => {
    const { p, outcomes } = servePipeline();
    const spans = [...spansFromRequest(rootOnly(1), 'x').spans, ...spansFromRequest(children(1), 'x').spans];
    p.addSpans(spans, 0);
    p.tick(300);
    p.tick(60_300);
    expect(outcomes.map(view)).toEqual([
      ['forbidden_tool', 0, false],
      ['forbidden_tool', 0, true],
    ]);
    const [first, last] = outcomes as [Extract<TraceOutcome, { kind: 'scored' }>, Extract<TraceOutcome, { kind: 'scored' }>];
    // Not judged again: the verdicts are the provisional ones; the earlier outcome and lines are left as they were.
    expect(last.verdicts).toBe(first.verdicts);
    expect(first.final).toBe(false);
    expect(first.lines.map((l) => l.final)).toEqual([false]);
    // And it is what judging the trace again, final, gives.
    const fresh = createTraceScorer({ rules: RULES }).score({ traceId: traceId(1), spans, logs: [], evicted: false, complete: true, revision: 0, final: true });
    expect(last).toEqual(fresh);
    expect(p.summary()).toMatchObject({ traces: 1, failed: 1 });
  });

  it('a trace re-opened in its window is judged again for its final verdict, not reused', () => {
    const { p, outcomes } = servePipeline();
    p.addSpans(spansFromRequest(rootOnly(1), 'x').spans, 0);
    p.tick(300);
    p.addSpans(spansFromRequest(children(1), 'x').spans, 1000);
    p.flush();
    expect(outcomes.map(view)).toEqual([
      ['uninterpretable', 0, false],
      ['forbidden_tool', 1, true],
    ]);
  });

  it('caps retained traces by estimated bytes: the least recently judged is made final early and counted', () => {
    const { p, outcomes } = servePipeline({ maxRetainedBytes: 1 });
    p.addSpans(spansFromRequest(children(3), 'x').spans.concat(spansFromRequest(rootOnly(3), 'x').spans), 0);
    p.tick(300);
    p.addSpans(spansFromRequest(rootOnly(4), 'x').spans, 301);
    expect(outcomes.filter((o) => o.final).map((o) => o.traceId)).toEqual([traceId(3)]);
    expect(p.summary()).toMatchObject({ retainedEvictions: 1, traces: 1 });
  });
});

describe('runspec-eval serve (process): revisions and late lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-revisions-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a re-open window shorter than --quiet-ms', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet-ms', '300', '--reopen-window', '100'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: dir, TMPDIR: dir },
      stdio: 'pipe',
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--reopen-window 100: must be at least --quiet-ms \(300\)/);
  });

  it('re-opens a root-only trace for its children, writes the final revision when the window closes, then a late line and a warning', async () => {
    writeFileSync(join(dir, 'rules.toml'), '[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n');
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet-ms', '300', '--reopen-window', '1500', '--rules', 'rules.toml'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: dir, TMPDIR: dir },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    // Verdict lines are run entries (laid out flat here); a late line is its own kind.
    const lines = (): Array<Record<string, unknown>> =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RunEntry & { kind?: string })
        .map((l) => (l.kind ? l : { ...verdictView(l) }));
    // Bounded polling for what the process reports (no fixed sleeps: each wait ends when the output is there).
    const until = async (what: string, cond: () => boolean): Promise<void> => {
      for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
      if (!cond()) throw new Error(`timed out waiting for ${what}; stdout: ${stdout}; stderr: ${stderr}`);
    };
    try {
      await until('the listening URL', () => /listening on http/.test(stderr));
      const url = /listening on (http:\/\/[^\s]+)/.exec(stderr)![1]!;
      const post = (body: unknown) =>
        fetch(`${url}/v1/traces`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const health = async () => (await (await fetch(`${url}/healthz`)).json()) as Record<string, number>;
      expect((await post(rootOnly(7))).status).toBe(200);
      // The root alone is judged (uninterpretable, no line) once quiet.
      for (let i = 0; i < 400 && (await health()).openTraces !== 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect((await health()).openTraces).toBe(0);
      expect(lines()).toEqual([]);
      expect((await post(children(7))).status).toBe(200);
      await until('the final verdict', () => lines().some((l) => l.final === true));
      expect(lines().map((l) => [l.rule, l.category, l.revision, l.final])).toEqual([
        ['no-restarts', 'forbidden_tool', 1, false],
        ['no-restarts', 'forbidden_tool', 1, true],
      ]);
      expect((await post(lateChild(7))).status).toBe(200);
      await until('the late line', () => lines().some((l) => l.kind === 'late'));
      expect(lines().at(-1)).toMatchObject({ kind: 'late', trace_id: traceId(7), records: 1 });
      expect(stderr).toMatch(new RegExp(`warning: trace ${traceId(7)}: 1 record\\(s\\) arrived after the trace's re-open window closed`));
      expect(await health()).toMatchObject({ lateRecords: 1, retainedEvictions: 0 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // The summary counts the final verdict only, once.
    expect(stderr).toMatch(/traces: 1 +verdicts: 1 +passed: 0 +failed: 1/);
  });
});
