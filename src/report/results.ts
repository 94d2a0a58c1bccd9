// The results document: a superset of turnstone's results file (meta, iterations[] with cases{runs[],
// pass_rate, avg_score} and aggregate{...}), each run also carrying the runspec verdict and the replio
// metrics, each case its interval, pass@k and threshold. Snake_case keys, like turnstone.
//
// A tool call's arguments are written once per sample, in turnstone's `tool_args`: `calls` keep id and
// name, replio's `trace` is left out when it repeats the calls, and the verdict's observed arguments
// point at the call they equal (`args_call`). Readers go through `outcomeOf`/`runEntryCalls`, which put
// them back. (Before, a 50 MB argument made a 210 MB results file.)
import { dropUndefined } from '../core/drop-undefined.js';
import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { redactUrl } from '../core/redact.js';
import { RunspecError } from '../errors.js';
import { VERDICT_CATEGORIES, type CaseResult, type CheckResult, type Expected, type MatchScore, type Observed, type ReplioMetrics, type SampleOutcome, type SampleTrace, type SampleTraceStep, type Verdict } from '../types/verdict.js';
import { type ToolCall, type ToolLogEntry } from '../types/run.js';
import { sampleScore, summarize, type SuiteSummary } from '../scoring/summary.js';
import { AUTONOMY_LEVELS, DIALECTS, MATCH_MODES, TOOL_MODES } from '../core/vocabulary.js';

/** Marks a document written by this module (turnstone readers ignore it). */
export const RESULTS_SCHEMA = 'runspec-eval.results/v1';

const num = z.number();
const int = z.number().int();
const autonomy = z.enum(AUTONOMY_LEVELS);
const runStatus = z.enum(['ok', 'truncated', 'error', 'cancelled']);
const matchMode = z.enum(MATCH_MODES);
const toolMode = z.enum(TOOL_MODES);
const args = z.record(z.string(), z.unknown());

/** `arguments` is absent when `tool_args` holds them (documents written since args are stored once). */
const toolCallSchema = z.looseObject({ id: z.string(), name: z.string(), arguments: args.optional() });

/** The fields turnstone writes for a match, on both the case's match and each run. */
const matchFields = {
  pass: z.boolean(),
  score: num,
  matched: z.array(int),
  unmatched: z.array(int),
  extra_tools: z.array(z.string()),
  detail: z.string(),
};

const matchSchema = z.looseObject({ match_mode: matchMode, ...matchFields });

const replioSchema = z.looseObject({
  /** Absent when it equals the run's calls (names and arguments). */
  trace: z.array(z.looseObject({ name: z.string(), arguments: args })).optional(),
  names: z.array(z.string()),
  accuracy: num.nullable(),
  pass: z.boolean().nullable(),
  calls: int,
  redundant: int,
  errors: int,
  tokens: num,
  status: runStatus,
});

const verdictSchema = z.looseObject({
  category: z.enum(VERDICT_CATEGORIES),
  reason: z.string(),
  dialect: z.enum([...DIALECTS, 'rule']),
  expected: z.looseObject({
    tool: z.array(z.string()).optional(),
    command: z.string().optional(),
    host: z.string().optional(),
    autonomy: autonomy.optional(),
    no_run: z.boolean().optional(),
  }),
  observed: z.looseObject({
    tool: z.string().optional(),
    command: z.string().optional(),
    host: z.string().optional(),
    autonomy: autonomy.optional(),
    args: args.optional(),
    /** Index into `calls` whose arguments are the observed args (then `args` is absent). */
    args_call: int.optional(),
  }),
  tool_mode: toolMode.nullable(),
  checks: z.array(z.looseObject({ check: z.string(), judged: z.boolean() })).optional(),
  trace_id: z.string().optional(),
  root_span_id: z.string().optional(),
  trace_url: z.string().optional(),
});

const runErrorSchema = z.looseObject({ code: z.string(), message: z.string() });

/** A sample's timeline (optional: files written before it existed lack it). */
const traceStepSchema = z.discriminatedUnion('kind', [
  z.looseObject({
    kind: z.literal('llm'),
    turn: int,
    index: int,
    offset_ms: num,
    duration_ms: num,
    model: z.string().optional(),
    input_tokens: num.optional(),
    output_tokens: num.optional(),
    finish_reason: z.string().optional(),
    text: z.string().optional(),
    tool_calls: z.array(z.string()),
    error: runErrorSchema.optional(),
  }),
  z.looseObject({
    kind: z.literal('tool'),
    turn: int,
    name: z.string(),
    call_id: z.string(),
    offset_ms: num,
    duration_ms: num,
    executed: z.boolean(),
    arguments: args.optional(),
    /** Index into the run's calls whose arguments these are (then `arguments` is absent). */
    args_call: int.optional(),
    result: z.string().optional(),
    is_error: z.boolean().optional(),
    dropped: z.boolean().optional(),
    mocked: z.boolean().optional(),
  }),
]);

const sampleTraceSchema = z.looseObject({
  start_ms: num,
  duration_ms: num,
  status: runStatus,
  steps: z.array(traceStepSchema),
  dropped_steps: int.optional(),
  error: runErrorSchema.optional(),
});

const runEntrySchema = z.looseObject({
  sample: int,
  status: z.enum(['scored', 'errored']),
  // turnstone run fields
  ...matchFields,
  tool_sequence: z.array(z.string()),
  tool_args: z.array(z.record(z.string(), args)),
  /** Seconds, as turnstone writes it. */
  elapsed: num,
  // runspec-eval additions
  elapsed_ms: num,
  tokens: num,
  json_dump: z.boolean(),
  run_status: runStatus.nullable(),
  verdict: verdictSchema.nullable(),
  replio: replioSchema.nullable(),
  match: matchSchema.nullable(),
  calls: z.array(toolCallSchema),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  /** turnstone's tool_call_log: { tool, args, result (≤ 500 chars), turn } per call; absent in older files. */
  tool_log: z.array(z.looseObject({ tool: z.string(), args, result: z.string().optional(), turn: int })).optional(),
  /** The sample's turns, model and tool calls with timings and results. */
  trace: sampleTraceSchema.optional(),
  /** Errored samples: where their exported trace lives (scored samples carry these on `verdict`). */
  trace_id: z.string().optional(),
  root_span_id: z.string().optional(),
  trace_url: z.string().optional(),
});

const caseEntrySchema = z.looseObject({
  runs: z.array(runEntrySchema),
  pass_rate: num,
  avg_score: num,
  suite: z.string().nullable(),
  dialect: z.enum([...DIALECTS, 'rule']),
  tags: z.array(z.string()),
  pass_rate_low: num,
  pass_rate_high: num,
  /** k = the number of scored samples. */
  k: int,
  pass_at_k: num,
  pass_hat_k: num,
  /** pass@k / pass^k for each requested k (`--pass-k`, a gate's k); null where k > the scored samples. */
  pass_k: z.array(z.looseObject({ k: int, pass_at: num.nullable(), pass_hat: num.nullable() })).optional(),
  /** The gate that decided meets_threshold, when one was set. */
  gate: z.looseObject({ text: z.string(), value: num.nullable(), met: z.boolean() }).nullable().optional(),
  threshold: num,
  meets_threshold: z.boolean(),
  errored: z.boolean(),
  errored_runs: int,
});

const groupSchema = z.looseObject({
  cases: int,
  cases_meeting_threshold: int,
  avg_pass_rate: num,
  runs: int,
  passed_runs: int,
});

const aggregateSchema = z.looseObject({
  // turnstone aggregate
  total_cases: int,
  total_runs: int,
  overall_pass_rate: num,
  overall_avg_score: num,
  json_dumps: int,
  per_case_pass_rates: z.record(z.string(), num),
  // runspec-eval additions
  scored_runs: int,
  passed_runs: int,
  errored_runs: int,
  /** Samples with an unscorable or incomplete verdict (not in pass rates); absent in older files. */
  unscorable_runs: int.optional(),
  errored_cases: int,
  cases_meeting_threshold: int,
  cases_below_threshold: int,
  all_meet_threshold: z.boolean(),
  avg_pass_rate: num,
  avg_accuracy: num.nullable(),
  calls: int,
  redundant: int,
  errors: int,
  tokens: num,
  by_category: z.record(z.string(), int),
  by_tag: z.record(z.string(), groupSchema),
  by_suite: z.record(z.string(), groupSchema),
});

const metaSchema = z.looseObject({
  started: z.string(),
  finished: z.string().optional(),
  tool: z.string().optional(),
  version: z.string().optional(),
  model: z.string().nullable().optional(),
  base_url: z.string().nullable().optional(),
  provider: z.string().optional(),
  label: z.string().optional(),
  run_id: z.string().optional(),
  test_suite: z.string().optional(),
  n_runs_default: int.optional(),
  threshold: num.optional(),
  tool_mode: z.string().optional(),
  validate_args: z.boolean().optional(),
  shard: z.looseObject({ index: int, count: int }).nullable().optional(),
  /** Every selected case id before sharding, in selection order: `merge` restores this order. */
  case_order: z.array(z.string()).optional(),
});

const iterationSchema = z.looseObject({
  iteration: int,
  prompt: z.string().optional(),
  prompt_diff: z.string().nullable().optional(),
  optimizer_system: z.string().optional(),
  timestamp: z.string(),
  cases: z.record(z.string(), caseEntrySchema),
  aggregate: aggregateSchema,
});

/**
 * What scoring traces read besides verdicts (`score`, `serve`): traces no case or rule graded, traces
 * that could not be read as agent traces, bad input, and traces judged again. Absent in run results;
 * the report renderers show it as an "inputs" section (JUnit: an `inputs` testsuite).
 */
const inputsSchema = z.looseObject({
  /** Traces read. */
  traces: int,
  /** Traces no case or rule applied to (first few in `unmatched_traces`). */
  unmatched: int,
  unmatched_traces: z.array(z.looseObject({ trace_id: z.string(), root_span_id: z.string().optional() })).optional(),
  /** Traces that are not GenAI agent traces (no LLM or tool spans...), by reason, with the first few. */
  uninterpretable: int,
  uninterpretable_reasons: z.record(z.string(), int).optional(),
  uninterpretable_traces: z.array(z.looseObject({ trace_id: z.string(), reason: z.string() })).optional(),
  /** Bad lines, spans and files (`place` is `file:line`), with the first few. */
  problems: int,
  problem_examples: z.array(z.looseObject({ place: z.string(), reason: z.string() })).optional(),
  /** Inputs from which nothing could be read (not OTLP at all). */
  bad_files: z.array(z.string()).optional(),
  /** Traces judged again after late spans: their earlier verdicts were replaced. */
  superseded: int.optional(),
  /** Open traces scored early to bound memory, spans dropped, spans/records that came after their trace was judged. */
  evicted_traces: int.optional(),
  dropped_spans: int.optional(),
  late_records: int.optional(),
});

/** zod schema of the results document (validate a file read back; `z.toJSONSchema` for docs). */
export const resultsDocumentSchema = z.looseObject({
  schema: z.string().optional(),
  meta: metaSchema,
  iterations: z.array(iterationSchema),
  /** Free-form extension point (e.g. a comparison's labels); kept as it is. */
  results: z.unknown().optional(),
  /** Scoring traces only: what was read besides verdicts (see {@link ResultsInputs}). */
  inputs: inputsSchema.optional(),
});

export type ResultsDocument = z.infer<typeof resultsDocumentSchema>;
export type ResultsMeta = z.infer<typeof metaSchema>;
/** What scoring traces read besides verdicts: unmatched and uninterpretable traces, input problems, superseded counts. */
export type ResultsInputs = z.infer<typeof inputsSchema>;
export type ResultsIteration = z.infer<typeof iterationSchema>;
export type CaseEntry = z.infer<typeof caseEntrySchema>;
export type RunEntry = z.infer<typeof runEntrySchema>;
export type Aggregate = z.infer<typeof aggregateSchema>;
export type SampleTraceJson = z.infer<typeof sampleTraceSchema>;
export type SampleTraceStepJson = z.infer<typeof traceStepSchema>;

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

function traceFromJson(t: SampleTraceJson, calls: readonly ToolCall[]): SampleTrace {
  const steps = t.steps.map((s): SampleTraceStep => {
    if (s.kind === 'llm') {
      const step: SampleTraceStep = { kind: 'llm', turn: s.turn, index: s.index, offsetMs: s.offset_ms, durationMs: s.duration_ms, toolCalls: [...s.tool_calls] };
      if (s.model !== undefined) step.model = s.model;
      if (s.input_tokens !== undefined) step.inputTokens = s.input_tokens;
      if (s.output_tokens !== undefined) step.outputTokens = s.output_tokens;
      if (s.finish_reason !== undefined) step.finishReason = s.finish_reason;
      if (s.text !== undefined) step.text = s.text;
      if (s.error) step.error = { code: s.error.code, message: s.error.message };
      return step;
    }
    const step: SampleTraceStep = { kind: 'tool', turn: s.turn, name: s.name, callId: s.call_id, offsetMs: s.offset_ms, durationMs: s.duration_ms, executed: s.executed };
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


function matchToJson(m: MatchScore): z.infer<typeof matchSchema> {
  return { match_mode: m.matchMode, pass: m.pass, score: m.score, matched: [...m.matched], unmatched: [...m.unmatched], extra_tools: [...m.extraTools], detail: m.detail };
}

function matchFromJson(m: z.infer<typeof matchSchema>): MatchScore {
  return { matchMode: m.match_mode, pass: m.pass, score: m.score, matched: m.matched, unmatched: m.unmatched, extraTools: m.extra_tools, detail: m.detail };
}

function sameArgs(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a, b);
}

function replioToJson(m: ReplioMetrics, calls: readonly ToolCall[]): z.infer<typeof replioSchema> {
  const { trace, ...rest } = m;
  const repeatsCalls = trace.length === calls.length && trace.every((t, i) => t.name === calls[i]!.name && sameArgs(t.arguments, calls[i]!.arguments ?? {}));
  return { ...rest, ...(repeatsCalls ? {} : { trace: trace.map((t) => ({ name: t.name, arguments: t.arguments })) }), names: [...m.names] };
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
  return {
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
    verdict: {
      category: v.category,
      reason: v.reason,
      dialect: v.dialect,
      expected: dropUndefined({ tool: v.expected.tool, command: v.expected.command, host: v.expected.host, autonomy: v.expected.autonomy, no_run: v.expected.noRun }),
      observed: observedToJson(v.observed, v.calls),
      tool_mode: v.toolMode ?? null,
      ...(v.checks ? { checks: v.checks.map((c) => ({ ...c })) } : {}),
      ...(v.trace ? { trace_id: v.trace.traceId, root_span_id: v.trace.rootSpanId } : {}),
      ...(v.trace?.url ? { trace_url: v.trace.url } : {}),
    },
    replio: v.replio ? replioToJson(v.replio, v.calls) : null,
    match: m ? matchToJson(m) : null,
    calls: v.calls.map((c) => ({ id: c.id, name: c.name })),
    error: null,
    ...(outcome.toolLog ? { tool_log: outcome.toolLog.map((e) => ({ ...e })) } : {}),
    ...(outcome.trace ? { trace: traceToJson(outcome.trace, v.calls) } : {}),
  };
}

function observedToJson(o: Observed, calls: readonly ToolCall[]): z.infer<typeof verdictSchema>['observed'] {
  const { args: observedArgs, ...rest } = o;
  const out: Record<string, unknown> = dropUndefined({ ...rest });
  if (observedArgs !== undefined) {
    const at = calls.findIndex((c) => sameArgs(c.arguments, observedArgs));
    if (at >= 0) out.args_call = at;
    else out.args = observedArgs;
  }
  return out;
}

/**
 * The tool calls of a run entry with their arguments (from `tool_args`, where they are stored; older
 * documents carry them on `calls` too).
 */
export function runEntryCalls(run: RunEntry): ToolCall[] {
  return run.calls.map((c, i) => ({ id: c.id, name: c.name, arguments: c.arguments ?? run.tool_args[i]?.[c.name] ?? {} }));
}

/** One case as a turnstone case entry (plus interval, pass@k, threshold). */
export function caseEntryOf(r: CaseResult): CaseEntry {
  const runs = r.samples.map(runEntryOf);
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

function groupToJson(g: { cases: number; casesMeetingThreshold: number; avgPassRate: number; scoredSamples: number; passedSamples: number }): z.infer<typeof groupSchema> {
  return { cases: g.cases, cases_meeting_threshold: g.casesMeetingThreshold, avg_pass_rate: g.avgPassRate, runs: g.scoredSamples, passed_runs: g.passedSamples };
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

function outcomeOf(caseId: string, dialect: CaseResult['dialect'], run: RunEntry): SampleOutcome {
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
    pass: run.pass,
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
  const outcome: SampleOutcome = { status: 'scored', sample: run.sample, verdict, elapsedMs: run.elapsed_ms, tokens: run.tokens, ...(run.trace ? { trace: traceFromJson(run.trace, calls) } : {}) };
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

/**
 * Validate a results document read back from `file` (JSON text or an already parsed value).
 * Throws a one-line RunspecError('RESULTS') naming the file and the field path.
 */
export function parseResultsDocument(json: unknown, file: string): ResultsDocument {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (err) {
      throw new RunspecError('RESULTS', `${file}: expected a JSON results document (${err instanceof Error ? err.message : String(err)})`, {
        hint: 'pass the .json file `runspec-eval run --out` wrote (the .jsonl log is for --resume)',
      });
    }
  }
  const parsed = resultsDocumentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.length ? z.core.toDotPath(issue.path) : '(document)';
    throw new RunspecError('RESULTS', `${file}: ${path}: ${issue.message}`, {
      hint: 'pass a results file written by runspec-eval (or a turnstone results file with the runspec-eval fields)',
    });
  }
  return parsed.data;
}

/**
 * The results document as its file holds it: two-space JSON and a final newline, except that each case
 * entry sits on one line of its own (`"id": {...}`) and `meta.case_order` is one line. A 10,000-case
 * run's file is then about 2.4× smaller than fully indented JSON, `grep case-id` finds a case's whole
 * entry, and a run can write each entry's JSON as its results log holds it (see run-results.ts).
 */
export function resultsDocumentText(doc: ResultsDocument): string {
  const out: string[] = [];
  writeResultsDocumentText(
    doc,
    (chunk) => out.push(chunk),
    {
      cases: (i, line) => {
        for (const [id, entry] of Object.entries(doc.iterations[i]?.cases ?? {})) line(id, JSON.stringify(entry));
      },
      aggregate: (i) => doc.iterations[i]?.aggregate,
    },
  );
  return out.join('');
}

const CASE_INDENT = ' '.repeat(8);
const CASES_INDENT = ' '.repeat(6);

/**
 * Write the document laid out as {@link resultsDocumentText} says, in pieces: everything but the cases
 * and aggregates comes from `doc` (its keys in its order); each iteration's case lines come from `parts.cases` (the entry's
 * JSON text as `JSON.stringify` gives it), then its aggregate from `parts.aggregate`, asked for only once
 * its cases are written (a streamed document folds the aggregate while writing them).
 */
export function writeResultsDocumentText(
  doc: Readonly<Record<string, unknown>> & { meta: ResultsMeta; iterations: ReadonlyArray<Readonly<Record<string, unknown>>> },
  write: (chunk: string) => void,
  parts: { cases: (iteration: number, line: (caseId: string, entryJson: string) => void) => void; aggregate: (iteration: number) => unknown },
): void {
  // Placeholders laid out by JSON.stringify itself, then replaced; a random token no value can hold.
  const mark = `@runspec-layout-${randomUUID()}-`;
  const meta: Record<string, unknown> = { ...doc.meta };
  if (meta.case_order !== undefined) meta.case_order = `${mark}order`;
  // Spreading keeps the iteration's key order; cases and aggregate go last when it has none yet.
  const iterations = doc.iterations.map((it, i) => ({ ...it, cases: `${mark}cases-${i}`, aggregate: `${mark}aggregate-${i}` }));
  const skeleton = JSON.stringify({ ...doc, meta, iterations }, null, 2);
  let at = 0;
  for (const m of skeleton.matchAll(new RegExp(`"${mark}(order|cases-\\d+|aggregate-\\d+)"`, 'g'))) {
    write(skeleton.slice(at, m.index));
    at = m.index + m[0].length;
    const what = m[1]!;
    if (what === 'order') {
      write(JSON.stringify(doc.meta.case_order));
    } else if (what.startsWith('cases-')) {
      let first = true;
      parts.cases(Number(what.slice('cases-'.length)), (caseId, entryJson) => {
        write(`${first ? '{\n' : ',\n'}${CASE_INDENT}${JSON.stringify(caseId)}: ${entryJson}`);
        first = false;
      });
      write(first ? '{}' : `\n${CASES_INDENT}}`);
    } else {
      write(JSON.stringify(parts.aggregate(Number(what.slice('aggregate-'.length))), null, 2).replace(/\n/g, `\n${CASES_INDENT}`));
    }
  }
  write(skeleton.slice(at));
  write('\n');
}

/** JSON Schema (draft 2020-12) of the results document, for editors and external readers. */
export function resultsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(resultsDocumentSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
