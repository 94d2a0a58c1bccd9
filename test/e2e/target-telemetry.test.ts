import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startOtlpSink, type FlatSpan, type OtlpSink } from '../helpers/otlp-sink.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';
import { caseResultsFromDocument } from '../../src/report/results.js';
import { AGENTS, CASES_TOML, SCRIPT } from '../targets/_project.js';
import { ATTR_RUNSPEC_EVAL_CATEGORY } from '../../src/semconv/attributes.js';

// Telemetry of an agent target through the built CLI: the agent's own spans reach the telemetry backend as
// they were emitted (same trace and span ids, each once), joined under the case's root span, which carries
// our verdict attributes; no chat/execute_tool span is re-rendered from the normalised Run.

describe('agent target telemetry: the agent spans plus our verdict, none duplicated', { timeout: 120_000 }, () => {
  const project = tempProject('runspec-target-telemetry-');
  let model: FakeModelServer;
  beforeAll(async () => {
    model = await startFakeOpenAI({ script: SCRIPT });
    project.write('cases.toml', CASES_TOML);
    project.write(
      'runspec.toml',
      `[targets.cmd]
kind = "command"
command = ["${process.execPath}", "${join(AGENTS, 'command-agent.mjs')}"]
vars = { base_url = "${model.url}" }
quiet_ms = 50

[targets.aisdk]
kind = "module"
module = "${join(AGENTS, 'ai-sdk.mjs')}"
vars = { base_url = "${model.url}" }
quiet_ms = 50
`,
    );
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  async function runWithSink(
    target: string,
    extraEnv: Record<string, string> = {},
  ): Promise<{
    sink: OtlpSink;
    spans: FlatSpan[];
    categories: Record<string, string>;
    verdictTraces: Record<string, { trace_id?: string; root_span_id?: string }>;
  }> {
    const sink = await startOtlpSink();
    try {
      const out = join(project.dir, `out/${target}.json`);
      const cli = await runCli(['--path', project.dir, 'run', 'cases.toml', '--target', target, '--out', out, '--output', 'json', '--telemetry'], {
        env: cliEnv(project.dir, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...extraEnv }),
        cwd: project.dir,
        spawn: true,
      });
      expect(cli.stderr).not.toMatch(/^(error|warning)/m);
      expect(cli.exitCode).toBe(1);
      const doc = JSON.parse(readFileSync(out, 'utf8'));
      const results = caseResultsFromDocument(doc);
      const categories = Object.fromEntries(results.map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string } }).verdict.category]));
      const verdictTraces = Object.fromEntries(
        results.map((r) => [r.caseId, (r.samples[0] as { verdict: { trace?: { traceId: string; rootSpanId: string } } }).verdict.trace ?? {}]),
      ) as never;
      return { sink, spans: sink.spans(), categories, verdictTraces };
    } finally {
      await sink.close();
    }
  }

  /** Every exported span id once; per case one root, holding the verdict; every other span in its trace under it. */
  function checkTraces(spans: FlatSpan[], categories: Record<string, string>): Map<string, FlatSpan> {
    const ids = spans.map((s) => `${s.traceId}/${s.spanId}`);
    expect(new Set(ids).size).toBe(ids.length);
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(2);
    const byCase = new Map<string, FlatSpan>();
    for (const root of roots) {
      const caseId = root.attributes['runspec.target.case_id'] as string;
      expect(root.attributes[ATTR_RUNSPEC_EVAL_CATEGORY]).toBe(categories[caseId]);
      byCase.set(caseId, root);
    }
    // Every span reaches a case root through parents of its own trace (same trace id all the way up).
    const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
    for (const s of spans) {
      let cur: FlatSpan | undefined = s;
      while (cur?.parentSpanId) cur = byId.get(`${cur.traceId}/${cur.parentSpanId}`);
      expect(cur && roots.includes(cur)).toBe(true);
    }
    // Nothing rendered from the normalised Run: no span of ours beside the roots.
    expect(spans.filter((s) => s.parentSpanId && /^(chat|execute_tool) /.test(s.name))).toEqual([]);
    return byCase;
  }

  /** The text of every exported span: attributes, events, status, as the backend received them. */
  const exportedText = (spans: FlatSpan[]): string => JSON.stringify(spans.map((s) => ({ attributes: s.attributes, events: s.events, status: s.status })));
  // A case's prompt and the model's answer: content, which only capture_content lets out.
  const PROMPT = 'What time is it in Tokyo?';
  const ANSWER = 'It rains in Tokyo.';

  it("exports a command agent's spans with their own ids, once each, under the case root with the verdict", async () => {
    const idFile = join(project.dir, 'agent-span-ids.txt');
    const { spans, categories, verdictTraces } = await runWithSink('cmd', { SPAN_ID_FILE: idFile });
    expect(categories).toEqual({ 'weather-paris': 'pass', 'time-tokyo': 'wrong_tool' });
    const agentIds = readFileSync(idFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.replace(' ', '/'));
    expect(agentIds.length).toBeGreaterThanOrEqual(2);
    const exported = spans.map((s) => `${s.traceId}/${s.spanId}`);
    for (const id of agentIds) expect(exported.filter((e) => e === id)).toHaveLength(1);
    // The agent's spans plus one case root per case: nothing else.
    expect(spans).toHaveLength(agentIds.length + 2);
    const roots = checkTraces(spans, categories);
    // The verdict in the results file links to the exported root.
    for (const [caseId, root] of roots) expect(verdictTraces[caseId]).toMatchObject({ traceId: root.traceId, rootSpanId: root.spanId });
    // The agent's resource travels with its spans.
    const agentSpan = spans.find((s) => s.spanId === agentIds[0]!.split('/')[1])!;
    expect(agentSpan.scope.name).toMatch(/openinference/);
    // capture_content is off by default: the agent's prompts and answers stay out of telemetry.
    expect(exportedText(spans)).not.toContain(PROMPT);
    expect(exportedText(spans)).not.toContain(ANSWER);
  });

  it("exports an AI SDK module's spans once each under the case root with the verdict", async () => {
    const { spans, categories } = await runWithSink('aisdk');
    expect(categories).toEqual({ 'weather-paris': 'pass', 'time-tokyo': 'wrong_tool' });
    checkTraces(spans, categories);
    // The AI SDK's own spans, as it named them.
    expect(spans.filter((s) => s.name === 'ai.generateText.doGenerate').length).toBeGreaterThanOrEqual(2);
    expect(exportedText(spans)).not.toContain(PROMPT);
    expect(exportedText(spans)).not.toContain(ANSWER);
  });

  it.each(['cmd', 'aisdk'])("exports the %s agent's prompts as they arrived with content capture on", async (target) => {
    const { spans } = await runWithSink(target, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    // On an agent span, not only on our case root.
    const agentSpans = spans.filter((s) => s.parentSpanId);
    expect(exportedText(agentSpans)).toContain(PROMPT);
    // The AI SDK agent's final answer too (the command agent's one span records only the tool-call turn).
    if (target === 'aisdk') expect(exportedText(agentSpans)).toContain(ANSWER);
  });
});
