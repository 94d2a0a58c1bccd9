// `runspec-eval score` through main() in-process, and `serve` as a process (build first: npm run build).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanKind, trace as otTrace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CLI, runCli, isolatedEnv } from '../helpers/run-cli.js';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { startFakePhoenix } from '../helpers/fake-phoenix.js';
import { encodeTraceRequest } from '../../src/traces/otlp-proto.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { parseResultsDocument, runEntryTrace } from '../../src/report/results.js';
import { request, span, traceId } from './_otlp.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { verdictLines } from '../helpers/verdict-lines.js';

let dir: string;

/** A GenAI-convention trace: user prompt, one chat span with the calls, sibling execute_tool spans. */
function agentTrace(
  t: number,
  prompt: string,
  calls: Array<{ name: string; args: Record<string, unknown> }>,
  extra: Record<string, unknown> = {},
): OtlpTraceRequest {
  const parts = calls.map((c, i) => ({ type: 'tool_call', id: `c${t}_${i}`, name: c.name, arguments: c.args }));
  return request([
    span({ trace: t, id: 1, name: 'invoke_agent', start: 0, end: 100, attrs: { 'gen_ai.operation.name': 'invoke_agent', ...extra } }),
    span({
      trace: t,
      id: 2,
      parent: 1,
      name: 'chat m',
      start: 1,
      end: 10,
      attrs: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', finish_reason: 'tool_call', parts }]),
      },
    }),
    ...calls.map((c, i) =>
      span({
        trace: t,
        id: 10 + i,
        parent: 1,
        name: `execute_tool ${c.name}`,
        start: 11 + i,
        end: 12 + i,
        attrs: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': c.name,
          'gen_ai.tool.call.id': `c${t}_${i}`,
        },
      }),
    ),
  ]);
}

const SUITE = {
  cases: [
    {
      id: 'read-readme',
      user_prompt: 'read the readme',
      match: { prompt: '(?i)\\breadme\\b' },
      expected_actions: [{ tool: 'file_read', args: { path: 'README.md' } }],
    },
    { id: 'find-todos', user_prompt: 'find TODOs', expected_actions: [{ tool: 'grep', args: { pattern: 'TODO' } }] },
  ],
};
const RULES = `[[rule]]
name = "no-shell"
forbid_tools = ["bash", "run_command"]
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runspec-score-cli-'));
  writeFileSync(join(dir, 'suite.json'), JSON.stringify(SUITE));
  writeFileSync(join(dir, 'rules.toml'), RULES);
  mkdirSync(join(dir, 'traces', 'nested'), { recursive: true });
  mkdirSync(join(dir, 'empty'));
  const lines = [
    agentTrace(1, 'please read the README', [{ name: 'file_read', args: { path: 'README.md' } }]),
    agentTrace(2, 'read the readme now', [{ name: 'bash', args: { command: 'cat README.md' } }]),
    agentTrace(3, 'look for todo markers', [{ name: 'grep', args: { pattern: 'TODO' } }], { 'runspec.eval.case_id': 'find-todos' }),
    agentTrace(4, 'look for todo markers', [{ name: 'glob', args: { pattern: '**/*' } }], { 'runspec.eval.case_id': 'find-todos' }),
  ];
  writeFileSync(
    join(dir, 'traces', 'a.jsonl'),
    lines
      .slice(0, 2)
      .map((l) => JSON.stringify(l))
      .join('\n') + '\n',
  );
  const frames = lines.slice(2).map((l) => {
    const b = encodeTraceRequest(l);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  });
  writeFileSync(join(dir, 'traces', 'nested', 'b.binpb.gz'), gzipSync(Buffer.concat(frames)));
  // 24 traces for sharding.
  mkdirSync(join(dir, 'many'));
  const many = Array.from({ length: 24 }, (_, i) =>
    JSON.stringify(agentTrace(100 + i, i % 2 ? 'read the readme' : 'hello', [{ name: i % 3 ? 'file_read' : 'bash', args: { path: 'README.md' } }])),
  );
  writeFileSync(join(dir, 'many', 'all.jsonl'), many.join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const jsonLines = verdictLines;

/** The run entry of the results schema `runspec-eval schema results` prints (the built CLI), compiled with Ajv. */
async function runEntryValidator(): Promise<ValidateFunction> {
  const printed = await runCli(['schema', 'results'], { cwd: dir, spawn: true });
  expect(printed.exitCode, printed.stderr).toBe(0);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(JSON.parse(printed.stdout) as object, 'results');
  return ajv.getSchema('results#/properties/iterations/items/properties/cases/additionalProperties/properties/runs/items')!;
}

describe('runspec-eval score', () => {
  it('scores JSON lines and gzipped framed protobuf in a directory against cases and rules, exit 1 on failures', async () => {
    const r = await runCli(['score', 'traces', '--cases', 'suite.json', '--rules', 'rules.toml'], { cwd: dir });
    expect(r.stderr).toContain('traces: 4');
    const lines = jsonLines(r.stdout);
    const by = (t: number, key: string) => lines.find((l) => l.traceId === traceId(t) && (l.case === key || l.rule === key));
    expect(by(1, 'read-readme')).toMatchObject({ category: 'pass', pass: true, calls: [{ name: 'file_read', arguments: { path: 'README.md' } }] });
    expect(by(2, 'read-readme')).toMatchObject({ category: 'wrong_sequence', pass: false });
    expect(by(2, 'no-shell')).toMatchObject({ category: 'forbidden_tool', pass: false, reason: 'called forbidden tool bash' });
    expect(by(3, 'find-todos')).toMatchObject({ category: 'pass' });
    expect(by(4, 'find-todos')).toMatchObject({ category: 'wrong_sequence', pass: false });
    expect(lines.filter((l) => l.rule === 'no-shell')).toHaveLength(4);
    expect(lines.every((l) => typeof l.rootSpanId === 'string' && (l.rootSpanId as string).length === 16)).toBe(true);
    expect(r.exitCode).toBe(1);
  });

  it('writes non-ASCII arguments through a pipe as UTF-8 (built CLI, `score -`)', async () => {
    // Two-, three- and four-byte characters, and a line long enough to span several pipe writes: the line read
    // back is the UTF-8 of what was scored.
    const args = { path: 'naïve/日本語 ✓ 📄.md', note: 'é'.repeat(70_000) };
    const input = `${JSON.stringify(agentTrace(9, 'lire le fichier', [{ name: 'file_read', args }]))}\n`;
    const r = await runCli(['score', '-', '--cases', 'empty', '--output', 'jsonl'], { cwd: dir, spawn: true, input });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect((JSON.parse(lines[0]!) as { tool_args: unknown }).tool_args).toEqual([{ file_read: args }]);
  });

  it('writes lines that are run entries of the results schema (built CLI, validated with Ajv): scored, unscorable and unmatched', async () => {
    const validate = await runEntryValidator();
    const scored = await runCli(['score', 'traces', '--cases', 'suite.json', '--rules', 'rules.toml', '--output', 'jsonl'], { cwd: dir, spawn: true });
    const unmatched = await runCli(['score', 'traces', '--cases', 'empty', '--output', 'jsonl'], { cwd: dir, spawn: true });
    const raw = [...scored.stdout.split('\n'), ...unmatched.stdout.split('\n')].filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(raw.length).toBe(12);
    for (const line of raw) expect(validate(line), `${JSON.stringify(line)}\n${JSON.stringify(validate.errors)}`).toBe(true);
    expect(new Set(raw.map((l) => l.status))).toEqual(new Set(['scored', 'unmatched']));
    // A line keeps the verdict whole (dialect, expected, observed), where the trace lives and what graded it.
    expect(raw.find((l) => l.case === 'read-readme' && l.pass === true)).toMatchObject({
      trace_id: traceId(1),
      root_span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      status: 'scored',
      verdict: { category: 'pass', dialect: 'turnstone' },
      tool_sequence: ['file_read'],
      tool_args: [{ file_read: { path: 'README.md' } }],
      calls: [{ id: 'c1_0', name: 'file_read', executed: true }],
      revision: 0,
      final: true,
      mode: 'trajectory',
    });
    // Nothing a schema would miss: the same line fails it with a wrong type.
    expect(validate({ ...raw[0], pass: 'yes' })).toBe(false);
  });

  it('writes the verdicts as a results document that report renders like a run (one model for both)', async () => {
    const r = await runCli(['score', 'traces', '--cases', 'suite.json', '--rules', 'rules.toml', '--results', 'scored.json'], { cwd: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('results: ');
    const doc = parseResultsDocument(readFileSync(join(dir, 'scored.json'), 'utf8'), 'scored.json');
    const cases = doc.iterations[0]!.cases;
    expect(Object.keys(cases).sort()).toEqual(['find-todos', 'read-readme', 'rule:no-shell']);
    expect(cases['find-todos']).toMatchObject({ pass_rate: 0.5, k: 2, dialect: 'turnstone' });
    expect(cases['rule:no-shell']).toMatchObject({ dialect: 'rule', k: 4, pass_rate: 0.75 });
    for (const output of ['md', 'junit', 'html', 'table']) {
      const rep = await runCli(['report', 'scored.json', '--output', output], { cwd: dir });
      expect(rep.exitCode, rep.stderr).toBe(0);
      expect(rep.stdout).toContain('rule:no-shell');
    }
  });

  it('writes one line per trace with the extracted calls when there are no cases and no rules', async () => {
    const r = await runCli(['score', 'traces', '--cases', 'empty'], { cwd: dir });
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => [l.category, l.pass, l.calls.map((c) => c.name)])).toEqual([
      [null, null, ['file_read']],
      [null, null, ['bash']],
      [null, null, ['grep']],
      [null, null, ['glob']],
    ]);
    expect(r.exitCode).toBe(0);
  });

  it('scores the Collector file exporter with compression: zstd (each framed message zstd-compressed)', async () => {
    // agentTrace(60, 'read the readme', [file_read README.md]) as JSON, compressed with `zstd -19`.
    const zst = Buffer.from(
      'KLUv/WROA1UMAPZUPx9AjxvfZUtUI2F03UtT/BRPikOmvZeChd9cmasikEYENAA3ADUA/Aph0bm2Kc2p31ytRqp+8j271qJNGW437J5FsiukGK7wZ5Mn/1czkEog9V7MwU5m0VlqJto6vl/JWGzeTs1V0wJBIDAUDI9CGnsZl9cQhu/xct+1PZBS/SraJq5ES7+mz0TdwKEU7Fa+vgcMA2x9gFqW3/wd3V/4Mcz7y8U0ahpJ9kwjSCO+otQoI3Gu1p1h8xnWr82pDwz8Wk7Q5kM1B4ApTcc3t8eZsEksEIdEw/pMM8wquRNfjwK3nckpOOpd17rpirGjL8vJ8teP0vv+3PezKE1pahQ6IHBEhMzOA9UIgNqWSAq3EBioEW0JN+Aphx2NSbdVAvJBL5hB5jS1aJRDLpazAP/9gYOSc0xQcmIc9MwaASeQBTaBcbYSbhq4hQR6e5ApwJcqhBCNBWK/g8sSJgcWZFaDFH6zeRcPU07M5L2JoMUwxFdpsLICyrCiB/UGF2D5veRjgrqjf3y19TDixQbd',
      'base64',
    );
    const len = Buffer.alloc(4);
    len.writeUInt32BE(zst.length);
    mkdirSync(join(dir, 'zstd'));
    writeFileSync(join(dir, 'zstd', 'traces.json'), Buffer.concat([len, zst]));
    const r = await runCli(['score', 'zstd', '--cases', 'suite.json'], { cwd: dir });
    expect(jsonLines(r.stdout)).toEqual([expect.objectContaining({ traceId: traceId(60), case: 'read-readme', category: 'pass' })]);
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('reads stdin with -', async () => {
    const r = await runCli(['score', '-', '--cases', 'empty', '--rules', 'rules.toml'], {
      cwd: dir,
      input: JSON.stringify(agentTrace(9, 'x', [{ name: 'run_command', args: {} }])) + '\n',
    });
    expect(jsonLines(r.stdout)).toEqual([expect.objectContaining({ traceId: traceId(9), rule: 'no-shell', category: 'forbidden_tool' })]);
    expect(r.exitCode).toBe(1);
  });

  it('gives the same verdicts over 3 shards as unsharded', async () => {
    const args = ['score', 'many', '--cases', 'suite.json', '--rules', 'rules.toml'];
    const first = await runCli(args, { cwd: dir });
    const whole = jsonLines(first.stdout);
    expect(first.stderr).toContain('traces: 24');
    const parts = await Promise.all([1, 2, 3].map((i) => runCli([...args, '--shard', `${i}/3`], { cwd: dir })));
    const sharded = parts.flatMap((p) => jsonLines(p.stdout));
    const key = (l: object) => JSON.stringify(l);
    expect(whole).toHaveLength(24 + 12);
    expect(sharded.map(key).sort()).toEqual(whole.map(key).sort());
    expect(parts.every((p) => jsonLines(p.stdout).length > 0)).toBe(true);
    const traceSets = parts.map((p) => new Set(jsonLines(p.stdout).map((l) => l.traceId)));
    expect(traceSets[0]!.size + traceSets[1]!.size + traceSets[2]!.size).toBe(24);
  });

  it('renders junit and md outputs, and writes --out', async () => {
    const junit = await runCli(['score', 'traces', '--cases', 'suite.json', '--output', 'junit', '--out', 'out.xml'], { cwd: dir });
    expect(junit.exitCode).toBe(1);
    // The results document rendered by report/junit.ts: one testcase per case, its samples' trace ids.
    const xml = readFileSync(join(dir, 'out.xml'), 'utf8');
    expect(xml).toContain('<testsuite name="suite" tests="2" failures="2" errors="0"');
    expect(xml).toContain('<testcase classname="suite" name="find-todos"');
    expect(xml).toContain(`sample 1: wrong_sequence: Ordered subset: 0/1; missing grep(pattern=TODO) (trace ${traceId(4)})`);
    expect(xml).not.toContain('name="inputs"');
    const md = await runCli(['score', 'traces', '--cases', 'suite.json', '--output', 'md'], { cwd: dir });
    expect(md.exitCode).toBe(1);
    expect(md.stdout).toContain('**By verdict:** pass 2 · wrong_sequence 2');
    expect(md.stdout).toContain(`· trace \`${traceId(2)}\``);
    expect(md.stdout).toContain('**Inputs:** traces 4 · unmatched 0 · uninterpretable 0 · input problems 0');
    const table = await runCli(['score', 'traces', '--cases', 'suite.json', '--output', 'table'], { cwd: dir });
    expect(table.exitCode).toBe(1);
    expect(table.stdout).toMatch(/✗\s+find-todos\s+wrong_sequence/);
    expect(table.stdout).toContain(`find-todos  ${traceId(4)}`);
    expect(table.stdout).toContain('inputs: traces 4 · unmatched 0 · uninterpretable 0 · input problems 0');
  });

  it('lists traces no case or rule applied to as skipped JUnit testcases and in the inputs section', async () => {
    const junit = await runCli(['score', 'traces', '--cases', 'empty', '--output', 'junit'], { cwd: dir });
    expect(junit.exitCode).toBe(0);
    expect(junit.stdout).toContain('<testsuites name="runspec-eval" tests="4" failures="0" errors="0"');
    expect(junit.stdout).toContain('<testsuite name="inputs" tests="4" failures="0" errors="0" skipped="4"');
    expect(junit.stdout).toContain(
      `<testcase classname="unmatched" name="trace ${traceId(1)}" time="0.000"><skipped message="no case or rule applied"/></testcase>`,
    );
    const table = await runCli(['score', 'traces', '--cases', 'empty', '--output', 'table'], { cwd: dir });
    expect(table.stdout).toContain(`unmatched traces (no case or rule applied): ${traceId(1)} ${traceId(2)} ${traceId(3)} ${traceId(4)}`);
  });

  it('exits 2 on a missing input file with a one-line error', async () => {
    const r = await runCli(['score', 'nope.jsonl', '--cases', 'empty'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/error: nope\.jsonl: no such file or directory/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2, not 0 with an empty report, when nothing readable was scored', async () => {
    const r = await runCli(['score', '-', '--cases', 'empty', '--output', 'junit'], { cwd: dir, input: '' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: no trace could be read from the input, so nothing was scored');
  });

  it('exits 2 on an invalid --shard', async () => {
    const r = await runCli(['score', 'traces', '--cases', 'empty', '--shard', '4/3'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--shard: expected i\/n with 1 ≤ i ≤ n/);
  });
});

describe('verdicts out: Phoenix annotations and verdict spans', () => {
  it('annotates the original root spans in Phoenix and exports one linked verdict span per verdict', async () => {
    const phoenix = await startFakePhoenix();
    const sink = await startOtlpSink();
    try {
      const r = await runCli(
        [
          'score',
          'traces',
          '--cases',
          'suite.json',
          '--rules',
          'rules.toml',
          '--annotate',
          '--phoenix-url',
          phoenix.url,
          '--export',
          '--otlp-endpoint',
          `${sink.url}/v1/traces`,
        ],
        { cwd: dir, env: { PHOENIX_API_KEY: 'px-secret-key' } },
      );
      expect(r.exitCode).toBe(1);
      const lines = jsonLines(r.stdout);
      expect(lines).toHaveLength(8);
      const items = phoenix.annotations.flatMap((a) => a.body.data);
      expect(phoenix.annotations.every((a) => a.headers.authorization === 'Bearer px-secret-key')).toBe(true);
      const byText = (a: string, b: string): number => a.localeCompare(b);
      expect(items.map((i) => `${String(i.span_id)} ${(i.result as { label: string }).label}`).sort(byText)).toEqual(
        lines.map((l) => `${String(l.rootSpanId)} ${String(l.category)}`).sort(byText),
      );
      const verdictSpans = sink.spans().filter((sp) => sp.attributes['runspec.eval.category'] !== undefined);
      expect(verdictSpans).toHaveLength(8);
      for (const v of verdictSpans) {
        expect(v.links).toHaveLength(1);
        const line = lines.find(
          (l) => l.traceId === v.links[0]!.traceId && l.rootSpanId === v.links[0]!.spanId && l.category === v.attributes['runspec.eval.category'],
        );
        expect(line).toBeDefined();
        expect(v.traceId).not.toBe(v.links[0]!.traceId);
        expect(v.attributes['openinference.span.kind']).toBe('EVALUATOR');
        expect(v.events.map((e) => e.name)).toContain('gen_ai.evaluation.result');
      }
      expect(verdictSpans.filter((v) => v.attributes['runspec.eval.rule'] === 'no-shell')).toHaveLength(4);
      expect(r.stdout + r.stderr + sink.rawBodies()).not.toContain('px-secret-key');
    } finally {
      await phoenix.close();
      await sink.close();
    }
  });
});

describe('malformed corpus', () => {
  it('rejects bad lines, spans, bombs and non-OTLP files cleanly, with counts', async () => {
    const m = join(dir, 'malformed');
    mkdirSync(m);
    const good = JSON.stringify(agentTrace(50, 'read the readme', [{ name: 'file_read', args: { path: 'README.md' } }]));
    const missingIds = request([span({ trace: 51, id: 1, name: 'x', start: 0 })]);
    missingIds.resourceSpans![0]!.scopeSpans![0]!.spans!.push({ name: 'no-ids' }, { traceId: 'zz', spanId: 7 as unknown as string, name: 'wrong-types' });
    writeFileSync(join(m, 'lines.jsonl'), [good, good.slice(0, 100), '{"resourceSpans": "nope"}', JSON.stringify(missingIds), '[1,2', ''].join('\n'));
    writeFileSync(
      join(m, 'huge.jsonl'),
      JSON.stringify(agentTrace(52, 'x'.repeat(3_000_000), [{ name: 'glob', args: { pattern: 'y'.repeat(2_000_000) } }])) + '\n',
    );
    writeFileSync(join(m, 'bomb.json.gz'), gzipSync(Buffer.alloc(48 * 1024 * 1024, 0x20)));
    writeFileSync(join(m, 'notes.txt'), 'this is not OTLP at all\n');
    const r = await runCli(['score', 'malformed', '--cases', 'suite.json', '--output', 'json'], { cwd: dir, timeoutMs: 60_000 });
    // --output json is the results document; what is not a verdict is in its `inputs`.
    const doc = parseResultsDocument(r.stdout, 'stdout');
    const inputs = doc.inputs!;
    expect(inputs.traces).toBe(3);
    expect(inputs.uninterpretable).toBe(1);
    expect(inputs.uninterpretable_reasons).toEqual({ 'no LLM or tool spans (not a GenAI agent trace)': 1 });
    const readme = doc.iterations[0]!.cases['read-readme']!;
    expect(readme.runs.map((run) => [runEntryTrace(run)?.traceId, run.verdict?.category])).toContainEqual([traceId(50), 'pass']);
    const problems = (inputs.problem_examples ?? []).map((p) => `${p.place.replace(/^.*malformed\//, '')}: ${p.reason}`);
    expect(problems).toEqual([
      expect.stringMatching(/^bomb\.json\.gz: gzip input abandoned: compression ratio over 200:1/),
      // Attributes over the size limit are cut and reported, naming trace, span and attribute.
      expect.stringMatching(/^huge\.jsonl:1: trace [0-9a-f]{32} span [0-9a-f]{16}: attribute gen_ai\.input\.messages cut at 1000000 characters \(it had \d+\)/),
      expect.stringMatching(/^huge\.jsonl:1: trace [0-9a-f]{32} span [0-9a-f]{16}: attribute gen_ai\.output\.messages cut at 1000000 characters/),
      expect.stringMatching(/^lines\.jsonl:2: invalid JSON/),
      expect.stringMatching(/^lines\.jsonl:3: not an ExportTraceServiceRequest/),
      expect.stringMatching(/^lines\.jsonl:4: span "no-ids": missing or invalid traceId/),
      expect.stringMatching(/^lines\.jsonl:4: span "wrong-types": missing or invalid traceId/),
      expect.stringMatching(/^lines\.jsonl:5: invalid JSON/),
      expect.stringMatching(/^notes\.txt#0: frame length \d+ over/),
    ]);
    expect(inputs.bad_files).toEqual([expect.stringMatching(/bomb\.json\.gz$/), expect.stringMatching(/notes\.txt$/)]);
    expect(r.stderr).toMatch(/error: .*notes\.txt: nothing readable/);
    expect(r.exitCode).toBe(2);
    // JUnit: the uninterpretable trace is an error testcase; input problems are the inputs suite's system-err.
    const junit = await runCli(['score', 'malformed', '--cases', 'suite.json', '--output', 'junit'], { cwd: dir, timeoutMs: 60_000 });
    expect(junit.exitCode).toBe(2);
    expect(junit.stdout).toMatch(
      /<testcase classname="uninterpretable" name="trace [0-9a-f]{32}" time="0.000"><error message="no LLM or tool spans \(not a GenAI agent trace\)" type="uninterpretable"\/><\/testcase>/,
    );
    expect(junit.stdout).toMatch(/<system-err>input problems: 9\n.*bomb\.json\.gz: gzip input abandoned/);
  });
});

describe('runspec-eval serve (process)', () => {
  it('prints its URL, requires the token, scores what the official proto exporter posts into --out as run entries of the results schema, and exits 0 on SIGTERM', async () => {
    const validate = await runEntryValidator();
    const out = join(dir, 'served.jsonl');
    const written = (): string => (existsSync(out) ? readFileSync(out, 'utf8') : '');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--port',
        '0',
        '--quiet-ms',
        '100',
        '--cases',
        'suite.json',
        '--rules',
        'rules.toml',
        '--token-env',
        'SERVE_TOKEN',
        '--results',
        'served.json',
        '--out',
        'served.jsonl',
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), HOME: dir, SERVE_TOKEN: 'tok-serve' },
        stdio: 'pipe',
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    try {
      let url: string | undefined;
      for (let i = 0; i < 300 && !url; i++) {
        url = /listening on (http:\/\/[^\s]+)/.exec(stderr)?.[1];
        if (!url) await new Promise((r) => setTimeout(r, 50));
      }
      expect(url).toBeDefined();
      const anonymous = await fetch(`${url}/v1/traces`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(anonymous.status).toBe(401);
      const exporter = new OTLPTraceExporter({ url: `${url}/v1/traces`, headers: { authorization: 'Bearer tok-serve' } });
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const tracer = provider.getTracer('app');
      const root = tracer.startSpan('invoke_agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, ROOT_CONTEXT);
      const ctx = otTrace.setSpan(ROOT_CONTEXT, root);
      tracer
        .startSpan(
          'chat m',
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'read the readme' }] }]),
              'gen_ai.output.messages': JSON.stringify([
                { role: 'assistant', parts: [{ type: 'tool_call', id: 'q', name: 'file_read', arguments: { path: 'README.md' } }] },
              ]),
            },
          },
          ctx,
        )
        .end();
      root.end();
      await provider.forceFlush();
      await provider.shutdown();
      for (let i = 0; i < 200 && jsonLines(written()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      const lines = jsonLines(written());
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ traceId: root.spanContext().traceId, case: 'read-readme', category: 'pass' }),
          expect.objectContaining({ traceId: root.spanContext().traceId, rule: 'no-shell', category: 'pass' }),
        ]),
      );
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/traces: 1 +verdicts: 2 +passed: 2/);
    expect(stdout + stderr).not.toContain('tok-serve');
    const raw = written()
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(raw.length).toBeGreaterThanOrEqual(2);
    for (const line of raw) expect(validate(line), `${JSON.stringify(line)}\n${JSON.stringify(validate.errors)}`).toBe(true);
    // On shutdown the verdicts are also a results document, like score --results.
    const served = parseResultsDocument(readFileSync(join(dir, 'served.json'), 'utf8'), 'served.json');
    expect(Object.keys(served.iterations[0]!.cases).sort()).toEqual(['read-readme', 'rule:no-shell']);
    expect(served.inputs).toMatchObject({ traces: 1, unmatched: 0, uninterpretable: 0, problems: 0 });
  });
});
