// Python instrumentations (OpenInference's OpenAI and LangChain ones, the latter around a LangGraph agent;
// traceloop-sdk with `use_attributes` on and off; the contrib OpenAI one in both layouts) and AI SDK 7
// (under a Node 22 binary), content on and off, against a local OpenAI-compatible server, exporting OTLP to
// our receiver; the fresh traces are scored with the rules of test/traces/producer-families.test.ts: every
// trace has one final verdict line per case, no definite verdict differs from the content run, the other
// differences are `unscorable` naming the family and its switch. An instrumentation upgrade that changes
// the layout fails here. The verdicts are also written to the cache (corpora/) for inspection.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTracePipeline } from '../../src/traces/pipeline.js';
import { createOtlpReceiver } from '../../src/traces/receiver.js';
import type { TraceOutcome, TraceVerdictLine } from '../../src/traces/score-traces.js';
import type { ArgExpectation, Case } from '../../src/types/index.js';
import { makeCase } from '../scoring/_build.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { itCacheDir } from './setup/cache.js';
import { producerVenv, runDriver } from './setup/python-producers.js';
import { aiSdk7Install } from './setup/ai-sdk-7.js';

const HERE = join(import.meta.dirname, 'python');
const DRIVER = join(HERE, 'drive.py');
const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });
const agent = (name: string) => ({ attributes: { 'gen_ai.agent.name': name } });
const NAME_ONLY = new Set(['weather-tool', 'news-not-weather', 'ops-forbidden', 'chat-no-run', 'weather-no-run']);
const CASES: Case[] = [
  makeCase({ id: 'weather-tool', runspec: { tool: ['get_weather'] }, match: agent('weather-agent') }),
  makeCase({ id: 'weather-args', runspec: { tool: ['get_weather'], args: { city: eq('Paris') } }, match: agent('weather-agent') }),
  makeCase({ id: 'weather-no-run', runspec: { noRun: true }, match: agent('weather-agent') }),
  makeCase({ id: 'news-not-weather', runspec: { tool: ['get_weather'] }, match: agent('news-agent') }),
  makeCase({ id: 'ops-forbidden', runspec: { forbidTools: ['restart_service'] }, match: agent('ops-agent') }),
  makeCase({ id: 'chat-no-run', runspec: { noRun: true }, match: agent('chat-agent') }),
];
const WITH_CONTENT: Record<string, string> = {
  'weather-tool': 'pass',
  'weather-args': 'pass',
  'weather-no-run': 'unexpected_run',
  'news-not-weather': 'wrong_tool',
  'ops-forbidden': 'forbidden_tool',
  'chat-no-run': 'pass',
};

/**
 * `nameOnly`: how many of the NAME_ONLY cases must keep their verdict with content off. Where the agent runs
 * its tools inside the producer's own tool spans (drive.py: OpenInference `OITracer.tool`, Traceloop `@tool`,
 * LangGraph's ToolNode) the call names stay on those spans, so every name-only case keeps its verdict. The
 * contrib events name the calls. Where a bare model call hides its output, only the finish reason is left
 * (the no-run cases): the tool-name cases are then honestly `unscorable`.
 */
type Producer = { producer: string; requirements: string; family: string; captureSwitch: string; nameOnly: number };
const PRODUCERS: Producer[] = [
  { producer: 'openinference', requirements: 'openinference.txt', family: 'openinference', captureSwitch: 'OPENINFERENCE_HIDE_OUTPUTS', nameOnly: 5 },
  { producer: 'langgraph', requirements: 'langgraph.txt', family: 'openinference', captureSwitch: 'OPENINFERENCE_HIDE_OUTPUTS', nameOnly: 5 },
  { producer: 'traceloop-attributes', requirements: 'traceloop.txt', family: 'openllmetry', captureSwitch: 'TRACELOOP_TRACE_CONTENT', nameOnly: 5 },
  { producer: 'traceloop-events', requirements: 'traceloop.txt', family: 'openllmetry', captureSwitch: 'TRACELOOP_TRACE_CONTENT', nameOnly: 5 },
  {
    producer: 'openai-v2-events',
    requirements: 'openai-v2.txt',
    family: 'otel-genai-events',
    captureSwitch: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
    nameOnly: 5,
  },
  {
    producer: 'openai-v2-spans',
    requirements: 'openai-v2.txt',
    family: 'otel-genai',
    captureSwitch: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
    nameOnly: 5,
  },
];

let model: FakeModelServer;
const pythons = new Map<string, string>();
let aiSdk7: { dir: string; node: string } | undefined;

beforeAll(async () => {
  model = await startFakeOpenAI({
    script: {
      'What is the weather in Paris?': [{ toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } }] }],
      'Any news about the weather?': [{ toolCalls: [{ id: 'call_s', name: 'search', arguments: { q: 'weather news' } }] }],
      'Is nginx running?': [{ toolCalls: [{ id: 'call_r', name: 'restart_service', arguments: { name: 'nginx' } }] }],
      'Say hello.': [{ text: 'Hello!' }],
    },
  });
  for (const r of new Set(PRODUCERS.map((p) => p.requirements))) pythons.set(r, await producerVenv(r.replace(/\.txt$/, ''), join(HERE, r)));
  aiSdk7 = await aiSdk7Install(join(import.meta.dirname, 'ai-sdk-7'));
});
afterAll(async () => {
  await model?.close();
});

/** Run the driver against a fresh receiver; the final lines by case. */
async function produce(
  producer: string,
  requirements: string,
  content: 'on' | 'off',
): Promise<{ lines: Record<string, TraceVerdictLine>; uninterpretable: number }> {
  const last = new Map<string, TraceOutcome>();
  const pipeline = createTracePipeline({ cases: CASES, assembler: { quiet: 200, reopenWindow: 200 }, onOutcome: (o) => last.set(o.traceId, o) });
  const receiver = createOtlpReceiver({ pipeline, port: 0 });
  const url = await receiver.listen();
  try {
    if (producer.startsWith('ai-sdk-7')) await runDriver(aiSdk7!.node, join(aiSdk7!.dir, 'drive.mjs'), [requirements, content, model.url, url]);
    else {
      // The driver also writes what it exported as OTLP/JSON lines (the npm tier's python-* fixtures are copies).
      const otlpFile = join(itCacheDir('corpora'), `${producer}-content-${content}.otlp.jsonl`);
      rmSync(otlpFile, { force: true });
      await runDriver(pythons.get(requirements)!, DRIVER, [producer, content, model.url, url, otlpFile]);
    }
  } finally {
    await receiver.close();
  }
  const lines: TraceVerdictLine[] = [];
  let uninterpretable = 0;
  for (const o of last.values()) {
    if (o.kind === 'scored') lines.push(...o.lines);
    else uninterpretable++;
  }
  writeFileSync(join(itCacheDir('corpora'), `${producer}-content-${content}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { lines: Object.fromEntries(lines.map((l) => [l.case!, l])), uninterpretable };
}

// AI SDK 7 under Node 22 (the GenAI layout of @ai-sdk/otel, and its LegacyOpenTelemetry `ai.*` layout);
// `requirements` names the layout for these.
const AI_SDK_7: Producer[] = [
  { producer: 'ai-sdk-7-genai', requirements: 'genai', family: 'ai-sdk-7', captureSwitch: 'recordOutputs', nameOnly: 5 },
  { producer: 'ai-sdk-7-legacy', requirements: 'legacy', family: 'ai-sdk', captureSwitch: 'recordOutputs', nameOnly: 5 },
];

/** Content-off counts by family, printed once at the end: the share of definite verdicts. */
const shares = new Map<string, { definite: number; total: number; nameOnly: number; nameOnlyTotal: number }>();
afterAll(() => {
  for (const [family, s] of [...shares].sort(([a], [b]) => a.localeCompare(b))) {
    const pct = Math.round((100 * s.definite) / s.total);
    process.stdout.write(
      `family ${family}: ${s.definite}/${s.total} definite with content off (${pct}%); name-only cases kept ${s.nameOnly}/${s.nameOnlyTotal}\n`,
    );
  }
});

describe.each([...PRODUCERS, ...AI_SDK_7])('$producer', ({ producer, requirements, family, captureSwitch, nameOnly: minimum }) => {
  it('content on and off: one final line per case; definite verdicts agree; the rest unscorable naming family and switch', async () => {
    const on = await produce(producer, requirements, 'on');
    expect(on.uninterpretable).toBe(0);
    expect(Object.fromEntries(Object.entries(on.lines).map(([k, l]) => [k, l.category]))).toEqual(WITH_CONTENT);
    for (const [id, l] of Object.entries(on.lines)) expect([id, l.family]).toEqual([id, family]);
    const off = await produce(producer, requirements, 'off');
    expect(off.uninterpretable).toBe(0);
    expect(Object.keys(off.lines).sort()).toEqual(Object.keys(WITH_CONTENT).sort());
    let definite = 0;
    let nameOnly = 0;
    for (const [id, l] of Object.entries(off.lines)) {
      expect([id, l.family, l.final]).toEqual([id, family, true]);
      if (l.category !== 'unscorable') {
        definite++;
        if (NAME_ONLY.has(id)) nameOnly++;
        expect([id, l.category]).toEqual([id, WITH_CONTENT[id]]);
      } else if (!/arguments not captured/.test(l.reason)) {
        expect(l.reason).toContain(family);
        expect(l.reason).toContain(captureSwitch);
      }
    }
    expect(off.lines['weather-args']!.category).toBe('unscorable');
    process.stdout.write(`${producer} (${family}): ${definite}/${CASES.length} definite with content off (${nameOnly}/${NAME_ONLY.size} name-only cases)\n`);
    const s = shares.get(family) ?? { definite: 0, total: 0, nameOnly: 0, nameOnlyTotal: 0 };
    shares.set(family, {
      definite: s.definite + definite,
      total: s.total + CASES.length,
      nameOnly: s.nameOnly + nameOnly,
      nameOnlyTotal: s.nameOnlyTotal + NAME_ONLY.size,
    });
    expect(nameOnly).toBeGreaterThanOrEqual(minimum);
  });
});
