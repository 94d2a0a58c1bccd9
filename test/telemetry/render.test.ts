// Exports hand-built scored Runs through the official OTLP exporters to a local receiver and asserts the
// exact span tree and every attribute as decoded from the wire. Attribute keys are spelled out on purpose:
// this test pins the wire format independently of the constants the code uses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OtlpProtocol, TelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry, type RenderInput } from '../../src/telemetry/index.js';
import type { ToolMode } from '../../src/types/toolset.js';
import { startOtlpSink, type FlatSpan, type OtlpSink } from '../helpers/otlp-sink.js';
import {
  asJson,
  DECISION_CASE,
  DECISION_RESULT,
  decisionRun,
  decisionVerdict,
  STATUS_TOOL,
  RESTART_TOOL,
  SEARCH_TOOL,
  T0,
  takePromised,
  TERMINAL_BY_MODE,
  TOOLSET,
  TRAJECTORY_CASE,
  trajectoryRun,
  trajectoryVerdict,
} from './_fixtures.js';

const RUN_ID = 'run-1';
const nanos = (ms: number): string => (BigInt(ms) * 1_000_000n).toString();

function otlpConfig(url: string, protocol: OtlpProtocol, captureContent: boolean): TelemetryConfig {
  return {
    enabled: true,
    captureContent,
    captureHashed: false,
    annotations: false,
    phoenixExperiment: false,
    exporter: { kind: 'otlp', url: `${url}/v1/traces`, protocol, headers: { 'x-test': 'yes' }, compression: 'none' },
    timeoutMs: 5000,
    serviceName: 'runspec-test',
    resourceAttributes: { 'deployment.environment.name': 'ci' },
    project: 'evals',
    apiKeyEnv: 'PHOENIX_API_KEY',
    sources: {
      enabled: 'default',
      captureContent: 'default',
      annotations: 'default',
      endpoint: 'env',
      protocol: 'env',
      timeoutMs: 'default',
      annotationsUrl: 'default',
      project: 'default',
      serviceName: 'default',
    },
  };
}

async function exportOne(sink: OtlpSink, protocol: OtlpProtocol, input: Omit<RenderInput, 'captureContent'>, captureContent = true) {
  sink.requests.length = 0;
  const warnings: string[] = [];
  const telemetry = createTelemetry(otlpConfig(sink.url, protocol, captureContent), { onWarning: (m) => warnings.push(m) });
  const ids = telemetry.emitCase(input)!;
  await telemetry.shutdown();
  expect(warnings).toEqual([]);
  return { ids, spans: sink.spans() };
}

function byId(spans: FlatSpan[], id: string): FlatSpan {
  const s = spans.find((x) => x.spanId === id);
  if (!s) throw new Error(`span ${id} not exported`);
  return s;
}

const conversation = (caseId: string, sample: number): string => `${RUN_ID}/${caseId}/${sample}`;

function evaluationAttrs(pass: boolean, label: string, explanation: string, identifier: string, name = 'runspec.tool_selection'): Record<string, unknown> {
  return {
    'evaluations.0.evaluation.name': name,
    'evaluations.0.evaluation.score': pass ? 1 : 0,
    'evaluations.0.evaluation.label': label,
    'evaluations.0.evaluation.explanation': explanation,
    'evaluations.0.evaluation.annotator_kind': 'CODE',
    'evaluations.0.evaluation.identifier': identifier,
  };
}

function decisionRootAttrs(mode: ToolMode, calls: number, capture: boolean): Record<string, unknown> {
  const conv = conversation('check-api', 1);
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': 'openai',
    'gen_ai.agent.name': 'runspec-eval',
    'gen_ai.conversation.id': conv,
    'gen_ai.request.model': 'gpt-test',
    'gen_ai.usage.input_tokens': 100 * calls,
    'gen_ai.usage.output_tokens': 20 * calls,
    'openinference.span.kind': 'AGENT',
    'agent.name': 'runspec-eval',
    // One Phoenix session per run; the conversation stays per sample.
    'session.id': RUN_ID,
    metadata: asJson({ case_id: 'check-api', suite: 'ops', sample: 1, run_id: RUN_ID, mode: 'decision', dialect: 'runspec' }),
    // Decision mode: the root's output is the decision and its verdict (arguments only with content capture).
    'output.value': asJson({
      decision: {
        tool: 'service_status',
        host: 'web-1',
        autonomy: 'autonomous',
        executed: false,
        ...(capture ? { args: decisionRun(mode).terminal!.call.arguments } : {}),
      },
      verdict: { category: 'pass', pass: true, reason: 'called the expected tool' },
    }),
    'output.mime_type': 'application/json',
    'tag.tags': ['smoke'],
    'langsmith.span.kind': 'chain',
    ...(capture ? { 'input.value': DECISION_CASE.prompt, 'input.mime_type': 'text/plain' } : {}),
    'runspec.eval.case_id': 'check-api',
    'runspec.eval.suite': 'ops',
    'runspec.eval.sample': 1,
    'runspec.eval.run_id': RUN_ID,
    'runspec.eval.dialect': 'runspec',
    'runspec.eval.pass': true,
    'runspec.eval.category': 'pass',
    'runspec.eval.reason': 'called the expected tool',
    'runspec.eval.status': 'ok',
    'runspec.eval.tool_mode': mode,
    'runspec.eval.expected_tool': 'service_status',
    'runspec.eval.observed_tool': 'service_status',
    'runspec.eval.expected_host': 'web-1',
    'runspec.eval.observed_host': 'web-1',
    'runspec.eval.observed_autonomy': 'autonomous',
    'runspec.eval.json_dump': false,
    'runspec.eval.calls': 1,
    'runspec.eval.tokens': 120 * calls,
    'runspec.eval.samples': 2,
    'runspec.eval.pass_rate': 0.5,
    'runspec.eval.pass_rate_low': 0.1,
    'runspec.eval.pass_rate_high': 0.9,
    'runspec.eval.threshold': 0.8,
    'runspec.eval.meets_threshold': false,
    ...evaluationAttrs(true, 'pass', 'called the expected tool', 'check-api#1'),
  };
}

function llmBase(p: {
  conv: string;
  provider: string;
  oiProvider: string;
  model: string;
  responseModel: string;
  finish: string;
  input: number;
  output: number;
  total: number;
}): Record<string, unknown> {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': p.provider,
    'gen_ai.request.model': p.model,
    'gen_ai.response.model': p.responseModel,
    'gen_ai.response.finish_reasons': [p.finish],
    'gen_ai.usage.input_tokens': p.input,
    'gen_ai.usage.output_tokens': p.output,
    'gen_ai.conversation.id': p.conv,
    'openinference.span.kind': 'LLM',
    'llm.model_name': p.responseModel,
    'llm.provider': p.oiProvider,
    'llm.system': p.oiProvider,
    'llm.token_count.prompt': p.input,
    'llm.token_count.completion': p.output,
    'llm.token_count.total': p.total,
    'llm.finish_reason': p.finish,
    'session.id': RUN_ID,
    'langsmith.span.kind': 'llm',
  };
}

function toolBase(name: string, id: string, description: string, executed: boolean): Record<string, unknown> {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': id,
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.description': description,
    'openinference.span.kind': 'TOOL',
    'tool.name': name,
    'tool.description': description,
    'tool_call.id': id,
    'tool.id': id,
    'runspec.eval.executed': executed,
    'langsmith.span.kind': 'tool',
  };
}

const defs = (tools: Array<{ name: string; description: string; parameters: unknown }>) => ({
  gen: tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
  oi: Object.fromEntries(
    tools.map((t, i) => [
      `llm.tools.${i}.tool.json_schema`,
      asJson({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }),
    ]),
  ),
});

describe.each<OtlpProtocol>(['http/protobuf', 'http/json'])('spans exported over %s', (protocol) => {
  let sink: OtlpSink;
  beforeAll(async () => {
    sink = await startOtlpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  it('sends to /v1/traces with the configured headers, content type and resource', async () => {
    await exportOne(sink, protocol, {
      case: DECISION_CASE,
      run: decisionRun('dedup'),
      verdict: decisionVerdict('dedup'),
      result: { ...DECISION_RESULT, samples: [{} as never, {} as never] },
      runId: RUN_ID,
      toolset: TOOLSET,
    });
    expect(sink.requests.length).toBeGreaterThan(0);
    for (const r of sink.requests) {
      expect(r.path).toBe('/v1/traces');
      expect(r.headers['x-test']).toBe('yes');
      expect(r.contentType).toBe(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
    }
    const root = sink.rootSpan();
    expect(root.resource).toEqual({ 'service.name': 'runspec-test', 'openinference.project.name': 'evals', 'deployment.environment.name': 'ci' });
    expect(root.scope.name).toBe('runspec-eval');
  });

  it.each<ToolMode>(['dedup', 'per_host'])('renders a decision case in %s mode as turn → llm → tool with every promised attribute', async (mode) => {
    const result = { ...DECISION_RESULT, samples: [{} as never, {} as never] };
    const { ids, spans } = await exportOne(sink, protocol, {
      case: DECISION_CASE,
      run: decisionRun(mode),
      verdict: decisionVerdict(mode),
      result,
      runId: RUN_ID,
      toolset: TOOLSET,
    });
    expect(spans).toHaveLength(3);
    const root = byId(spans, ids.rootSpanId);
    const llm = byId(spans, ids.llmSpanIds[0]!);
    const tool = byId(spans, ids.toolSpanIds[0]!);
    const t = TERMINAL_BY_MODE[mode];
    const conv = conversation('check-api', 1);

    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([ids.traceId]));
    expect([root.name, root.kind, root.parentSpanId, root.status]).toEqual(['invoke_agent runspec-eval', 1, undefined, { code: 0 }]);
    expect([llm.name, llm.kind, llm.parentSpanId, llm.status]).toEqual(['chat gpt-test', 3, root.spanId, { code: 0 }]);
    // execute_tool sits beside the chat span under the agent span (GenAI agent conventions), tied by call id.
    expect([tool.name, tool.kind, tool.parentSpanId, tool.status]).toEqual([`execute_tool ${t.name}`, 1, root.spanId, { code: 0 }]);
    expect([root.startTimeUnixNano, root.endTimeUnixNano]).toEqual([nanos(T0), nanos(T0 + 500)]);
    expect([llm.startTimeUnixNano, llm.endTimeUnixNano]).toEqual([nanos(T0 + 10), nanos(T0 + 300)]);
    expect([tool.startTimeUnixNano, tool.endTimeUnixNano]).toEqual([nanos(T0 + 300), nanos(T0 + 300)]);

    expect(takePromised(root.attributes, decisionRootAttrs(mode, 1, true))).toEqual({});
    expect(root.events).toEqual([
      {
        name: 'gen_ai.evaluation.result',
        timeUnixNano: nanos(T0 + 500),
        attributes: {
          'gen_ai.evaluation.name': 'runspec.tool_selection',
          'gen_ai.evaluation.score.value': 1,
          'gen_ai.evaluation.score.label': 'pass',
          'gen_ai.evaluation.explanation': 'called the expected tool',
        },
      },
    ]);

    const tools = defs([{ ...STATUS_TOOL, name: t.name }, RESTART_TOOL]);
    const inputMessages = [
      { role: 'system', parts: [{ type: 'text', content: 'SECRET-SYSTEM you are an ops agent' }] },
      { role: 'user', parts: [{ type: 'text', content: DECISION_CASE.prompt }] },
    ];
    const outputMessages = [
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'SECRET-TEXT checking' },
          { type: 'tool_call', id: 'call_t1', name: t.name, arguments: t.args },
        ],
        finish_reason: 'tool_call',
      },
    ];
    expect(
      takePromised(llm.attributes, {
        ...llmBase({
          conv,
          provider: 'openai',
          oiProvider: 'openai',
          model: 'gpt-test',
          responseModel: 'gpt-test-0001',
          finish: 'tool_calls',
          input: 100,
          output: 20,
          total: 120,
        }),
        'gen_ai.response.id': 'chatcmpl-1',
        'server.address': 'api.openai.test',
        'server.port': 443,
        'gen_ai.request.temperature': 0,
        'gen_ai.request.max_tokens': 512,
        'llm.invocation_parameters': asJson({ temperature: 0, max_tokens: 512 }),
        'gen_ai.input.messages': asJson(inputMessages),
        'gen_ai.output.messages': asJson(outputMessages),
        'gen_ai.tool.definitions': asJson(tools.gen),
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'SECRET-SYSTEM you are an ops agent',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': DECISION_CASE.prompt,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'SECRET-TEXT checking',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_t1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': t.name,
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': asJson(t.args),
        ...tools.oi,
        'input.value': asJson(inputMessages),
        'input.mime_type': 'application/json',
        'output.value': asJson(outputMessages),
        'output.mime_type': 'application/json',
      }),
    ).toEqual({});

    expect(
      takePromised(tool.attributes, {
        ...toolBase(t.name, 'call_t1', STATUS_TOOL.description, false),
        'gen_ai.tool.call.arguments': asJson(t.args),
        'input.value': asJson(t.args),
        'input.mime_type': 'application/json',
      }),
    ).toEqual({});
  });

  it('renders a decision case in search mode: the discovery call is executed, the terminal call is not', async () => {
    const result = { ...DECISION_RESULT, samples: [{} as never, {} as never] };
    const { ids, spans } = await exportOne(sink, protocol, {
      case: DECISION_CASE,
      run: decisionRun('search'),
      verdict: decisionVerdict('search'),
      result,
      runId: RUN_ID,
      toolset: TOOLSET,
    });
    expect(spans).toHaveLength(5);
    const root = byId(spans, ids.rootSpanId);
    const [llm0, llm1] = ids.llmSpanIds.map((id) => byId(spans, id));
    const [search, terminal] = ids.toolSpanIds.map((id) => byId(spans, id));
    const conv = conversation('check-api', 1);
    expect(llm0!.parentSpanId).toBe(root.spanId);
    expect(llm1!.parentSpanId).toBe(root.spanId);
    expect(search!.parentSpanId).toBe(root.spanId);
    expect(terminal!.parentSpanId).toBe(root.spanId);
    expect(spans.map((s) => s.name).sort()).toEqual([
      'chat gpt-test',
      'chat gpt-test',
      'execute_tool search_runnables',
      'execute_tool service_status',
      'invoke_agent runspec-eval',
    ]);
    expect(takePromised(root.attributes, decisionRootAttrs('search', 2, true))).toEqual({});

    const searchArgs = { query: 'SECRET-ARG-status' };
    const searchResult = 'SECRET-RESULT service_status: Show whether a service is running.';
    const system = { role: 'system', parts: [{ type: 'text', content: 'SECRET-SYSTEM you are an ops agent' }] };
    const user = { role: 'user', parts: [{ type: 'text', content: DECISION_CASE.prompt }] };
    const firstOut = [
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_s1', name: 'search_runnables', arguments: searchArgs }], finish_reason: 'tool_call' },
    ];
    const t = TERMINAL_BY_MODE.search;
    const secondIn = [
      system,
      user,
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_s1', name: 'search_runnables', arguments: searchArgs }] },
      { role: 'tool', name: 'search_runnables', parts: [{ type: 'tool_call_response', id: 'call_s1', response: searchResult }] },
    ];
    const secondOut = [{ role: 'assistant', parts: [{ type: 'tool_call', id: 'call_t1', name: t.name, arguments: t.args }], finish_reason: 'tool_call' }];
    const base = {
      conv,
      provider: 'openai',
      oiProvider: 'openai',
      model: 'gpt-test',
      responseModel: 'gpt-test-0001',
      finish: 'tool_calls',
      input: 100,
      output: 20,
      total: 120,
    };
    const params = {
      'gen_ai.request.temperature': 0,
      'gen_ai.request.max_tokens': 512,
      'llm.invocation_parameters': asJson({ temperature: 0, max_tokens: 512 }),
    };
    const oneTool = defs([SEARCH_TOOL]);
    expect(
      takePromised(llm0!.attributes, {
        ...llmBase(base),
        ...params,
        'gen_ai.response.id': 'chatcmpl-1',
        'gen_ai.input.messages': asJson([system, user]),
        'gen_ai.output.messages': asJson(firstOut),
        'gen_ai.tool.definitions': asJson(oneTool.gen),
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'SECRET-SYSTEM you are an ops agent',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': DECISION_CASE.prompt,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_s1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'search_runnables',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': asJson(searchArgs),
        ...oneTool.oi,
        'input.value': asJson([system, user]),
        'input.mime_type': 'application/json',
        'output.value': asJson(firstOut),
        'output.mime_type': 'application/json',
      }),
    ).toEqual({});
    const twoTools = defs([SEARCH_TOOL, STATUS_TOOL]);
    expect(
      takePromised(llm1!.attributes, {
        ...llmBase(base),
        ...params,
        'gen_ai.response.id': 'chatcmpl-2',
        'gen_ai.input.messages': asJson(secondIn),
        'gen_ai.output.messages': asJson(secondOut),
        'gen_ai.tool.definitions': asJson(twoTools.gen),
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'SECRET-SYSTEM you are an ops agent',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': DECISION_CASE.prompt,
        'llm.input_messages.2.message.role': 'assistant',
        'llm.input_messages.2.message.tool_calls.0.tool_call.id': 'call_s1',
        'llm.input_messages.2.message.tool_calls.0.tool_call.function.name': 'search_runnables',
        'llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments': asJson(searchArgs),
        'llm.input_messages.3.message.role': 'tool',
        'llm.input_messages.3.message.content': searchResult,
        'llm.input_messages.3.message.tool_call_id': 'call_s1',
        'llm.input_messages.3.message.name': 'search_runnables',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_t1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': t.name,
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': asJson(t.args),
        ...twoTools.oi,
        'input.value': asJson(secondIn),
        'input.mime_type': 'application/json',
        'output.value': asJson(secondOut),
        'output.mime_type': 'application/json',
      }),
    ).toEqual({});
    expect(
      takePromised(search!.attributes, {
        ...toolBase('search_runnables', 'call_s1', SEARCH_TOOL.description, true),
        'gen_ai.tool.call.arguments': asJson(searchArgs),
        'input.value': asJson(searchArgs),
        'input.mime_type': 'application/json',
        'gen_ai.tool.call.result': searchResult,
        'output.value': searchResult,
        'output.mime_type': 'text/plain',
      }),
    ).toEqual({});
    expect(
      takePromised(terminal!.attributes, {
        ...toolBase('service_status', 'call_t1', STATUS_TOOL.description, false),
        'gen_ai.tool.call.arguments': asJson(t.args),
        'input.value': asJson(t.args),
        'input.mime_type': 'application/json',
      }),
    ).toEqual({});
  });

  it('renders a trajectory case: three model calls, executed tools, a failed tool call marked ERROR', async () => {
    const run = trajectoryRun();
    const { ids, spans } = await exportOne(sink, protocol, { case: TRAJECTORY_CASE, run, verdict: trajectoryVerdict(), runId: RUN_ID, agentName: 'fixer' });
    expect(spans).toHaveLength(6);
    const root = byId(spans, ids.rootSpanId);
    const llms = ids.llmSpanIds.map((id) => byId(spans, id));
    const [read, edit] = ids.toolSpanIds.map((id) => byId(spans, id));
    const conv = conversation('fix-typo', 0);
    expect(root.name).toBe('invoke_agent fixer');
    expect(root.status).toEqual({ code: 0 });
    expect(llms.map((s) => [s.name, s.parentSpanId])).toEqual([
      ['chat claude-test', root.spanId],
      ['chat claude-test', root.spanId],
      ['chat claude-test', root.spanId],
    ]);
    expect(read!.parentSpanId).toBe(root.spanId);
    expect(edit!.parentSpanId).toBe(root.spanId);
    expect(edit!.status).toEqual({ code: 2 });
    expect(read!.status).toEqual({ code: 0 });

    expect(
      takePromised(root.attributes, {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.agent.name': 'fixer',
        'gen_ai.conversation.id': conv,
        'gen_ai.request.model': 'claude-test',
        'gen_ai.usage.input_tokens': 250,
        'gen_ai.usage.output_tokens': 37,
        'openinference.span.kind': 'AGENT',
        'agent.name': 'fixer',
        'session.id': RUN_ID,
        metadata: asJson({ case_id: 'fix-typo', sample: 0, run_id: RUN_ID, mode: 'trajectory', dialect: 'replio' }),
        'langsmith.span.kind': 'chain',
        'input.value': TRAJECTORY_CASE.prompt,
        'input.mime_type': 'text/plain',
        'output.value': 'SECRET-FINAL could not fix it',
        'output.mime_type': 'text/plain',
        'runspec.eval.case_id': 'fix-typo',
        'runspec.eval.sample': 0,
        'runspec.eval.run_id': RUN_ID,
        'runspec.eval.dialect': 'replio',
        'runspec.eval.pass': false,
        'runspec.eval.category': 'tool_error',
        'runspec.eval.reason': 'a tool call failed',
        'runspec.eval.status': 'ok',
        'runspec.eval.observed_tool': 'file_edit',
        'runspec.eval.json_dump': false,
        'runspec.eval.calls': 2,
        'runspec.eval.redundant': 0,
        'runspec.eval.errors': 1,
        'runspec.eval.accuracy': 1,
        'runspec.eval.score': 0.5,
        'runspec.eval.match_mode': 'ordered_subset',
        'runspec.eval.tokens': 287,
        ...evaluationAttrs(false, 'tool_error', 'a tool call failed', 'fix-typo#0', 'runspec.trajectory'),
      }),
    ).toEqual({});

    const base = {
      conv,
      provider: 'anthropic',
      oiProvider: 'anthropic',
      model: 'claude-test',
      responseModel: 'claude-test',
      finish: 'tool_use',
      input: 50,
      output: 10,
      total: 60,
    };
    const user = { role: 'user', parts: [{ type: 'text', content: TRAJECTORY_CASE.prompt }] };
    const readArgs = { path: 'SECRET-ARG-README.md' };
    const out0 = [{ role: 'assistant', parts: [{ type: 'tool_call', id: 'call_r', name: 'file_read', arguments: readArgs }], finish_reason: 'tool_call' }];
    const tools = defs(run.modelCalls[0]!.request.tools);
    expect(
      takePromised(llms[0]!.attributes, {
        ...llmBase(base),
        'gen_ai.request.temperature': 0.2,
        'llm.invocation_parameters': asJson({ temperature: 0.2 }),
        'gen_ai.input.messages': asJson([user]),
        'gen_ai.output.messages': asJson(out0),
        'gen_ai.tool.definitions': asJson(tools.gen),
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': TRAJECTORY_CASE.prompt,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_r',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'file_read',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': asJson(readArgs),
        ...tools.oi,
        'input.value': asJson([user]),
        'input.mime_type': 'application/json',
        'output.value': asJson(out0),
        'output.mime_type': 'application/json',
      }),
    ).toEqual({});
    // The last call ends the turn: text, no tool calls, canonical finish reason `stop`.
    const last = llms[2]!.attributes;
    expect(last['gen_ai.response.finish_reasons']).toEqual(['end_turn']);
    expect(JSON.parse(last['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'SECRET-FINAL could not fix it' }], finish_reason: 'stop' },
    ]);
    expect(last['llm.input_messages.4.message.tool_call_id']).toBe('call_e');
    expect(last['llm.output_messages.0.message.content']).toBe('SECRET-FINAL could not fix it');

    expect(
      takePromised(edit!.attributes, {
        ...toolBase('file_edit', 'call_e', 'Edit a file.', true),
        'error.type': 'tool_error',
        'gen_ai.tool.call.arguments': asJson({ path: 'README.md', old: 'SECRET-ARG-helo', new: 'hello' }),
        'input.value': asJson({ path: 'README.md', old: 'SECRET-ARG-helo', new: 'hello' }),
        'input.mime_type': 'application/json',
        'gen_ai.tool.call.result': 'Error: SECRET-RESULT old text not found',
        'output.value': 'Error: SECRET-RESULT old text not found',
        'output.mime_type': 'text/plain',
      }),
    ).toEqual({});
  });

  it('compresses the export with gzip when OTEL_EXPORTER_OTLP_COMPRESSION=gzip', async () => {
    sink.requests.length = 0;
    const cfg = otlpConfig(sink.url, protocol, false);
    const telemetry = createTelemetry({ ...cfg, exporter: { ...cfg.exporter, compression: 'gzip' } as typeof cfg.exporter });
    telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), runId: RUN_ID });
    await telemetry.shutdown();
    expect(sink.requests.every((r) => r.headers['content-encoding'] === 'gzip')).toBe(true);
    expect(sink.spans()).toHaveLength(3);
  });

  it('with capture_content=false exports no prompt, message, argument or result text', async () => {
    const inputs: Array<Omit<RenderInput, 'captureContent'>> = [
      ...(['dedup', 'per_host', 'search'] as const).map((m) => ({
        case: DECISION_CASE,
        run: decisionRun(m),
        verdict: decisionVerdict(m),
        result: DECISION_RESULT,
        runId: RUN_ID,
      })),
      { case: TRAJECTORY_CASE, run: trajectoryRun(), verdict: trajectoryVerdict(), runId: RUN_ID },
    ];
    sink.requests.length = 0;
    const telemetry = createTelemetry(otlpConfig(sink.url, protocol, false));
    for (const input of inputs) telemetry.emitCase(input);
    await telemetry.shutdown();
    const raw = sink.rawBodies();
    expect(sink.spans()).toHaveLength(3 + 3 + 5 + 6);
    expect(raw).toContain('runspec.eval.category');
    expect(raw).not.toContain('SECRET');
    for (const s of sink.spans()) {
      for (const key of Object.keys(s.attributes)) {
        // A decision root's output is the content-free decision and verdict (no arguments).
        if (s.name.startsWith('invoke_agent') && (key === 'output.value' || key === 'output.mime_type')) {
          if (key === 'output.value') expect(JSON.parse(s.attributes[key] as string).decision).not.toHaveProperty('args');
          continue;
        }
        expect(key).not.toMatch(
          /^(input\.|output\.|gen_ai\.(input|output)\.messages|gen_ai\.tool\.(call\.arguments|call\.result|definitions)|llm\.(input|output)_messages|llm\.tools)/,
        );
      }
    }
    // Without content the tool span still names the chosen tool and whether it ran.
    const terminal = sink.spans().find((s) => s.name === 'execute_tool web-1__service_status')!;
    expect(takePromised(terminal.attributes, toolBase('web-1__service_status', 'call_t1', STATUS_TOOL.description, false))).toEqual({});
  });
});
