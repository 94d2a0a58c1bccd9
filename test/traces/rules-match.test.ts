import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyRule, parseRulesText } from '../../src/traces/rules.js';
import { casesForTrace, matchRuleHolds } from '../../src/traces/match.js';
import { createTraceAssembler, shardOfTrace } from '../../src/traces/assembler.js';
import { createSummaryCollector, createTraceScorer } from '../../src/traces/score-traces.js';
import { renderSummaryTable } from '../../src/traces/format.js';
import { createResultsCollector, scoreMeta } from '../../src/app/score-traces.js';
import { renderJUnit, renderMarkdown, renderTable } from '../../src/report/index.js';
import type { TraceInfo } from '../../src/traces/normalise.js';
import type { Case } from '../../src/types/case.js';
import type { Run, ToolCallRecord } from '../../src/types/run.js';
import type { Toolset } from '../../src/types/toolset.js';
import type { SpanRecord } from '../../src/traces/spans.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { one, request, span, traceId } from './_otlp.js';

function record(name: string, args: Record<string, unknown> = {}, extra: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return { turn: 0, modelCallIndex: 0, call: { id: '', name, arguments: args }, startTimeMs: 0, endTimeMs: 0, executed: true, ...extra };
}

function run(calls: ToolCallRecord[], finalText?: string): Run {
  const r: Run = {
    caseId: 't',
    sample: 0,
    mode: 'trajectory',
    provider: 'x',
    startTimeMs: 0,
    endTimeMs: 1,
    modelCalls: [],
    toolCalls: calls,
    status: 'ok',
    usage: {},
  };
  if (finalText !== undefined) r.finalText = finalText;
  return r;
}

describe('rules file', () => {
  it('parses the documented example file', () => {
    const rules = parseRulesText(readFileSync(join(REPO_ROOT, 'examples/rules.toml'), 'utf8'), 'examples/rules.toml');
    expect(rules.map((r) => r.name)).toEqual(['no-destructive-tools', 'valid-arguments', 'call-budget', 'no-json-dumps', 'billing-agent-tool-errors']);
    expect(rules[4]!.match).toEqual({ attributes: { 'service.name': 'billing-agent' } });
  });

  it.each([
    { name: 'an unknown key', text: '[[rule]]\nname = "a"\nforbid = ["x"]', message: /rule\[0\]: Unrecognized key: "forbid"|rule\.\[0\]|rule\[0\]/ },
    { name: 'a wrong type', text: '[[rule]]\nname = "a"\nmax_calls = "ten"', message: /^r\.toml:3: rule\[0\]\.max_calls: /m },
    { name: 'a duplicate name', text: '[[rule]]\nname = "a"\n[[rule]]\nname = "a"', message: /^r\.toml:4: rule\[1\]\.name: duplicate rule name "a"$/ },
    { name: 'bad TOML', text: '[[rule]\nname=', message: /r\.toml:\d+:\d+: TOML syntax error/ },
    { name: 'a bad pattern', text: '[[rule]]\nname = "a"\n[rule.match]\nprompt = "(a"', message: /match\.prompt: invalid pattern/ },
  ])('rejects $name with a one-line message', ({ text, message }) => {
    expect(() => parseRulesText(text, 'r.toml')).toThrow(message);
  });
});

describe('applyRule', () => {
  it.each([
    {
      name: 'forbidden tools',
      rule: { name: 'r', forbidTools: ['bash'] },
      calls: [record('glob'), record('bash', { command: 'rm' })],
      category: 'forbidden_tool',
    },
    { name: 'call budget', rule: { name: 'r', maxCalls: 1 }, calls: [record('glob'), record('grep')], category: 'too_many_calls' },
    { name: 'minimum calls', rule: { name: 'r', minCalls: 1 }, calls: [], category: 'too_few_calls' },
    {
      name: 'redundant calls',
      rule: { name: 'r', maxRedundant: 0 },
      calls: [record('grep', { p: 1, q: 2 }), record('grep', { q: 2, p: 1 })],
      category: 'redundant_call',
    },
    { name: 'tool errors', rule: { name: 'r', maxToolErrors: 0 }, calls: [record('bash', {}, { isError: true })], category: 'tool_error' },
  ])('fails on $name', ({ rule, calls, category }) => {
    const v = applyRule(rule, run(calls));
    expect(v).toMatchObject({ caseId: 'r', dialect: 'rule', pass: false, category });
  });

  it('judges max_redundant without arguments when no name repeats; a repeated name is not checkable', () => {
    const absent = (name: string): ToolCallRecord => record(name, {}, { call: { id: '', name, arguments: {}, argumentsAbsent: true } });
    expect(applyRule({ name: 'r', maxRedundant: 0 }, run([absent('grep'), absent('glob')])).category).toBe('pass');
    expect(applyRule({ name: 'r', maxRedundant: 0 }, run([absent('grep'), absent('grep')])).category).toBe('unscorable');
    expect(applyRule({ name: 'r', maxRedundant: 0 }, run([record('grep', { p: 1 }), record('grep', { p: 1 }), absent('grep')])).category).toBe(
      'redundant_call',
    );
  });

  it('flags a JSON dump in the final text', () => {
    const v = applyRule({ name: 'r', jsonDump: true }, run([], '{"name": "file_read", "arguments": {"path": "a"}}'));
    expect(v.category).toBe('json_dump');
  });

  it('passes and names the other failures after the first', () => {
    expect(applyRule({ name: 'r', maxCalls: 5 }, run([record('a')]))).toMatchObject({ pass: true, category: 'pass' });
    const v = applyRule({ name: 'r', forbidTools: ['a'], maxCalls: 0 }, run([record('a')]));
    expect(v.reason).toBe('called forbidden tool a (also: too_many_calls)');
  });

  it('validates arguments against a toolset', () => {
    const toolset: Toolset = {
      name: 't',
      hosts: [],
      groups: {},
      source: 'test',
      runnables: [
        {
          name: 'scale',
          description: 'scale',
          category: 'edit',
          autonomy: 'confirm',
          ownHostArg: false,
          args: [{ name: 'replicas', type: 'int', required: true, min: 1, max: 10 }],
        },
      ],
    };
    const v = applyRule({ name: 'r', validateArgs: true }, run([record('scale', { replicas: 50 })]), { toolset });
    expect(v).toMatchObject({ pass: false, category: 'out_of_range' });
    expect(applyRule({ name: 'r', validateArgs: true }, run([record('scale', { replicas: 5 })]), { toolset }).pass).toBe(true);
  });
});

describe('case matching', () => {
  const info = (o: Partial<TraceInfo>): TraceInfo => ({
    traceId: 't',
    rootSpanId: 's',
    rootName: 'r',
    rootAttributes: {},
    spanAttributes: [],
    producers: [],
    llmSpanIds: [],
    toolSpanIds: [],
    callSpanIds: {},
    ...o,
  });
  const kase = (id: string, extra: Partial<Case> = {}): Case => ({
    id,
    dialect: 'turnstone',
    tags: [],
    source: { file: 'f', source: 'file' },
    prompt: '',
    files: {},
    mode: 'trajectory',
    settings: {},
    ...extra,
  });

  it('prefers runspec.eval.case_id, narrowed by suite', () => {
    const cases = [kase('a', { suite: 's1' }), kase('a', { suite: 's2' }), kase('b', { match: { prompt: '.*' } })];
    expect(casesForTrace(info({ caseId: 'a', suite: 's2' }), cases)).toEqual([cases[1]]);
    expect(casesForTrace(info({ caseId: 'zzz', firstUserMessage: 'hi' }), cases)).toEqual([cases[2]]);
  });

  it('matches prompt regexes linearly and attributes on the root or any span', () => {
    expect(matchRuleHolds({ prompt: '(?i)restart' }, info({ firstUserMessage: 'Please RESTART nginx' }))).toBe(true);
    expect(matchRuleHolds({ prompt: '(a+)+$' }, info({ firstUserMessage: 'a'.repeat(50_000) + 'b' }))).toBe(false);
    expect(matchRuleHolds({ attributes: { 'service.name': 'billing' } }, info({ rootAttributes: { 'service.name': 'billing' } }))).toBe(true);
    expect(matchRuleHolds({ attributes: { env: 'prod' } }, info({ spanAttributes: [{}, { env: 'prod' }] }))).toBe(true);
    expect(matchRuleHolds({ attributes: { env: 'prod' }, prompt: 'x' }, info({ spanAttributes: [{ env: 'prod' }] }))).toBe(false);
    expect(matchRuleHolds({}, info({}))).toBe(false);
  });
});

describe('assembler', () => {
  const s = (t: number, id: string, parent?: string, ended = true): SpanRecord => {
    const r: SpanRecord = {
      traceId: traceId(t),
      spanId: id.padStart(16, '0'),
      name: id,
      kind: 1,
      startTimeMs: 0,
      attributes: {},
      events: [],
      links: [],
      statusCode: 0,
      resource: {},
    };
    if (parent) r.parentSpanId = parent.padStart(16, '0');
    if (ended) r.endTimeMs = 1;
    return r;
  };

  it('completes a trace once its root ended and it was quiet for the window', () => {
    const a = createTraceAssembler({ quiet: 10 });
    a.addSpans([s(1, 'c', 'r')], 0);
    expect(a.takeComplete(50)).toEqual([]);
    a.addSpans([s(1, 'r')], 50);
    expect(a.takeComplete(55)).toEqual([]);
    expect(a.takeComplete(60).map((t) => t.spans.length)).toEqual([2]);
  });

  it('hands out a root-less trace after the orphan window as incomplete; late spans re-open it within the window, later ones are counted', () => {
    const a = createTraceAssembler({ quiet: 10, orphanQuiet: 50, reopenWindow: 100 });
    a.addSpans([s(2, 'c', 'r')], 0);
    expect(a.takeComplete(49)).toEqual([]);
    const [first] = a.takeComplete(50);
    expect(first).toMatchObject({ complete: false, evicted: false });
    expect(first!.reopened).toBeUndefined();
    a.addSpans([s(2, 'r')], 60);
    const [again] = a.takeComplete(70);
    expect(again).toMatchObject({ complete: true, reopened: true });
    expect(again!.spans).toHaveLength(2);
    a.addSpans([s(2, 'late', 'r')], 171);
    expect(a.stats()).toMatchObject({ openTraces: 0, lateRecords: 1, reopenedTraces: 1 });
  });

  it('structural rule: judges a trace as soon as every root ended and every parent arrived, however spans are batched', () => {
    const a = createTraceAssembler({ rule: 'structural', quiet: 0 });
    expect(a.addSpans([s(5, 'c', 'b')], 1)).toEqual([]);
    expect(a.addSpans([s(5, 'b', 'r')], 2)).toEqual([]);
    const out = a.addSpans([s(5, 'r')], 3);
    expect(out.map((t) => [t.spans.length, t.complete])).toEqual([[3, true]]);
    // A SERVER span whose caller (another service) is not collected is this trace's local root.
    const server = { ...s(11, 'srv', 'remote'), kind: 2 };
    expect(a.addSpans([s(11, 'c', 'srv')], 4)).toEqual([]);
    expect(a.addSpans([server], 4).map((t) => [t.traceId, t.complete])).toEqual([[traceId(11), true]]);
    // A root that has not ended keeps it open; the end of input hands it out as incomplete, after the final
    // judgements of the traces still retained for late spans.
    expect(a.addSpans([s(6, 'r', undefined, false)], 4)).toEqual([]);
    expect(a.flush().map((t) => [t.traceId, t.complete, t.final])).toEqual([
      [traceId(5), true, undefined],
      [traceId(11), true, undefined],
      [traceId(6), false, undefined],
    ]);
  });

  it('structural rule: a missing parent that arrives as a root not yet ended is waited for until a copy of it ends', () => {
    const a = createTraceAssembler({ rule: 'structural', quiet: 0 });
    expect(a.addSpans([s(12, 'c', 'r')], 1)).toEqual([]);
    // The parent is here now, but has not ended: the trace still waits, for its end this time.
    expect(a.addSpans([s(12, 'r', undefined, false)], 2)).toEqual([]);
    expect(a.addSpans([s(12, 'c2', 'r')], 3)).toEqual([]);
    expect(a.addSpans([s(12, 'r')], 4).map((t) => [t.spans.length, t.complete])).toEqual([[3, true]]);
  });

  it("keeps at most 32 MiB of estimated bytes by default, counting each attribute's overhead beyond its characters", () => {
    const a = createTraceAssembler({ rule: 'structural', quiet: 0 });
    // Judged traces are retained for late spans until the default cap lets the oldest go.
    for (let t = 1; t <= 40; t++) a.addSpans([{ ...s(100 + t, 'r'), attributes: { blob: 'x'.repeat(1024 * 1024) } }], t);
    expect(a.stats().openBytes).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(a.stats().openBytes).toBeGreaterThan(30 * 1024 * 1024);
    const few = createTraceAssembler({ rule: 'structural', quiet: 0 });
    const many = createTraceAssembler({ rule: 'structural', quiet: 0 });
    few.addSpans([{ ...s(200, 'r'), attributes: { ab: 'xy' } }], 1);
    many.addSpans([{ ...s(200, 'r'), attributes: { a: 'x', b: 'y' } }], 1);
    // Same characters, one more attribute: V8 pays a property slot and a string header for it.
    expect(many.stats().openBytes - few.stats().openBytes).toBeGreaterThanOrEqual(32);
  });

  it('bounds memory by the estimated bytes of open traces: judged ones are let go first, then the oldest open one is evicted', () => {
    const big = (t: number, id: string, parent?: string): SpanRecord => ({ ...s(t, id, parent), attributes: { blob: 'x'.repeat(4000) } });
    const a = createTraceAssembler({ rule: 'structural', quiet: 0, maxOpenBytes: 10_000 });
    expect(a.addSpans([big(7, 'r')], 1).map((t) => t.traceId)).toEqual([traceId(7)]);
    expect(a.stats().openBytes).toBeGreaterThan(4000);
    expect(a.addSpans([big(8, 'c', 'r')], 2)).toEqual([]);
    // Past the cap: trace 7 (judged, retained for late spans) is let go, handed out final; nothing open is evicted yet.
    expect(a.addSpans([big(9, 'c', 'r')], 3).map((t) => [t.traceId, t.final])).toEqual([[traceId(7), undefined]]);
    expect(a.stats()).toMatchObject({ openTraces: 2, evictedTraces: 0, retainedEvictions: 1 });
    const evicted = a.addSpans([big(10, 'c', 'r')], 4);
    expect(evicted.map((t) => [t.traceId, t.evicted, t.complete])).toEqual([[traceId(8), true, false]]);
    expect(a.stats().openBytes).toBeLessThanOrEqual(10_000);
    // A span for the let-go trace 7 now counts as late.
    a.addSpans([s(7, 'late', 'r')], 5);
    expect(a.stats().lateRecords).toBe(1);
  });

  it('bounds spans per trace and open spans overall', () => {
    const a = createTraceAssembler({ quiet: 10, maxSpansPerTrace: 2, maxOpenSpans: 3 });
    a.addSpans([s(3, 'a'), s(3, 'b'), s(3, 'c')], 0);
    expect(a.stats()).toMatchObject({ droppedSpans: 1, openSpans: 2 });
    const evicted = a.addSpans([s(4, 'd'), s(4, 'e')], 1);
    expect(evicted.map((t) => [t.traceId, t.evicted])).toEqual([[traceId(3), true]]);
    expect(a.stats().evictedTraces).toBe(1);
  });

  it('shards by a stable hash of the trace id, case-insensitively, covering every shard', () => {
    const ids = Array.from({ length: 300 }, (_, i) => traceId(i + 1));
    const shards = ids.map((t) => shardOfTrace(t, 4));
    expect(new Set(shards)).toEqual(new Set([1, 2, 3, 4]));
    expect(ids.map((t) => shardOfTrace(t.toUpperCase(), 4))).toEqual(shards);
    expect(shardOfTrace('0af7651916cd43dd8448eb211c80319c', 7)).toBe(shardOfTrace('0af7651916cd43dd8448eb211c80319c', 7));
  });
});

describe('scorer and renderers', () => {
  it('never throws on a trace it cannot read and reports it as uninterpretable', () => {
    const scorer = createTraceScorer({});
    const o = scorer.score(one(request([span({ trace: 1, id: 1, name: 'GET /', start: 0 })])));
    expect(o).toMatchObject({ kind: 'uninterpretable', reason: expect.stringMatching(/no LLM or tool spans/) });
    const sum = createSummaryCollector();
    sum.addOutcome(o);
    expect(renderSummaryTable(sum.summary())).toContain('1 × no LLM or tool spans');
  });

  it('renders a table, JUnit and Markdown through the results document (the renderers of report)', () => {
    const scorer = createTraceScorer({ rules: [{ name: 'no-bash', forbidTools: ['bash'] }] });
    const o = scorer.score(
      one(
        request([
          span({
            trace: 2,
            id: 1,
            name: 'execute_tool bash',
            start: 0,
            attrs: { 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.arguments': '{"command":"rm <x> & y"}' },
          }),
        ]),
      ),
    );
    if (o.kind !== 'scored') throw new Error('not scored');
    const sum = createSummaryCollector();
    sum.addOutcome(o);
    const s = sum.summary();
    const collector = createResultsCollector([]);
    collector.add(o);
    const doc = collector.document(scoreMeta(new Date().toISOString(), 'score', 1), 1, s);
    expect(doc.inputs).toMatchObject({ traces: 1, unmatched: 0, uninterpretable: 0, problems: 0 });
    expect(renderTable(doc)).toMatch(/✗\s+rule:no-bash\s+forbidden_tool\s+bash/);
    expect(renderTable(doc)).toContain('inputs: traces 1 · unmatched 0 · uninterpretable 0 · input problems 0');
    expect(renderJUnit(doc)).toContain('<failure message="forbidden_tool: called forbidden tool bash" type="forbidden_tool">');
    expect(renderJUnit(doc)).toContain(`(trace ${o.traceId})`);
    expect(renderMarkdown(doc)).toContain('**By verdict:** forbidden_tool 1');
    expect(renderMarkdown(doc)).toContain('**Inputs:** traces 1');
  });
});
