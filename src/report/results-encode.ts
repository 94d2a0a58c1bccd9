// Results document, writing side: samples, cases and aggregates as the schema (results-schema.ts) keeps them.
// A tool call's arguments are written once per sample, in turnstone's `tool_args`: `calls` keep id and
// name, replio's `trace` is left out when it repeats the calls, and the verdict's observed arguments
// point at the call they equal (`args_call`). Readers go through `outcomeOf`/`runEntryCalls`, which put
// them back. (Before, a 50 MB argument made a 210 MB results file.)
import { dropUndefined } from '../core/drop-undefined.js';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { redactUrl } from '../core/redact.js';
import type { CaseResult, MatchScore, Observed, ReplioMetrics, SampleOutcome, SampleTrace, Verdict } from '../types/verdict.js';
import type { ToolCall } from '../types/run.js';
import { sampleScore, summarize, type SuiteSummary } from '../scoring/summary.js';
import { RESULTS_SCHEMA } from './results-id.js';
import type {
  matchSchema,
  replioSchema,
  verdictSchema,
  groupSchema,
  ResultsDocument,
  ResultsMeta,
  ResultsIteration,
  CaseEntry,
  RunEntry,
  Aggregate,
  SampleTraceJson,
  SampleTraceStepJson,
} from './results-schema.js';

function traceToJson(t: SampleTrace, calls: readonly ToolCall[]): SampleTraceJson {
  const steps = t.steps.map((s): SampleTraceStepJson => {
    if (s.kind === 'llm') {
      return dropUndefined({
        kind: 'llm' as const,
        turn: s.turn,
        index: s.index,
        offset_ms: s.offsetMs,
        duration_ms: s.durationMs,
        model: s.model,
        input_tokens: s.inputTokens,
        output_tokens: s.outputTokens,
        finish_reason: s.finishReason,
        text: s.text,
        tool_calls: [...s.toolCalls],
        error: s.error ? { code: s.error.code, message: s.error.message } : undefined,
      });
    }
    // The arguments of a step that is one of the run's calls are already in `tool_args`: point at it.
    const at = s.arguments === undefined ? -1 : calls.findIndex((c) => c.id === s.callId && c.name === s.name && sameArgs(c.arguments, s.arguments));
    return dropUndefined({
      kind: 'tool' as const,
      turn: s.turn,
      name: s.name,
      call_id: s.callId,
      offset_ms: s.offsetMs,
      duration_ms: s.durationMs,
      executed: s.executed,
      arguments: at >= 0 ? undefined : s.arguments,
      args_call: at >= 0 ? at : undefined,
      result: s.result,
      is_error: s.isError,
      dropped: s.dropped,
      mocked: s.mocked,
    });
  });
  return dropUndefined({
    start_ms: t.startTimeMs,
    duration_ms: t.durationMs,
    status: t.status,
    steps,
    dropped_steps: t.droppedSteps,
    error: t.error ? { code: t.error.code, message: t.error.message } : undefined,
  });
}

function matchToJson(m: MatchScore): z.infer<typeof matchSchema> {
  return {
    match_mode: m.matchMode,
    pass: m.pass,
    score: m.score,
    matched: [...m.matched],
    unmatched: [...m.unmatched],
    extra_tools: [...m.extraTools],
    detail: m.detail,
  };
}

/** Whether two calls' arguments are the same (deep strict equality, as Node's util says it). */
export function sameArgs(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a, b);
}

function replioToJson(m: ReplioMetrics, calls: readonly ToolCall[]): z.infer<typeof replioSchema> {
  // `rest` is the entry's own object: `names` is replaced where it stands, `trace` (when kept) goes last.
  const { trace, ...rest } = m;
  const out: z.infer<typeof replioSchema> = rest;
  out.names = [...m.names];
  const repeatsCalls = trace.length === calls.length && trace.every((t, i) => t.name === calls[i]!.name && sameArgs(t.arguments, calls[i]!.arguments ?? {}));
  if (!repeatsCalls) out.trace = trace.map((t) => ({ name: t.name, arguments: t.arguments }));
  return out;
}

/** One sample as a turnstone run entry (plus the verdict). */
export function runEntryOf(outcome: SampleOutcome): RunEntry {
  if (outcome.status === 'errored') {
    // A partial run (the provider failed mid-run) keeps what happened: sequence, args, tokens, metrics.
    const p = outcome.partial;
    return {
      sample: outcome.sample,
      status: 'errored',
      pass: false,
      score: 0,
      matched: [],
      unmatched: [],
      extra_tools: [],
      detail: `errored: ${outcome.error.code}: ${outcome.error.message}`,
      tool_sequence: p ? p.calls.map((c) => c.name) : [],
      tool_args: p ? p.calls.map((c) => ({ [c.name]: c.arguments })) : [],
      elapsed: outcome.elapsedMs / 1000,
      elapsed_ms: outcome.elapsedMs,
      tokens: outcome.tokens ?? 0,
      json_dump: false,
      run_status: p ? 'error' : null,
      verdict: null,
      replio: p?.replio ? replioToJson(p.replio, p.calls) : null,
      match: null,
      calls: p ? p.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) : [],
      error: { code: outcome.error.code, message: outcome.error.message },
      ...(outcome.toolLog ? { tool_log: outcome.toolLog.map((e) => ({ ...e })) } : {}),
      ...(outcome.trace ? { trace: traceToJson(outcome.trace, p?.calls ?? []) } : {}),
      ...(outcome.traceRef ? { trace_id: outcome.traceRef.traceId, root_span_id: outcome.traceRef.rootSpanId } : {}),
      ...(outcome.traceRef?.url ? { trace_url: outcome.traceRef.url } : {}),
    };
  }
  const v = outcome.verdict;
  const m = v.match;
  const entry: RunEntry = {
    sample: outcome.sample,
    status: 'scored',
    pass: v.pass,
    score: sampleScore(v),
    matched: m ? [...m.matched] : [],
    unmatched: m ? [...m.unmatched] : [],
    extra_tools: m ? [...m.extraTools] : [],
    detail: m ? m.detail : v.reason,
    tool_sequence: v.calls.map((c) => c.name),
    tool_args: v.calls.map((c) => ({ [c.name]: c.arguments })),
    elapsed: outcome.elapsedMs / 1000,
    elapsed_ms: outcome.elapsedMs,
    tokens: outcome.tokens,
    json_dump: v.jsonDump,
    run_status: v.status,
    verdict: verdictToJson(v),
    replio: v.replio ? replioToJson(v.replio, v.calls) : null,
    match: m ? matchToJson(m) : null,
    calls: v.calls.map((c) => ({ id: c.id, name: c.name })),
    error: null,
  };
  // Optional keys are assigned after the literal (same key order), not spread from conditional literals:
  // each spread made and copied a throwaway object per sample.
  if (outcome.toolLog) entry.tool_log = outcome.toolLog.map((e) => ({ ...e }));
  if (outcome.trace) entry.trace = traceToJson(outcome.trace, v.calls);
  return entry;
}

function verdictToJson(v: Verdict): z.infer<typeof verdictSchema> {
  const out: z.infer<typeof verdictSchema> = {
    category: v.category,
    reason: v.reason,
    dialect: v.dialect,
    expected: dropUndefined({
      tool: v.expected.tool,
      command: v.expected.command,
      host: v.expected.host,
      autonomy: v.expected.autonomy,
      no_run: v.expected.noRun,
    }),
    observed: observedToJson(v.observed, v.calls),
    tool_mode: v.toolMode ?? null,
  };
  if (v.checks) out.checks = v.checks.map((c) => ({ ...c }));
  if (v.trace) {
    out.trace_id = v.trace.traceId;
    out.root_span_id = v.trace.rootSpanId;
  }
  if (v.trace?.url) out.trace_url = v.trace.url;
  return out;
}

function observedToJson(o: Observed, calls: readonly ToolCall[]): z.infer<typeof verdictSchema>['observed'] {
  const { args: observedArgs, ...rest } = o;
  const out: Record<string, unknown> = dropUndefined(rest);
  if (observedArgs !== undefined) {
    const at = calls.findIndex((c) => sameArgs(c.arguments, observedArgs));
    if (at >= 0) out.args_call = at;
    else out.args = observedArgs;
  }
  return out;
}

/** One case as a turnstone case entry (plus interval, pass@k, threshold). */
export function caseEntryOf(r: CaseResult): CaseEntry {
  // Array.from, not `.map`: see scoreRun (a holey array from optimised code deoptimised the readers of `runs`).
  const runs = Array.from(r.samples, (s) => runEntryOf(s));
  const scoredRuns = runs.filter((x) => x.status === 'scored');
  return {
    runs,
    pass_rate: r.passRate,
    avg_score: r.avgScore ?? (scoredRuns.length ? scoredRuns.reduce((s, x) => s + x.score, 0) / scoredRuns.length : 0),
    suite: r.suite ?? null,
    dialect: r.dialect,
    tags: [...r.tags],
    pass_rate_low: r.passRateLow,
    pass_rate_high: r.passRateHigh,
    k: scoredRuns.length,
    pass_at_k: r.passAtK,
    pass_hat_k: r.passHatK,
    pass_k: r.passK.map((p) => ({ k: p.k, pass_at: p.passAt, pass_hat: p.passHat })),
    gate: r.gate ? { text: r.gate.text, value: r.gate.value, met: r.gate.met } : null,
    threshold: r.threshold,
    meets_threshold: r.meetsThreshold,
    errored: r.errored,
    errored_runs: runs.length - scoredRuns.length,
  };
}

function groupToJson(g: {
  cases: number;
  casesMeetingThreshold: number;
  avgPassRate: number;
  scoredSamples: number;
  passedSamples: number;
}): z.infer<typeof groupSchema> {
  return {
    cases: g.cases,
    cases_meeting_threshold: g.casesMeetingThreshold,
    avg_pass_rate: g.avgPassRate,
    runs: g.scoredSamples,
    passed_runs: g.passedSamples,
  };
}

/** The aggregate of one iteration: turnstone's fields plus the suite summary. */
export function aggregateOf(results: readonly CaseResult[]): Aggregate {
  return aggregateFromSummary(summarize(results), Object.fromEntries(results.map((r) => [r.caseId, r.passRate])));
}

/** The aggregate from a summary already built (incrementally, by a run that keeps no case results). */
export function aggregateFromSummary(s: SuiteSummary, perCasePassRates: Record<string, number>): Aggregate {
  return {
    total_cases: s.cases,
    total_runs: s.samples,
    overall_pass_rate: s.overallPassRate,
    overall_avg_score: s.avgScore ?? 0,
    json_dumps: s.jsonDumps,
    per_case_pass_rates: perCasePassRates,
    scored_runs: s.scoredSamples,
    passed_runs: s.passedSamples,
    errored_runs: s.erroredSamples,
    unscorable_runs: s.unscorableSamples,
    errored_cases: s.errored,
    cases_meeting_threshold: s.casesMeetingThreshold,
    cases_below_threshold: s.casesBelowThreshold,
    all_meet_threshold: s.allMeetThreshold,
    avg_pass_rate: s.avgPassRate,
    avg_accuracy: s.avgAccuracy,
    calls: s.calls,
    redundant: s.redundant,
    errors: s.errors,
    tokens: s.tokens,
    by_category: { ...s.byCategory },
    by_tag: Object.fromEntries(Object.entries(s.byTag).map(([k, g]) => [k, groupToJson(g)])),
    by_suite: Object.fromEntries(Object.entries(s.bySuite).map(([k, g]) => [k, groupToJson(g)])),
  };
}

/** Input of {@link buildResultsDocument}: one entry per iteration (a plain run has one, iteration 0). */
export interface ResultsInput {
  meta: ResultsMeta;
  iterations: Array<{
    iteration: number;
    timestamp: string;
    prompt?: string;
    promptDiff?: string | null;
    optimizerSystem?: string;
    caseResults: readonly CaseResult[];
  }>;
}

/**
 * Build the results document from case results.
 *
 * @example buildResultsDocument({ meta: { started }, iterations: [{ iteration: 0, timestamp, caseResults }] })
 */
export function buildResultsDocument(input: ResultsInput): ResultsDocument {
  const meta = { ...input.meta };
  if (typeof meta.base_url === 'string') meta.base_url = redactUrl(meta.base_url);
  return {
    schema: RESULTS_SCHEMA,
    meta,
    iterations: input.iterations.map((it) => {
      const out: ResultsIteration = {
        iteration: it.iteration,
        timestamp: it.timestamp,
        cases: Object.fromEntries(it.caseResults.map((r) => [r.caseId, caseEntryOf(r)])),
        aggregate: aggregateOf(it.caseResults),
      };
      if (it.prompt !== undefined) out.prompt = it.prompt;
      if (it.promptDiff !== undefined) out.prompt_diff = it.promptDiff;
      if (it.optimizerSystem !== undefined) out.optimizer_system = it.optimizerSystem;
      return out;
    }),
  };
}
