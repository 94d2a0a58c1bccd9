// npm run bench — throughput of the offline scorer and the verdict scorer, each as a ratio against a
// baseline measured in the same run on the same data (these machines are noisy: read the ratios).
//
//   offline scoring, OTLP JSON lines   vs  read + JSON.parse of every line of the same file
//   offline scoring, framed protobuf   vs  the same JSON.parse baseline (same traces)
//   scoreRun over decision Runs        vs  JSON.parse(JSON.stringify(run)) of the same Runs
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { scoreTraceFiles, parseRulesText, encodeTraceRequest } from '../dist/traces/index.js';
import { scoreRun } from '../dist/scoring/index.js';
import { loadToolset } from '../dist/toolset/index.js';
import { loadFixtureFile } from '../dist/fixtures/index.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 4000);
const PER_LINE = 50;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);

const hex = (n, width) => n.toString(16).padStart(width, '0');
const str = (key, v) => ({ key, value: { stringValue: v } });
const int = (key, v) => ({ key, value: { intValue: String(v) } });

/** One agent trace: invoke_agent → chat (OpenInference + gen_ai output messages) → execute_tool. */
function trace(i) {
  const traceId = hex(i + 1, 32);
  const t0 = 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n;
  const tool = i % 7 === 0 ? 'restart-service' : 'service-status';
  const args = JSON.stringify({ service: 'nginx', host: `web-0${(i % 3) + 1}` });
  const span = (n, parent, name, attrs, startMs, endMs) => ({
    traceId,
    spanId: hex(i * 4 + n, 16),
    ...(parent ? { parentSpanId: hex(i * 4 + parent, 16) } : {}),
    name,
    kind: n === 2 ? 3 : 1,
    startTimeUnixNano: String(t0 + BigInt(startMs) * 1_000_000n),
    endTimeUnixNano: String(t0 + BigInt(endMs) * 1_000_000n),
    attributes: attrs,
    status: {},
  });
  return [
    span(1, 0, 'invoke_agent ops', [str('gen_ai.operation.name', 'invoke_agent'), str('openinference.span.kind', 'AGENT'), str('input.value', `is nginx up on web-0${(i % 3) + 1}?`)], 0, 900),
    span(2, 1, 'chat gpt-4o', [
      str('gen_ai.operation.name', 'chat'),
      str('gen_ai.provider.name', 'openai'),
      str('gen_ai.request.model', 'gpt-4o'),
      str('openinference.span.kind', 'LLM'),
      int('gen_ai.usage.input_tokens', 812),
      int('gen_ai.usage.output_tokens', 31),
      str('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'is nginx up?' }] }])),
      str('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: `call_${i}`, name: tool, arguments: JSON.parse(args) }] }])),
      str('llm.output_messages.0.message.role', 'assistant'),
      str('llm.output_messages.0.message.tool_calls.0.tool_call.id', `call_${i}`),
      str('llm.output_messages.0.message.tool_calls.0.tool_call.function.name', tool),
      str('llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments', args),
    ], 10, 600),
    span(3, 1, `execute_tool ${tool}`, [
      str('gen_ai.operation.name', 'execute_tool'),
      str('gen_ai.tool.name', tool),
      str('gen_ai.tool.call.id', `call_${i}`),
      str('gen_ai.tool.call.arguments', args),
      str('gen_ai.tool.call.result', 'active (running)'),
      str('openinference.span.kind', 'TOOL'),
    ], 610, 880),
  ];
}

function request(from, to) {
  const spans = [];
  for (let i = from; i < to; i++) spans.push(...trace(i));
  return { resourceSpans: [{ resource: { attributes: [str('service.name', 'bench-agent')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn) {
  const samples = [];
  for (let r = 0; r < REPEAT; r++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const dir = mkdtempSync(join(tmpdir(), 'runspec-bench-'));
try {
  const jsonl = join(dir, 'traces.jsonl');
  const proto = join(dir, 'traces.binpb');
  const lines = [];
  const frames = [];
  for (let i = 0; i < TRACES; i += PER_LINE) {
    const req = request(i, Math.min(TRACES, i + PER_LINE));
    lines.push(JSON.stringify(req));
    const body = encodeTraceRequest(req);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    frames.push(len, Buffer.from(body));
  }
  writeFileSync(jsonl, lines.join('\n') + '\n');
  writeFileSync(proto, Buffer.concat(frames));
  const rules = parseRulesText('[[rule]]\nname = "no-restart"\nforbid_tools = ["restart-service"]\n\n[[rule]]\nname = "budget"\nmax_calls = 3\n', 'bench-rules.toml');

  let verdicts = 0;
  const baseline = await time(async () => {
    let n = 0;
    for (const line of readFileSync(jsonl, 'utf8').split('\n')) if (line) n += JSON.parse(line).resourceSpans.length;
    if (n === 0) throw new Error('empty');
  });
  const scoreFile = (file) => async () => {
    verdicts = 0;
    await scoreTraceFiles([file], { cwd: dir, rules, onOutcome: (o) => (verdicts += o.lines?.length ?? 1) });
  };
  const ours = await time(scoreFile(jsonl));
  const oursProto = await time(scoreFile(proto));

  const toolset = await loadToolset('builtin:fleet', { projectDir: dir, env: {} });
  const suite = loadFixtureFile(new URL('../fixtures/runspec/fleet.toml', import.meta.url).pathname)[0];
  const c = suite.cases.find((x) => x.id === 'restart-nginx-targeted');
  const runs = Array.from({ length: 20_000 }, (_, i) => ({
    caseId: c.id, sample: i, mode: 'decision', provider: 'openai', startTimeMs: 0, endTimeMs: 1, modelCalls: [], toolCalls: [],
    terminal: { turn: 0, modelCallIndex: 0, startTimeMs: 0, endTimeMs: 0, executed: false, call: { id: `c${i}`, name: 'restart-service', arguments: { service: i % 2 ? 'nginx' : 'NGINX ', host: 'web-01' } } },
    status: 'ok', usage: {},
  }));
  const runJson = runs.map((r) => JSON.stringify(r));
  const parseRuns = await time(async () => { for (const j of runJson) JSON.parse(j); });
  const scoreRuns = await time(async () => { for (const r of runs) scoreRun(c, r, { toolset, toolMode: 'dedup' }); });

  const mb = (readFileSync(jsonl).length / 1e6).toFixed(1);
  const rows = [
    ['offline score, OTLP JSON lines', `${TRACES} traces, ${mb} MB`, ours, baseline],
    ['offline score, framed protobuf', `${TRACES} traces`, oursProto, baseline],
    ['scoreRun (decision, dedup)', `${runs.length} runs`, scoreRuns, parseRuns],
  ];
  console.log(`runspec-eval bench · node ${process.version} · median of ${REPEAT}`);
  console.log('what'.padEnd(34) + 'data'.padEnd(26) + 'ours ms'.padStart(10) + 'baseline ms'.padStart(13) + 'ratio'.padStart(9));
  for (const [what, data, a, b] of rows) {
    console.log(what.padEnd(34) + data.padEnd(26) + a.toFixed(1).padStart(10) + b.toFixed(1).padStart(13) + `${(a / b).toFixed(2)}×`.padStart(9));
  }
  console.log(`(baselines: JSON.parse of every line of the same file; JSON.parse of each Run's JSON) · verdict lines: ${verdicts}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
