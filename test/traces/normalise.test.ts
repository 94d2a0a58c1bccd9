// Each producer family, built from its published conventions (reference sections 1.7, 1.9, 1.11, 2, 7.3).
// Attribute keys are spelled out literally on purpose: these tests pin the wire names producers write.
import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { renderRunTrace } from '../../src/telemetry/index.js';
import { ATTR_RUNSPEC_EVAL_CASE_ID } from '../../src/semconv/attributes.js';
import { normaliseTrace } from '../../src/traces/normalise.js';
import type { NormaliseResult } from '../../src/traces/normalise.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import type { Case } from '../../src/types/case.js';
import type { Run } from '../../src/types/run.js';
import { logRecord, logsRequest, one, request, span, spanId, traceId } from './_otlp.js';

function ok(r: NormaliseResult): Extract<NormaliseResult, { ok: true }> {
  if (!r.ok) throw new Error(`not interpretable: ${r.reason}`);
  return r;
}

function calls(r: NormaliseResult) {
  return ok(r).run.toolCalls.map((t) => ({ id: t.call.id, name: t.call.name, args: t.call.arguments }));
}

describe('our own traces (rendered by src/telemetry)', () => {
  const kase: Case = {
    id: 'restart-api',
    suite: 'ops',
    dialect: 'runspec',
    tags: [],
    source: { file: 'x.toml', source: 'file' },
    prompt: 'the api is down, check it',
    files: {},
    mode: 'decision',
    settings: {},
  };
  const t0 = 1_767_225_600_000;
  const run: Run = {
    caseId: 'restart-api',
    sample: 1,
    mode: 'decision',
    provider: 'openai',
    model: 'gpt-4o',
    toolMode: 'dedup',
    startTimeMs: t0,
    endTimeMs: t0 + 900,
    status: 'ok',
    usage: { promptTokens: 30, completionTokens: 12, totalTokens: 42 },
    modelCalls: [
      {
        index: 0,
        turn: 0,
        startTimeMs: t0 + 10,
        endTimeMs: t0 + 200,
        provider: 'openai',
        requestModel: 'gpt-4o',
        request: { messages: [{ role: 'user', content: 'the api is down, check it' }], tools: [], params: {} },
        response: { toolCalls: [{ id: 'call_a', name: 'search_runnables', arguments: { query: 'status' } }], finishReason: 'tool_calls' },
        usage: { promptTokens: 10, completionTokens: 5 },
      },
      {
        index: 1,
        turn: 1,
        startTimeMs: t0 + 300,
        endTimeMs: t0 + 800,
        provider: 'openai',
        requestModel: 'gpt-4o',
        request: { messages: [{ role: 'user', content: 'the api is down, check it' }], tools: [], params: {} },
        response: { toolCalls: [{ id: 'call_b', name: 'service_status', arguments: { name: 'api', verbose: true } }], finishReason: 'tool_calls' },
        usage: { promptTokens: 20, completionTokens: 7 },
      },
    ],
    toolCalls: [],
  };
  run.toolCalls = [
    { turn: 0, modelCallIndex: 0, call: run.modelCalls[0]!.response!.toolCalls[0]!, startTimeMs: t0 + 210, endTimeMs: t0 + 250, executed: true, result: '[]' },
    { turn: 1, modelCallIndex: 1, call: run.modelCalls[1]!.response!.toolCalls[0]!, startTimeMs: t0 + 810, endTimeMs: t0 + 810, executed: false },
  ];
  run.terminal = run.toolCalls[1]!;

  function rendered(captureContent: boolean): NormaliseResult {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    renderRunTrace(provider.getTracer('t'), { case: kase, run, runId: 'r1', captureContent });
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())!)) as OtlpTraceRequest;
    return normaliseTrace(one(json));
  }

  it('reads back the same calls, terminal, mode, case id and sample', () => {
    const r = ok(rendered(true));
    expect(r.run.toolCalls.map((t) => [t.call.id, t.call.name, t.call.arguments, t.executed])).toEqual([
      ['call_a', 'search_runnables', { query: 'status' }, true],
      ['call_b', 'service_status', { name: 'api', verbose: true }, false],
    ]);
    expect(r.run.mode).toBe('decision');
    expect(r.run.terminal?.call.name).toBe('service_status');
    expect(r.run.caseId).toBe('restart-api');
    expect(r.run.sample).toBe(1);
    expect(r.run.toolMode).toBe('dedup');
    expect(r.run.usage).toEqual({ promptTokens: 30, completionTokens: 12, totalTokens: 42 });
    expect(r.run.modelCalls.map((m) => m.response?.finishReason)).toEqual(['tool_calls', 'tool_calls']);
    expect(r.info.firstUserMessage).toBe('the api is down, check it');
    expect(r.info.producers).toEqual(expect.arrayContaining(['runspec', 'gen_ai', 'openinference']));
    expect(r.run.toolCalls[0]!.result).toBe('[]');
  });

  it('returns plain writable fields: the span ids by call, the root attributes', () => {
    const r = ok(rendered(true));
    expect(r.run.trace?.spanIds).toBe(r.info.callSpanIds);
    expect(Object.keys(r.info.callSpanIds)).toEqual(['call_a', 'call_b']);
    r.info.callSpanIds = { other: 'x' };
    r.info.rootAttributes = { replaced: true };
    r.run.trace!.spanIds = {};
    expect([r.info.callSpanIds, r.info.rootAttributes, r.run.trace!.spanIds]).toEqual([{ other: 'x' }, { replaced: true }, {}]);
  });

  it('lists the lazily built fields as own enumerable keys, in place, so a copy or JSON of the info has them', () => {
    const r = ok(rendered(true));
    expect(Object.keys(r.info).slice(0, 9)).toEqual([
      'traceId',
      'rootSpanId',
      'rootName',
      'rootAttributes',
      'spanAttributes',
      'producers',
      'llmSpanIds',
      'toolSpanIds',
      'callSpanIds',
    ]);
    const copy = { ...r.info };
    expect(Object.keys(copy.callSpanIds)).toEqual(['call_a', 'call_b']);
    expect(copy.rootAttributes[ATTR_RUNSPEC_EVAL_CASE_ID]).toBe('restart-api');
    expect(JSON.parse(JSON.stringify(r.info))).toEqual(JSON.parse(JSON.stringify(copy)));
  });

  it('still finds the calls by name when content capture was off', () => {
    const r = ok(rendered(false));
    expect(r.run.toolCalls.map((t) => t.call.name)).toEqual(['search_runnables', 'service_status']);
    expect(r.run.terminal?.call.name).toBe('service_status');
  });
});

describe('OpenInference', () => {
  // Multi-turn: LLM(parallel calls) → two TOOL spans as siblings under the AGENT root → LLM(answer),
  // whose input history repeats both calls and their results.
  const T = 1;
  const req = request([
    span({ trace: T, id: 1, name: 'agent', start: 0, end: 100, attrs: { 'openinference.span.kind': 'AGENT', 'input.value': 'weather in Paris and Rome?' } }),
    span({
      trace: T,
      id: 2,
      parent: 1,
      name: 'ChatCompletion',
      start: 1,
      end: 10,
      attrs: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o',
        'llm.provider': 'openai',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'weather in Paris and Rome?',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_p',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
        'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'call_r',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'get_weather',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{"city":"Rome"}',
        'llm.token_count.prompt': 11,
        'llm.token_count.completion': '7',
      },
    }),
    span({
      trace: T,
      id: 3,
      parent: 1,
      name: 'get_weather',
      start: 11,
      end: 20,
      attrs: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'tool_call.id': 'call_p',
        'input.value': '{"city":"Paris"}',
        'output.value': 'rain',
      },
    }),
    span({
      trace: T,
      id: 4,
      parent: 1,
      name: 'get_weather',
      start: 12,
      end: 21,
      attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'get_weather', 'tool.id': 'call_r', 'input.value': '{"city":"Rome"}', 'output.value': 'sun' },
    }),
    span({
      trace: T,
      id: 5,
      parent: 1,
      name: 'ChatCompletion',
      start: 30,
      end: 40,
      attrs: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'weather in Paris and Rome?',
        'llm.input_messages.1.message.role': 'assistant',
        'llm.input_messages.1.message.tool_calls.0.tool_call.id': 'call_p',
        'llm.input_messages.1.message.tool_calls.0.tool_call.function.name': 'get_weather',
        'llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
        'llm.input_messages.1.message.tool_calls.1.tool_call.id': 'call_r',
        'llm.input_messages.1.message.tool_calls.1.tool_call.function.name': 'get_weather',
        'llm.input_messages.1.message.tool_calls.1.tool_call.function.arguments': '{"city":"Rome"}',
        'llm.input_messages.2.message.role': 'tool',
        'llm.input_messages.2.message.tool_call_id': 'call_p',
        'llm.input_messages.2.message.content': 'rain',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'Paris: rain. Rome: sun.',
      },
    }),
  ]);

  it('counts parallel calls once across output, tool spans and history, with sibling tool spans', () => {
    const r = normaliseTrace(one(req));
    expect(calls(r)).toEqual([
      { id: 'call_p', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'call_r', name: 'get_weather', args: { city: 'Rome' } },
    ]);
    const run = ok(r).run;
    expect(run.toolCalls.map((t) => t.result)).toEqual(['rain', 'sun']);
    expect(run.mode).toBe('trajectory');
    expect(run.finalText).toBe('Paris: rain. Rome: sun.');
    expect(run.modelCalls).toHaveLength(2);
    expect(run.modelCalls[0]!.usage).toEqual({ promptTokens: 11, completionTokens: 7, totalTokens: 18 });
    expect(ok(r).info.firstUserMessage).toBe('weather in Paris and Rome?');
  });

  it('reads tool_use content parts and the legacy function_call form', () => {
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 2,
            id: 1,
            name: 'llm',
            start: 0,
            attrs: {
              'openinference.span.kind': 'LLM',
              'llm.output_messages.0.message.contents.0.message_content.type': 'tool_use',
              'llm.output_messages.0.message.contents.0.tool_call.id': 'toolu_1',
              'llm.output_messages.0.message.contents.0.tool_call.function.name': 'grep',
              'llm.output_messages.0.message.contents.0.tool_call.function.arguments': '{"pattern":"TODO"}',
            },
          }),
          span({
            trace: 2,
            id: 2,
            name: 'llm',
            start: 5,
            attrs: {
              'openinference.span.kind': 'LLM',
              'llm.output_messages.0.message.function_call_name': 'file_read',
              'llm.output_messages.0.message.function_call_arguments_json': '{"path":"a.txt"}',
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([
      { id: 'toolu_1', name: 'grep', args: { pattern: 'TODO' } },
      { id: '', name: 'file_read', args: { path: 'a.txt' } },
    ]);
  });
});

describe('OpenTelemetry GenAI (current conventions)', () => {
  it('reads gen_ai.output.messages tool_call parts and joins sibling execute_tool spans by call id', () => {
    const out = JSON.stringify([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'checking' },
          { type: 'tool_call', id: 'c1', name: 'service_status', arguments: { name: 'api' } },
          { type: 'tool_call', id: 'c2', name: 'service_logs', arguments: { name: 'api', lines: 50 } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 3,
            id: 1,
            name: 'invoke_agent ops',
            start: 0,
            end: 100,
            attrs: {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.provider.name': 'anthropic',
              // A parent summary repeating the calls must not count them again.
              'gen_ai.output.messages': out,
            },
          }),
          span({
            trace: 3,
            id: 2,
            parent: 1,
            name: 'chat claude',
            kind: 3,
            start: 1,
            end: 10,
            attrs: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.request.model': 'claude',
              'gen_ai.provider.name': 'anthropic',
              'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'is the api up?' }] }]),
              'gen_ai.output.messages': out,
              'gen_ai.response.finish_reasons': ['tool_use'],
              'gen_ai.usage.input_tokens': '100',
              'gen_ai.usage.output_tokens': 20,
            },
          }),
          span({
            trace: 3,
            id: 3,
            parent: 1,
            name: 'execute_tool service_logs',
            start: 12,
            end: 14,
            attrs: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'service_logs',
              'gen_ai.tool.call.id': 'c2',
              'gen_ai.tool.call.arguments': '{"lines":50,"name":"api"}',
              'gen_ai.tool.call.result': 'ok',
            },
          }),
          span({
            trace: 3,
            id: 4,
            parent: 1,
            name: 'execute_tool service_status',
            start: 11,
            end: 15,
            error: true,
            attrs: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'service_status',
              'gen_ai.tool.call.id': 'c1',
              'error.type': 'timeout',
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([
      { id: 'c1', name: 'service_status', args: { name: 'api' } },
      { id: 'c2', name: 'service_logs', args: { name: 'api', lines: 50 } },
    ]);
    const run = ok(r).run;
    expect(run.toolCalls[0]!.isError).toBe(true);
    expect(run.toolCalls[1]!.result).toBe('ok');
    expect(run.modelCalls[0]!.usage).toEqual({ promptTokens: 100, completionTokens: 20, totalTokens: 120 });
    expect(run.provider).toBe('anthropic');
    expect(ok(r).info.firstUserMessage).toBe('is the api up?');
  });

  it('accepts structured (kvlist/array) message attributes and double-encoded arguments', () => {
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 4,
            id: 1,
            name: 'chat m',
            start: 0,
            attrs: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.output.messages': [
                {
                  role: 'assistant',
                  finish_reason: 'tool_call',
                  parts: [{ type: 'tool_call', id: 'x1', name: 'file_read', arguments: JSON.stringify(JSON.stringify({ path: 'README.md' })) }],
                },
              ],
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([{ id: 'x1', name: 'file_read', args: { path: 'README.md' } }]);
  });

  it('uses execute_tool spans alone when the model call carries no content', () => {
    const r = normaliseTrace(
      one(
        request([
          span({ trace: 5, id: 1, name: 'chat m', start: 0, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['tool_calls'] } }),
          span({
            trace: 5,
            id: 2,
            name: 'execute_tool glob',
            start: 2,
            attrs: { 'gen_ai.tool.name': 'glob', 'gen_ai.tool.call.arguments': { pattern: '*.ts' } },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([{ id: '', name: 'glob', args: { pattern: '*.ts' } }]);
    expect(ok(r).run.toolCalls[0]!.modelCallIndex).toBe(0);
  });
});

describe('legacy indexed gen_ai.prompt / gen_ai.completion (OpenLLMetry)', () => {
  it('reads indexed tool calls and dedups the traceloop tool span by name and canonical arguments', () => {
    const r = normaliseTrace(
      one(
        request([
          span({ trace: 6, id: 1, name: 'agent.workflow', start: 0, end: 50, attrs: { 'traceloop.span.kind': 'workflow' } }),
          span({
            trace: 6,
            id: 2,
            parent: 1,
            name: 'openai.chat',
            kind: 3,
            start: 1,
            end: 5,
            attrs: {
              'llm.request.type': 'chat',
              'gen_ai.system': 'openai',
              'gen_ai.request.model': 'gpt-4o-mini',
              'gen_ai.prompt.0.role': 'user',
              'gen_ai.prompt.0.content': 'read the readme then list src',
              'gen_ai.completion.0.role': 'assistant',
              'gen_ai.completion.0.finish_reason': 'tool_calls',
              'gen_ai.completion.0.tool_calls.0.name': 'file_read',
              'gen_ai.completion.0.tool_calls.0.arguments': '{"path":"README.md","limit":10}',
              'gen_ai.completion.0.tool_calls.1.name': 'list_directory',
              'gen_ai.completion.0.tool_calls.1.arguments': '{"path":"src"}',
              'gen_ai.usage.prompt_tokens': '12',
              'gen_ai.usage.completion_tokens': '3',
            },
          }),
          span({
            trace: 6,
            id: 3,
            parent: 1,
            name: 'file_read.tool',
            start: 6,
            end: 7,
            attrs: {
              'traceloop.span.kind': 'tool',
              'traceloop.entity.name': 'file_read',
              'traceloop.entity.input': '{"limit":10,"path":"README.md"}',
              'traceloop.entity.output': '# hi',
            },
          }),
          span({
            trace: 6,
            id: 4,
            parent: 1,
            name: 'openai.chat',
            kind: 3,
            start: 10,
            end: 12,
            attrs: {
              'llm.request.type': 'chat',
              'gen_ai.prompt.0.role': 'user',
              'gen_ai.prompt.0.content': 'read the readme then list src',
              'gen_ai.prompt.1.role': 'assistant',
              'gen_ai.prompt.1.tool_calls.0.name': 'file_read',
              'gen_ai.prompt.1.tool_calls.0.arguments': '{"path":"README.md","limit":10}',
              'gen_ai.prompt.1.tool_calls.1.name': 'list_directory',
              'gen_ai.prompt.1.tool_calls.1.arguments': '{"path":"src"}',
              'gen_ai.completion.0.role': 'assistant',
              'gen_ai.completion.0.content': 'done',
              'gen_ai.completion.0.finish_reason': 'stop',
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([
      { id: '', name: 'file_read', args: { path: 'README.md', limit: 10 } },
      { id: '', name: 'list_directory', args: { path: 'src' } },
    ]);
    const run = ok(r).run;
    expect(run.toolCalls[0]!.result).toBe('# hi');
    expect(run.modelCalls[0]!.usage.promptTokens).toBe(12);
    expect(run.finalText).toBe('done');
    expect(ok(r).info.producers).toContain('openllmetry');
  });

  it('reads the legacy function_call form', () => {
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 7,
            id: 1,
            name: 'openai.chat',
            start: 0,
            attrs: {
              'llm.request.type': 'chat',
              'gen_ai.completion.0.finish_reason': 'function_call',
              'gen_ai.completion.0.function_call.name': 'bash',
              'gen_ai.completion.0.function_call.arguments': '{"command":"ls"}',
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([{ id: '', name: 'bash', args: { command: 'ls' } }]);
  });
});

describe('Vercel AI SDK', () => {
  it('reads ai.response.toolCalls with JSON inside a JSON string, and ai.toolCall spans', () => {
    const toolCalls = JSON.stringify([
      { toolCallType: 'function', toolCallId: 'tc1', toolName: 'weather', input: JSON.stringify({ city: 'Oslo' }) },
      { toolCallType: 'function', toolCallId: 'tc2', toolName: 'weather', input: JSON.stringify({ city: 'Bergen' }) },
    ]);
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 8,
            id: 1,
            name: 'ai.generateText',
            start: 0,
            end: 100,
            attrs: { 'ai.response.toolCalls': toolCalls, 'ai.prompt': JSON.stringify({ prompt: 'weather in Oslo and Bergen' }) },
          }),
          span({
            trace: 8,
            id: 2,
            parent: 1,
            name: 'ai.generateText.doGenerate',
            start: 1,
            end: 10,
            attrs: {
              'ai.model.id': 'gpt-4o',
              'ai.model.provider': 'openai.chat',
              'gen_ai.system': 'openai.chat',
              'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'weather in Oslo and Bergen' }] }]),
              'ai.response.toolCalls': toolCalls,
              'ai.response.finishReason': 'tool-calls',
              'ai.usage.promptTokens': 9,
              'ai.usage.completionTokens': 4,
            },
          }),
          span({
            trace: 8,
            id: 3,
            parent: 1,
            name: 'ai.toolCall',
            start: 11,
            end: 12,
            attrs: { 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'tc1', 'ai.toolCall.args': '{"city":"Oslo"}', 'ai.toolCall.result': '"cold"' },
          }),
          span({
            trace: 8,
            id: 4,
            parent: 1,
            name: 'ai.toolCall',
            start: 11,
            end: 13,
            attrs: { 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'tc2', 'ai.toolCall.args': '{"city":"Bergen"}' },
          }),
          span({
            trace: 8,
            id: 5,
            parent: 1,
            name: 'ai.generateText.doGenerate',
            start: 20,
            end: 30,
            attrs: {
              'ai.prompt.messages': JSON.stringify([
                { role: 'user', content: [{ type: 'text', text: 'weather in Oslo and Bergen' }] },
                {
                  role: 'assistant',
                  content: [
                    { type: 'tool-call', toolCallId: 'tc1', toolName: 'weather', input: { city: 'Oslo' } },
                    { type: 'tool-call', toolCallId: 'tc2', toolName: 'weather', input: { city: 'Bergen' } },
                  ],
                },
              ]),
              'ai.response.text': 'Both cold.',
              'ai.response.finishReason': 'stop',
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([
      { id: 'tc1', name: 'weather', args: { city: 'Oslo' } },
      { id: 'tc2', name: 'weather', args: { city: 'Bergen' } },
    ]);
    const run = ok(r).run;
    expect(run.modelCalls.map((m) => m.response?.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(run.finalText).toBe('Both cold.');
    expect(ok(r).info.firstUserMessage).toBe('weather in Oslo and Bergen');
    expect(ok(r).info.producers).toContain('vercel');
  });

  it('reads the older ai.result.toolCalls with args', () => {
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 9,
            id: 1,
            name: 'ai.streamText.doStream',
            start: 0,
            attrs: {
              'ai.result.toolCalls': JSON.stringify([{ toolCallId: 'o1', toolName: 'grep', args: '{"pattern":"x"}' }]),
              'ai.finishReason': 'tool-calls',
            },
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([{ id: 'o1', name: 'grep', args: { pattern: 'x' } }]);
  });
});

describe('contrib OpenAI instrumentation (gen_ai.choice log records)', () => {
  it('joins gen_ai.choice log records to their chat span by trace and span id', () => {
    const spans = request([
      span({
        trace: 10,
        id: 1,
        name: 'chat gpt-4o',
        kind: 3,
        start: 0,
        end: 5,
        attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.response.finish_reasons': ['tool_calls'] },
      }),
      span({
        trace: 10,
        id: 2,
        name: 'chat gpt-4o',
        kind: 3,
        start: 10,
        end: 15,
        attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.response.finish_reasons': ['tool_calls'] },
      }),
    ]);
    const logs = logsRequest([
      logRecord({ trace: 10, span: 1, eventName: 'gen_ai.user.message', body: { content: 'deploy the api' } }),
      logRecord({
        trace: 10,
        span: 1,
        eventName: 'gen_ai.choice',
        body: {
          index: 0,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'service_deploy', arguments: '{"name":"api"}' } }] },
        },
      }),
      // Top-level tool_calls, event name carried as an attribute (older SDKs).
      logRecord({
        trace: 10,
        span: 2,
        eventName: 'gen_ai.choice',
        viaAttribute: true,
        body: {
          index: 0,
          finish_reason: 'tool_calls',
          tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'service_status', arguments: '{"name":"api"}' } }],
        },
      }),
    ]);
    const r = normaliseTrace(one(spans, logs));
    expect(calls(r)).toEqual([
      { id: 'call_1', name: 'service_deploy', args: { name: 'api' } },
      { id: 'call_2', name: 'service_status', args: { name: 'api' } },
    ]);
    expect(ok(r).info.firstUserMessage).toBe('deploy the api');
    expect(ok(r).info.producers).toContain('gen_ai_events');
  });
});

describe('gen_ai.choice as a span event', () => {
  it('reads tool calls flattened into the event attributes', () => {
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 18,
            id: 1,
            name: 'chat gpt-4o',
            start: 0,
            attrs: { 'gen_ai.operation.name': 'chat' },
            events: [
              {
                name: 'gen_ai.choice',
                attrs: {
                  index: 0,
                  finish_reason: 'tool_calls',
                  'tool_calls.0.id': 'ev1',
                  'tool_calls.0.type': 'function',
                  'tool_calls.0.function.name': 'glob',
                  'tool_calls.0.function.arguments': '{"pattern":"*.py"}',
                },
              },
            ],
          }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([{ id: 'ev1', name: 'glob', args: { pattern: '*.py' } }]);
  });
});

describe('deduplication and tolerance', () => {
  it('keeps genuinely repeated calls (distinct ids) as separate calls', () => {
    const out = (id: string) =>
      JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id, name: 'file_read', arguments: { path: 'a' } }], finish_reason: 'tool_call' }]);
    const r = normaliseTrace(
      one(
        request([
          span({ trace: 11, id: 1, name: 'chat', start: 0, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': out('r1') } }),
          span({ trace: 11, id: 2, name: 'chat', start: 10, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': out('r2') } }),
        ]),
      ),
    );
    expect(calls(r).map((c) => c.id)).toEqual(['r1', 'r2']);
  });

  it('matches a tool span without id to the LLM call with the same canonical arguments', () => {
    const r = normaliseTrace(
      one(
        request([
          span({
            trace: 12,
            id: 1,
            name: 'chat',
            start: 0,
            attrs: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.output.messages': JSON.stringify([
                {
                  role: 'assistant',
                  parts: [
                    { type: 'tool_call', name: 'grep', arguments: { b: 2, a: 1 } },
                    { type: 'tool_call', name: 'grep', arguments: { a: 9 } },
                  ],
                },
              ]),
            },
          }),
          span({
            trace: 12,
            id: 2,
            name: 'execute_tool grep',
            start: 5,
            attrs: { 'gen_ai.tool.name': 'grep', 'gen_ai.tool.call.arguments': '{"a":9}', 'gen_ai.tool.call.result': 'second' },
          }),
          span({
            trace: 12,
            id: 3,
            name: 'execute_tool grep',
            start: 6,
            attrs: { 'gen_ai.tool.name': 'grep', 'gen_ai.tool.call.arguments': '{"a":1,"b":2}', 'gen_ai.tool.call.result': 'first' },
          }),
        ]),
      ),
    );
    expect(ok(r).run.toolCalls.map((t) => [t.call.arguments, t.result])).toEqual([
      [{ b: 2, a: 1 }, 'first'],
      [{ a: 9 }, 'second'],
    ]);
  });

  it('accepts uppercase hex and base64 ids', () => {
    const req = request([span({ trace: 13, id: 1, name: 'execute_tool x', start: 0, attrs: { 'gen_ai.tool.name': 'x' } })]);
    const s = req.resourceSpans![0]!.scopeSpans![0]!.spans![0]!;
    s.traceId = s.traceId!.toUpperCase();
    s.spanId = Buffer.from(s.spanId!, 'hex').toString('base64');
    const r = ok(normaliseTrace(one(req)));
    expect(r.info.traceId).toBe(traceId(13));
    expect(r.info.rootSpanId).toBe(spanId(1));
  });

  it('keeps unparseable arguments as _raw', () => {
    const r = normaliseTrace(
      one(request([span({ trace: 14, id: 1, name: 't', start: 0, attrs: { 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.arguments': '{"command": "ls' } })])),
    );
    expect(calls(r)).toEqual([{ id: '', name: 'bash', args: { _raw: '{"command": "ls' } }]);
  });

  it.each([
    {
      name: 'a plain HTTP trace',
      spans: [span({ trace: 15, id: 1, name: 'GET /', start: 0, attrs: { 'http.method': 'GET' } })],
      reason: /no LLM or tool spans/,
    },
    {
      name: 'a verdict carrier span',
      spans: [span({ trace: 17, id: 1, name: 'runspec.eval', start: 0, attrs: { 'openinference.span.kind': 'EVALUATOR', 'runspec.eval.category': 'pass' } })],
      reason: /only evaluator/,
    },
  ])('reports $name as uninterpretable with a reason', ({ spans, reason }) => {
    const r = normaliseTrace(one(request(spans)));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  // Used to be uninterpretable (no verdict line at all): the model was called, only its calls are hidden.
  it('reads tool calls without content as a Run whose decision is hidden, naming the family and its switch', () => {
    const r = ok(
      normaliseTrace(
        one(
          request([
            span({
              trace: 16,
              id: 1,
              name: 'chat',
              start: 0,
              attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.response.finish_reasons': ['tool_calls'] },
            }),
          ]),
        ),
      ),
    );
    expect(r.run.toolCalls).toEqual([]);
    expect(r.info.family).toBe('otel-genai');
    expect(r.run.hiddenDecision).toEqual({
      missing: 'tool_calls',
      family: 'otel-genai',
      captureSwitch: expect.stringContaining('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'),
    });
  });

  // traceloop-sdk 0.62 (Python) with TRACELOOP_TRACE_CONTENT=false, as test/integration/producers.test.ts
  // receives it: GenAI attributes under its own scopes, no llm.request.type, a `@tool` span naming the call.
  // It used to be taken for the legacy layout (tool span) or for plain GenAI (no tool span).
  const traceloopPython = (t: number, opts: { tool?: string; legacy?: boolean }): OtlpTraceRequest => {
    const chat = span({
      trace: t,
      id: 2,
      parent: 1,
      name: 'openai.chat',
      start: 1,
      end: 2,
      attrs: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.is_streaming': false,
        'gen_ai.response.finish_reasons': [opts.tool ? 'tool_call' : 'stop'],
        'gen_ai.usage.input_tokens': 3,
        'gen_ai.usage.output_tokens': 2,
        ...(opts.legacy ? { 'llm.request.type': 'chat' } : {}),
      },
    });
    const tool = opts.tool
      ? [
          span({
            trace: t,
            id: 3,
            parent: 1,
            name: `${opts.tool}.tool`,
            start: 3,
            end: 4,
            attrs: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': opts.tool, 'gen_ai.tool.name': opts.tool },
          }),
        ]
      : [];
    return {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 'agent' },
              spans: [span({ trace: t, id: 1, name: 'invoke_agent', start: 0, end: 9, attrs: { 'gen_ai.operation.name': 'invoke_agent' } })],
            },
            { scope: { name: 'opentelemetry.instrumentation.openai.v1' }, spans: [chat] },
            ...(tool.length ? [{ scope: { name: 'traceloop.tracer' }, spans: tool }] : []),
          ],
        },
      ],
    };
  };

  it.each([
    { name: 'with a @tool span', t: 30, tool: 'get_weather', family: 'openllmetry', calls: ['get_weather'] },
    { name: 'without a tool call', t: 31, family: 'openllmetry', calls: [] },
    { name: 'in the legacy layout (llm.request.type)', t: 32, tool: 'get_weather', legacy: true, family: 'openllmetry-legacy', calls: ['get_weather'] },
  ])('recognises OpenLLMetry Python with content off $name, the call named by its tool span', ({ t, tool, legacy, family, calls }) => {
    const r = ok(normaliseTrace(one(traceloopPython(t, { ...(tool ? { tool } : {}), ...(legacy ? { legacy } : {}) }))));
    expect(r.info.family).toBe(family);
    expect(r.run.toolCalls.map((c) => c.call.name)).toEqual(calls);
  });
});

describe('history fallback', () => {
  it('takes calls only visible in a later request history, fills arguments of content-less tool spans, keeps repeats', () => {
    const history = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: 'go' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'glob', arguments: { pattern: '*.md' } }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'file_read', arguments: { path: 'a.md' } }] },
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'file_read', arguments: { path: 'a.md' } }] },
    ]);
    const r = normaliseTrace(
      one(
        request([
          span({ trace: 30, id: 1, name: 'chat', start: 0, attrs: { 'gen_ai.operation.name': 'chat' } }),
          span({ trace: 30, id: 2, name: 'execute_tool glob', start: 2, attrs: { 'gen_ai.tool.name': 'glob' } }),
          span({ trace: 30, id: 3, name: 'chat', start: 5, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': history } }),
        ]),
      ),
    );
    expect(calls(r)).toEqual([
      { id: '', name: 'glob', args: { pattern: '*.md' } },
      { id: '', name: 'file_read', args: { path: 'a.md' } },
      { id: '', name: 'file_read', args: { path: 'a.md' } },
    ]);
  });
});

describe('honest fields', () => {
  // Regression: a call seen only in the model's answer was reported as executed.
  it('a call only requested is not executed; one whose result shows up in a later history is', () => {
    const llm = (id: number, start: number, extra: Record<string, unknown>) =>
      span({ trace: 70, id, parent: 1, name: 'ChatCompletion', start, end: start + 5, attrs: { 'openinference.span.kind': 'LLM', ...extra } });
    const r = normaliseTrace(
      one(
        request([
          span({ trace: 70, id: 1, name: 'agent', start: 0, end: 50, attrs: { 'openinference.span.kind': 'AGENT' } }),
          llm(2, 1, {
            'llm.output_messages.0.message.role': 'assistant',
            'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'a',
            'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'ran',
            'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{}',
            'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'b',
            'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'asked_only',
            'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{}',
          }),
          llm(3, 20, {
            'llm.input_messages.0.message.role': 'tool',
            'llm.input_messages.0.message.tool_call_id': 'a',
            'llm.input_messages.0.message.content': 'done',
            'llm.output_messages.0.message.role': 'assistant',
            'llm.output_messages.0.message.content': 'ok',
          }),
        ]),
      ),
    );
    expect(ok(r).run.toolCalls.map((t) => [t.call.name, t.executed])).toEqual([
      ['ran', true],
      ['asked_only', false],
    ]);
  });
});

describe('malformed span trees', () => {
  // Used to surface as "could not interpret the trace (Cannot read properties of undefined ...)".
  it.each([
    {
      name: 'a span that is its own parent',
      spans: [span({ trace: 77, id: 1, parent: 1, name: 'agent', start: 0 })],
      reason: /^span [0-9a-f]+ is its own parent$/,
    },
    {
      name: 'a parent cycle',
      spans: [span({ trace: 77, id: 1, parent: 2, name: 'a', start: 0 }), span({ trace: 77, id: 2, parent: 1, name: 'b', start: 1 })],
      reason: /^parent cycle: [0-9a-f]+ → [0-9a-f]+ → [0-9a-f]+$/,
    },
  ])('$name is a clear per-trace error', ({ spans, reason }) => {
    const r = normaliseTrace(one(request(spans)));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });
});
