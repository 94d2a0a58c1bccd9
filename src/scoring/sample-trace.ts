// A sample's timeline as the results file keeps it: model calls and tool calls with offsets, durations,
// model text and tool results (cut), so a report draws the turn → llm → tool waterfall without telemetry.
import { TRACE_MAX_STEPS, TRACE_TEXT_CHARS, type SampleTrace, type SampleTraceStep } from '../types/verdict.js';
import type { Run } from '../types/run.js';

function cut(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  return text.length > TRACE_TEXT_CHARS ? `${text.slice(0, TRACE_TEXT_CHARS)}… [${text.length - TRACE_TEXT_CHARS} more characters]` : text;
}

/**
 * The timeline of a run, steps in start order (a model call before the tools it asked for).
 * @example sampleTraceOf(run).steps.map((s) => s.kind) // ['llm', 'tool', 'llm']
 */
export function sampleTraceOf(run: Run): SampleTrace {
  const start = run.startTimeMs;
  const offset = (t: number): number => Math.max(0, t - start);
  const steps: SampleTraceStep[] = [];
  for (const m of run.modelCalls) {
    const step: SampleTraceStep = {
      kind: 'llm',
      turn: m.turn,
      index: m.index,
      offsetMs: offset(m.startTimeMs),
      durationMs: Math.max(0, m.endTimeMs - m.startTimeMs),
      toolCalls: (m.response?.toolCalls ?? []).map((c) => c.name),
    };
    const model = m.responseModel ?? m.requestModel;
    if (model !== undefined) step.model = model;
    if (m.usage.promptTokens !== undefined) step.inputTokens = m.usage.promptTokens;
    if (m.usage.completionTokens !== undefined) step.outputTokens = m.usage.completionTokens;
    if (m.response?.finishReason !== undefined) step.finishReason = m.response.finishReason;
    const text = cut(m.response?.text);
    if (text !== undefined) step.text = text;
    if (m.error) step.error = { code: m.error.code, message: m.error.message };
    steps.push(step);
  }
  for (const t of run.toolCalls) {
    const step: SampleTraceStep = {
      kind: 'tool',
      turn: t.turn,
      name: t.call.name,
      callId: t.call.id,
      offsetMs: offset(t.startTimeMs),
      durationMs: Math.max(0, t.endTimeMs - t.startTimeMs),
      executed: t.executed,
      arguments: t.call.arguments,
    };
    const result = cut(t.result);
    if (result !== undefined) step.result = result;
    if (t.isError) step.isError = true;
    if (t.dropped) step.dropped = true;
    if (t.mocked) step.mocked = true;
    steps.push(step);
  }
  // Stable: equal offsets keep model calls ahead of the tool calls they produced. Usually in order already
  // (a sort allocates even then).
  if (!inOrder(steps)) steps.sort(stepOrder);
  const trace: SampleTrace = {
    startTimeMs: start,
    durationMs: Math.max(0, run.endTimeMs - run.startTimeMs),
    status: run.status,
    steps: steps.length > TRACE_MAX_STEPS ? steps.slice(0, TRACE_MAX_STEPS) : steps,
  };
  if (steps.length > TRACE_MAX_STEPS) trace.droppedSteps = steps.length - TRACE_MAX_STEPS;
  if (run.error) trace.error = { code: run.error.code, message: run.error.message };
  return trace;
}

function stepOrder(a: SampleTraceStep, b: SampleTraceStep): number {
  return a.turn - b.turn || (a.kind === b.kind ? a.offsetMs - b.offsetMs : a.kind === 'llm' ? -1 : 1);
}

function inOrder(steps: readonly SampleTraceStep[]): boolean {
  for (let i = 1; i < steps.length; i++) if (stepOrder(steps[i - 1]!, steps[i]!) > 0) return false;
  return true;
}
