// Results document, reading side: run and case entries back into samples and case results (results-encode.ts
// writes them).
import type { z } from 'zod';
import { RunspecError } from '../errors.js';
import type {
  CaseResult,
  CheckResult,
  Expected,
  MatchScore,
  Observed,
  ReplioMetrics,
  SampleOutcome,
  SampleTrace,
  SampleTraceStep,
  Verdict,
} from '../types/verdict.js';
import type { ToolCall, ToolLogEntry } from '../types/run.js';
import type { matchSchema, replioSchema, ResultsDocument, CaseEntry, RunEntry, SampleTraceJson } from './results-schema.js';

function traceFromJson(t: SampleTraceJson, calls: readonly ToolCall[]): SampleTrace {
  const steps = t.steps.map((s): SampleTraceStep => {
    if (s.kind === 'llm') {
      const step: SampleTraceStep = {
        kind: 'llm',
        turn: s.turn,
        index: s.index,
        offsetMs: s.offset_ms,
        durationMs: s.duration_ms,
        toolCalls: [...s.tool_calls],
      };
      if (s.model !== undefined) step.model = s.model;
      if (s.input_tokens !== undefined) step.inputTokens = s.input_tokens;
      if (s.output_tokens !== undefined) step.outputTokens = s.output_tokens;
      if (s.finish_reason !== undefined) step.finishReason = s.finish_reason;
      if (s.text !== undefined) step.text = s.text;
      if (s.error) step.error = { code: s.error.code, message: s.error.message };
      return step;
    }
    const step: SampleTraceStep = {
      kind: 'tool',
      turn: s.turn,
      name: s.name,
      callId: s.call_id,
      offsetMs: s.offset_ms,
      durationMs: s.duration_ms,
      executed: s.executed,
    };
    if (s.arguments !== undefined) step.arguments = s.arguments;
    else if (s.args_call !== undefined) step.arguments = calls[s.args_call]?.arguments ?? {};
    if (s.result !== undefined) step.result = s.result;
    if (s.is_error !== undefined) step.isError = s.is_error;
    if (s.dropped) step.dropped = true;
    if (s.mocked) step.mocked = true;
    return step;
  });
  const trace: SampleTrace = { startTimeMs: t.start_ms, durationMs: t.duration_ms, status: t.status, steps };
  if (t.dropped_steps !== undefined) trace.droppedSteps = t.dropped_steps;
  if (t.error) trace.error = { code: t.error.code, message: t.error.message };
  return trace;
}

function matchFromJson(m: z.infer<typeof matchSchema>): MatchScore {
  return { matchMode: m.match_mode, pass: m.pass, score: m.score, matched: m.matched, unmatched: m.unmatched, extraTools: m.extra_tools, detail: m.detail };
}

function replioFromJson(m: z.infer<typeof replioSchema>, calls: readonly ToolCall[]): ReplioMetrics {
  return {
    trace: m.trace ? m.trace.map((t) => ({ name: t.name, arguments: t.arguments })) : calls.map((c) => ({ name: c.name, arguments: c.arguments ?? {} })),
    names: m.names,
    accuracy: m.accuracy,
    pass: m.pass,
    calls: m.calls,
    redundant: m.redundant,
    errors: m.errors,
    tokens: m.tokens,
    status: m.status,
  };
}

/**
 * Where a run entry's trace lives: the verdict's ids for a scored sample, the entry's own for an errored
 * one (its trace was exported although nothing was judged).
 */
export function runEntryTrace(r: RunEntry): { traceId: string; rootSpanId?: string; url?: string } | undefined {
  const traceId = r.verdict?.trace_id ?? r.trace_id;
  if (!traceId) return undefined;
  const rootSpanId = r.verdict?.trace_id ? r.verdict.root_span_id : r.root_span_id;
  const url = r.verdict?.trace_id ? r.verdict.trace_url : r.trace_url;
  return { traceId, ...(rootSpanId ? { rootSpanId } : {}), ...(url ? { url } : {}) };
}

/**
 * The tool calls of a run entry with their arguments (from `tool_args`, where they are stored; older
 * documents carry them on `calls` too).
 */
export function runEntryCalls(run: RunEntry): ToolCall[] {
  // A call read from a trace may have no id: '' is the engine's "none recorded".
  return run.calls.map((c, i) => ({ id: c.id ?? '', name: c.name, arguments: c.arguments ?? run.tool_args[i]?.[c.name] ?? {} }));
}

/** A sample back from its run entry (a results document's, or a `score`/`serve` line's). */
export function outcomeOf(caseId: string, dialect: CaseResult['dialect'], run: RunEntry): SampleOutcome {
  const calls = runEntryCalls(run);
  if (run.status === 'errored' || !run.verdict) {
    const outcome: SampleOutcome = {
      status: 'errored',
      sample: run.sample,
      error: run.error ? { code: run.error.code, message: run.error.message } : { code: 'INTERNAL', message: run.detail },
      elapsedMs: run.elapsed_ms,
      ...(run.trace ? { trace: traceFromJson(run.trace, calls) } : {}),
    };
    if (run.trace_id && run.root_span_id) {
      outcome.traceRef = { traceId: run.trace_id, rootSpanId: run.root_span_id };
      if (run.trace_url) outcome.traceRef.url = run.trace_url;
    }
    if (run.tool_log) outcome.toolLog = run.tool_log.map(toolLogEntry);
    if (run.run_status === 'error') {
      const partial: Verdict = {
        caseId,
        sample: run.sample,
        dialect,
        pass: false,
        category: 'error',
        reason: run.detail,
        expected: {},
        observed: {},
        jsonDump: false,
        status: 'error',
        calls: runEntryCalls(run),
      };
      if (run.replio) partial.replio = replioFromJson(run.replio, partial.calls);
      outcome.partial = partial;
      outcome.tokens = run.tokens;
    }
    return outcome;
  }
  const v = run.verdict;
  const expected: Expected = {};
  if (v.expected.tool) expected.tool = v.expected.tool;
  if (v.expected.command !== undefined) expected.command = v.expected.command;
  if (v.expected.host !== undefined) expected.host = v.expected.host;
  if (v.expected.autonomy !== undefined) expected.autonomy = v.expected.autonomy;
  if (v.expected.no_run !== undefined) expected.noRun = v.expected.no_run;
  const observed: Observed = {};
  if (v.observed.tool !== undefined) observed.tool = v.observed.tool;
  if (v.observed.command !== undefined) observed.command = v.observed.command;
  if (v.observed.host !== undefined) observed.host = v.observed.host;
  if (v.observed.autonomy !== undefined) observed.autonomy = v.observed.autonomy;
  if (v.observed.args !== undefined) observed.args = v.observed.args;
  else if (v.observed.args_call !== undefined) observed.args = calls[v.observed.args_call]?.arguments ?? {};
  const verdict: Verdict = {
    caseId,
    sample: run.sample,
    dialect: v.dialect,
    // null on a scored trace's line: unscorable, incomplete or error, none of them a pass.
    pass: run.pass === true,
    category: v.category,
    reason: v.reason,
    expected,
    observed,
    jsonDump: run.json_dump,
    status: run.run_status ?? 'ok',
    calls,
  };
  if (v.tool_mode) verdict.toolMode = v.tool_mode;
  if (v.checks) verdict.checks = v.checks as unknown as CheckResult[];
  if (v.trace_id && v.root_span_id) {
    verdict.trace = { traceId: v.trace_id, rootSpanId: v.root_span_id };
    if (v.trace_url) verdict.trace.url = v.trace_url;
  }
  if (run.replio) verdict.replio = replioFromJson(run.replio, calls);
  if (run.match) verdict.match = matchFromJson(run.match);
  const outcome: SampleOutcome = {
    status: 'scored',
    sample: run.sample,
    verdict,
    elapsedMs: run.elapsed_ms,
    tokens: run.tokens,
    ...(run.trace ? { trace: traceFromJson(run.trace, calls) } : {}),
  };
  if (run.tool_log) outcome.toolLog = run.tool_log.map(toolLogEntry);
  return outcome;
}

function toolLogEntry(e: NonNullable<RunEntry['tool_log']>[number]): ToolLogEntry {
  const out: ToolLogEntry = { tool: e.tool, args: e.args, turn: e.turn };
  if (e.result !== undefined) out.result = e.result;
  return out;
}

/**
 * The case results of one iteration (the last by default): the inverse of {@link buildResultsDocument},
 * so `merge` and `report` can re-aggregate saved results.
 */
export function caseResultsFromDocument(doc: ResultsDocument, iteration?: number): CaseResult[] {
  const it = iteration === undefined ? doc.iterations[doc.iterations.length - 1] : doc.iterations.find((i) => i.iteration === iteration);
  if (!it) {
    throw new RunspecError('RESULTS', `results document has no iteration ${iteration ?? '(none at all)'}`, {
      hint: doc.iterations.length ? `pick one of ${doc.iterations.map((i) => i.iteration).join(', ')}` : 'the run wrote no iteration; rerun it',
    });
  }
  return Object.entries(it.cases).map(([caseId, entry]) => caseResultOf(caseId, entry));
}

/** A case result from its case entry (the inverse of {@link caseEntryOf}). */
export function caseResultOf(caseId: string, entry: CaseEntry): CaseResult {
  const samples = entry.runs.map((run) => outcomeOf(caseId, entry.dialect, run));
  const result: CaseResult = {
    caseId,
    dialect: entry.dialect,
    tags: [...entry.tags],
    samples,
    passRate: entry.pass_rate,
    passRateLow: entry.pass_rate_low,
    passRateHigh: entry.pass_rate_high,
    passAtK: entry.pass_at_k,
    passHatK: entry.pass_hat_k,
    passK: (entry.pass_k ?? []).map((p) => ({ k: p.k, passAt: p.pass_at, passHat: p.pass_hat })),
    threshold: entry.threshold,
    meetsThreshold: entry.meets_threshold,
    errored: entry.errored,
  };
  if (entry.gate) result.gate = { text: entry.gate.text, value: entry.gate.value, met: entry.gate.met };
  if (entry.suite !== null) result.suite = entry.suite;
  if (entry.runs.some((r) => r.match !== null)) result.avgScore = entry.avg_score;
  return result;
}
