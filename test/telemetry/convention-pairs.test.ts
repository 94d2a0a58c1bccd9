// Each convention we emit has its writer and its reader in one module (src/telemetry/conventions/). This
// pins the pairing: a model or tool call written with a module's writer and read back with the same
// module's reader is the same call, per convention — both with the builders alone and through the rendered
// spans (renderRunTrace composes the builders).
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
} from '../../src/semconv/gen-ai.js';
import { renderRunTrace } from '../../src/telemetry/render.js';
import { parseArguments } from '../../src/telemetry/conventions/_json.js';
import { toolCallsOf } from '../../src/telemetry/conventions/_read.js';
import * as genAi from '../../src/telemetry/conventions/gen-ai.js';
import * as oi from '../../src/telemetry/conventions/openinference.js';
import * as runspec from '../../src/telemetry/conventions/runspec.js';
import type { Message, ModelCallRecord, Run, ToolCallRecord } from '../../src/types/run.js';
import { TOOLSET, TRAJECTORY_CASE, trajectoryRun, trajectoryVerdict } from './_fixtures.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], spanLimits: { attributeCountLimit: 10_000 } });
const tracer = provider.getTracer('convention-pairs');
afterEach(() => exporter.reset());

/** The trajectory fixture rendered with content: its chat spans (in model-call order) and tool spans. */
function rendered(run: Run): { llm: ReadableSpan[]; tool: ReadableSpan[] } {
  const ids = renderRunTrace(tracer, { case: TRAJECTORY_CASE, run, verdict: trajectoryVerdict(), runId: 'r1', captureContent: true, toolset: TOOLSET });
  const byId = new Map(exporter.getFinishedSpans().map((s) => [s.spanContext().spanId, s]));
  const pick = (list: string[]): ReadableSpan[] => list.map((id) => byId.get(id)!);
  return { llm: pick(ids.llmSpanIds), tool: pick(ids.toolSpanIds) };
}

/** A model call's answer as the readers give it back (calls without producer-only marks). */
function answer(call: ModelCallRecord): { calls: unknown[]; text?: string } {
  const r = call.response!;
  return { calls: r.toolCalls, ...(r.text !== undefined ? { text: r.text } : {}) };
}

function toolCall(record: ToolCallRecord): { name: string; id: string; args: Record<string, unknown>; result: unknown } {
  return { name: record.call.name, id: record.call.id, args: record.call.arguments, result: record.result };
}

describe('gen_ai.* (conventions/gen-ai.ts)', () => {
  it('reads back the messages and answer its writer builds', () => {
    for (const call of trajectoryRun().modelCalls) {
      const attributes = {
        [ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify(call.request.messages.map(genAi.genAiMessage)),
        [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify(genAi.genAiOutputMessages(call)),
      };
      expect(genAi.readGenAiInput({ attributes })).toEqual(call.request.messages);
      const out = genAi.readGenAiOutput({ attributes })!;
      expect({ calls: toolCallsOf(out.calls), ...(out.text !== undefined ? { text: out.text } : {}) }).toEqual(answer(call));
      expect(out.finishReason).toBe(genAi.canonicalFinishReason(call.response!.finishReason, call.response!.toolCalls.length > 0));
    }
  });

  it('reads back the model and tool calls of the rendered spans', () => {
    const run = trajectoryRun();
    const { llm, tool } = rendered(run);
    run.modelCalls.forEach((call, i) => {
      expect(genAi.readGenAiInput(llm[i]!)).toEqual(call.request.messages);
      expect(toolCallsOf(genAi.readGenAiOutput(llm[i]!)!.calls)).toEqual(call.response!.toolCalls);
    });
    run.toolCalls.forEach((record, i) => {
      const r = genAi.readGenAiToolSpan(tool[i]!);
      expect(r.recognised).toBe(true);
      expect({ name: r.fields.name, id: r.fields.id, args: parseArguments(r.fields.rawArgs), result: r.fields.result }).toEqual(toolCall(record));
    });
  });

  it('recognises a tool span by what genAiToolSpanAttributes writes', () => {
    const call = { id: 'call_1', name: 'file_read', arguments: { path: 'a' } };
    const attributes = {
      ...genAi.genAiToolSpanAttributes(call, 'Read a file.'),
      [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(call.arguments),
      [ATTR_GEN_AI_TOOL_CALL_RESULT]: 'ok',
    };
    const r = genAi.readGenAiToolSpan({ attributes });
    expect(r).toEqual({ recognised: true, fields: { name: 'file_read', id: 'call_1', rawArgs: '{"path":"a"}', result: 'ok' } });
  });
});

describe('OpenInference (conventions/openinference.ts)', () => {
  it('reads back the flattened messages, answer and offered tools its writer builds', () => {
    for (const call of trajectoryRun().modelCalls) {
      const r = call.response!;
      const assistant: Message = { role: 'assistant', ...(r.text !== undefined ? { content: r.text } : {}), toolCalls: r.toolCalls };
      const attributes = {
        ...oi.openInferenceMessages(OI.LLM_INPUT_MESSAGES, call.request.messages),
        ...oi.openInferenceMessages(OI.LLM_OUTPUT_MESSAGES, [assistant]),
        ...oi.openInferenceTools(call.request.tools),
      };
      expect(oi.readOiInput({ attributes })).toEqual(call.request.messages);
      const out = oi.readOiOutput({ attributes })!;
      expect({ calls: toolCallsOf(out.calls), ...(out.text !== undefined ? { text: out.text } : {}) }).toEqual(answer(call));
      expect(oi.offeredToolNames(attributes)).toEqual(call.request.tools.map((t) => t.name));
    }
  });

  it('reads back the model and tool calls of the rendered spans', () => {
    const run = trajectoryRun();
    const { llm, tool } = rendered(run);
    run.modelCalls.forEach((call, i) => {
      expect(oi.readOiInput(llm[i]!)).toEqual(call.request.messages);
      expect(toolCallsOf(oi.readOiOutput(llm[i]!)!.calls)).toEqual(call.response!.toolCalls);
      expect(oi.oiFinishReason(llm[i]!.attributes)).toBe(call.response!.finishReason);
    });
    run.toolCalls.forEach((record, i) => {
      const r = oi.readOiToolSpan(tool[i]!);
      expect(r.recognised).toBe(true);
      expect({ name: r.fields.name, id: r.fields.id, args: parseArguments(r.fields.rawArgs), result: r.fields.result }).toEqual(toolCall(record));
    });
  });

  it('recognises a TOOL span by what oiToolSpanAttributes writes', () => {
    const call = { id: 'call_1', name: 'file_read', arguments: { path: 'a' } };
    const attributes = { ...oi.oiToolSpanAttributes(call, undefined), [OI.INPUT_VALUE]: JSON.stringify(call.arguments), [OI.OUTPUT_VALUE]: 'ok' };
    const r = oi.readOiToolSpan({ attributes });
    expect(r).toEqual({ recognised: true, fields: { name: 'file_read', id: 'call_1', rawArgs: { path: 'a' }, result: 'ok' } });
  });
});

describe('runspec.eval.* (conventions/runspec.ts)', () => {
  it('reads back the case its verdict attributes name', () => {
    const attributes = runspec.verdictAttributes({ caseId: 'c1', suite: 's', sample: 3, toolMode: 'per_host', verdict: trajectoryVerdict() });
    const span = { attributes };
    expect(runspec.isRunspecTrace([span])).toBe(true);
    expect(runspec.readRunspecCase(span, [span])).toEqual({ caseId: 'c1', suite: 's', sample: 3, toolMode: trajectoryVerdict().toolMode ?? 'per_host' });
  });

  it('reads back the executed and dropped marks its tool-span writer sets', () => {
    const marks = (r: Pick<ToolCallRecord, 'executed' | 'dropped' | 'mocked'>): { executed: boolean; dropped: boolean } => {
      const a = runspec.runspecToolSpanAttributes(r);
      return { executed: runspec.wasExecuted(a), dropped: runspec.wasDropped(a) };
    };
    expect(marks({ executed: true })).toEqual({ executed: true, dropped: false });
    expect(marks({ executed: false })).toEqual({ executed: false, dropped: false });
    expect(marks({ executed: false, dropped: true })).toEqual({ executed: false, dropped: true });
    expect(marks({ executed: true, mocked: true })).toEqual({ executed: true, dropped: false });
  });
});
