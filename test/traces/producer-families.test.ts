// One rule for every producer, on traces real instrumentations wrote, content on and off, against a local
// fake OpenAI server: npm ones (scripts/producer-fixtures.cjs) and Python ones (python-*, copied from the
// integration tier's output). With content off the same traces used to get false failures (wrong_args for
// arguments the trace cannot show), no_run for tool calls it hides, or no verdict line at all. Now: one line
// per trace and case, the family named; a definite verdict with content off equals the one with content on;
// any other difference is `unscorable` naming what is missing and the switch that captures it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreTraceFiles } from '../../src/traces/pipeline.js';
import type { TraceOutcome, TraceVerdictLine } from '../../src/traces/score-traces.js';
import type { ArgExpectation, Case } from '../../src/types/index.js';
import { makeCase } from '../scoring/_build.js';

const DIR = join(import.meta.dirname, 'fixtures', 'producers');
const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });
type AgentKey = 'service.name' | 'gen_ai.agent.name';
const agent = (name: string, key: AgentKey) => ({ attributes: { [key]: name } });

/** Cases whose verdict needs only tool names or a finish reason, and one that needs an argument. */
const NAME_ONLY = new Set(['weather-tool', 'news-not-weather', 'ops-forbidden', 'chat-no-run', 'weather-no-run']);
/** The cases, matching the agent by `key`: the npm fixtures name it in service.name, the Python ones on the agent span. */
const casesFor = (key: AgentKey): Case[] => [
  makeCase({ id: 'weather-tool', runspec: { tool: ['get_weather'] }, match: agent('weather-agent', key) }),
  makeCase({ id: 'weather-args', runspec: { tool: ['get_weather'], args: { city: eq('Paris') } }, match: agent('weather-agent', key) }),
  makeCase({ id: 'weather-no-run', runspec: { noRun: true }, match: agent('weather-agent', key) }),
  makeCase({ id: 'news-not-weather', runspec: { tool: ['get_weather'] }, match: agent('news-agent', key) }),
  makeCase({ id: 'ops-forbidden', runspec: { forbidTools: ['restart_service'] }, match: agent('ops-agent', key) }),
  makeCase({ id: 'chat-no-run', runspec: { noRun: true }, match: agent('chat-agent', key) }),
];
const CASE_COUNT = casesFor('service.name').length;
/** What each case's trace shows with content (the model's actual behaviour in the fake server's script). */
const WITH_CONTENT: Record<string, string> = {
  'weather-tool': 'pass',
  'weather-args': 'pass',
  'weather-no-run': 'unexpected_run',
  'news-not-weather': 'wrong_tool',
  'ops-forbidden': 'forbidden_tool',
  'chat-no-run': 'pass',
};

// `nameOnlyDefinite`: how many name-only cases keep their verdict with content off. The contrib events
// and the AI SDK's ai.toolCall spans name the calls; the OpenLLMetry and OpenInference OpenAI
// instrumentations alone (no tool spans: scripts/producer-fixtures.cjs makes one bare model call) record
// only the finish reason. openinference-agent runs the agent loop with its tools in @arizeai/openinference-core's
// `traceTool` spans, which keep the names. The python-* fixtures are copies of what the integration tier's Python producers
// exported (test/integration/producers.test.ts, corpora/*.otlp.jsonl): an agent loop whose tools run in the
// producer's own tool spans (OpenInference `OITracer.tool`, traceloop-sdk's `@tool`), which keep the names.
const FAMILIES = [
  { fixture: 'contrib-openai', family: 'otel-contrib-openai', captureSwitch: 'captureMessageContent', nameOnlyDefinite: 5, key: 'service.name' as const },
  { fixture: 'openllmetry', family: 'openllmetry', captureSwitch: 'traceContent', nameOnlyDefinite: 2, key: 'service.name' as const },
  { fixture: 'openinference', family: 'openinference', captureSwitch: 'hideOutputs', nameOnlyDefinite: 2, key: 'service.name' as const },
  { fixture: 'openinference-agent', family: 'openinference', captureSwitch: 'hideOutputs', nameOnlyDefinite: 5, key: 'service.name' as const },
  { fixture: 'ai-sdk-6', family: 'ai-sdk', captureSwitch: 'recordOutputs', nameOnlyDefinite: 5, key: 'service.name' as const },
  {
    fixture: 'python-openinference',
    family: 'openinference',
    captureSwitch: 'OPENINFERENCE_HIDE_OUTPUTS',
    nameOnlyDefinite: 5,
    key: 'gen_ai.agent.name' as const,
  },
  {
    fixture: 'python-traceloop-attributes',
    family: 'openllmetry',
    captureSwitch: 'TRACELOOP_TRACE_CONTENT',
    nameOnlyDefinite: 5,
    key: 'gen_ai.agent.name' as const,
  },
];

/** The final lines of a fixture (a later outcome of a trace replaces its earlier one), keyed by case. */
async function finalLines(file: string, key: AgentKey): Promise<{ lines: TraceVerdictLine[]; uninterpretable: number }> {
  const last = new Map<string, TraceOutcome>();
  await scoreTraceFiles([join(DIR, file)], { cwd: DIR, cases: casesFor(key), onOutcome: (o) => last.set(o.traceId, o) });
  const lines: TraceVerdictLine[] = [];
  let uninterpretable = 0;
  for (const o of last.values()) {
    if (o.kind === 'scored') lines.push(...o.lines);
    else uninterpretable++;
  }
  return { lines, uninterpretable };
}

const byCase = (lines: TraceVerdictLine[]): Record<string, TraceVerdictLine> => Object.fromEntries(lines.map((l) => [l.case!, l]));
const isDefinite = (l: TraceVerdictLine): boolean => l.category !== 'unscorable' && l.category !== 'incomplete' && l.category !== null;

describe.each(FAMILIES)('$fixture traces', ({ fixture, family, captureSwitch, nameOnlyDefinite: minimum, key }) => {
  it('with content: one line per case, every verdict definite and right, the family named', async () => {
    const on = await finalLines(`${fixture}-content-on.jsonl`, key);
    expect(on.uninterpretable).toBe(0);
    expect(on.lines).toHaveLength(CASE_COUNT);
    const got = Object.fromEntries(Object.entries(byCase(on.lines)).map(([k, l]) => [k, l.category]));
    expect(got).toEqual(WITH_CONTENT);
    for (const l of on.lines) expect(l.family).toBe(family);
  });

  it('without content: one line per case; definite verdicts equal the content run, the rest unscorable naming family and switch', async () => {
    const off = await finalLines(`${fixture}-content-off.jsonl`, key);
    expect(off.uninterpretable).toBe(0);
    expect(off.lines).toHaveLength(CASE_COUNT);
    const lines = byCase(off.lines);
    let definite = 0;
    let nameOnlyDefinite = 0;
    for (const [id, l] of Object.entries(lines)) {
      expect(l.family).toBe(family);
      if (isDefinite(l)) {
        definite++;
        if (NAME_ONLY.has(id)) nameOnlyDefinite++;
        expect([id, l.category]).toEqual([id, WITH_CONTENT[id]]);
      } else {
        expect([id, l.category]).toEqual([id, 'unscorable']);
        expect(l.reason).toMatch(/^not checkable: /);
        // The argument case names the missing arguments; a hidden decision names the family and its switch.
        if (!/arguments not captured/.test(l.reason)) {
          expect(l.reason).toContain(family);
          expect(l.reason).toContain(captureSwitch);
        }
      }
    }
    // The argument the content-off trace cannot show is never judged.
    expect(lines['weather-args']!.category).toBe('unscorable');
    process.stdout.write(
      `${fixture} (${family}): ${definite}/${CASE_COUNT} definite with content off (${nameOnlyDefinite}/${NAME_ONLY.size} name-only cases)\n`,
    );
    expect(nameOnlyDefinite).toBeGreaterThanOrEqual(minimum);
  });
});
