// The results document: a superset of turnstone's results file (meta, iterations[] with cases{runs[],
// pass_rate, avg_score} and aggregate{...}), each run also carrying the runspec verdict and the replio
// metrics, each case its interval, pass@k and threshold. Snake_case keys, like turnstone. This file: the
// schema, its types and the reader that validates a document.
import { z } from 'zod';
import { RunspecError } from '../errors.js';
import { VERDICT_CATEGORIES } from '../types/verdict.js';
import { AUTONOMY_LEVELS, DIALECTS, MATCH_MODES, TOOL_MODES } from '../core/vocabulary.js';

export { RESULTS_SCHEMA } from './results-id.js';

const num = z.number();
const int = z.number().int();
const autonomy = z.enum(AUTONOMY_LEVELS);
const runStatus = z.enum(['ok', 'truncated', 'error', 'cancelled']);
const matchMode = z.enum(MATCH_MODES);
const toolMode = z.enum(TOOL_MODES);
const args = z.record(z.string(), z.unknown());

/**
 * `arguments` is absent when `tool_args` holds them (documents written since args are stored once). A call
 * read from a trace may have no id (the producer recorded none), and says whether it ran.
 */
const toolCallSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string(),
  arguments: args.optional(),
  executed: z.boolean().optional(),
  is_error: z.boolean().optional(),
  /** Split back out of a call the producer garbled (merged parallel calls). */
  reconstructed: z.boolean().optional(),
});

/** The fields turnstone writes for a match, on both the case's match and each run. */
const matchFields = {
  pass: z.boolean(),
  score: num,
  matched: z.array(int),
  unmatched: z.array(int),
  extra_tools: z.array(z.string()),
  detail: z.string(),
};

export const matchSchema = z.looseObject({ match_mode: matchMode, ...matchFields });

export const replioSchema = z.looseObject({
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

export const verdictSchema = z.looseObject({
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

/**
 * A sample: one run of a case, or one judgement of a trace. The JSON lines of `score` and `serve` are run
 * entries too (report/verdict-line.ts): they add the trace fields below, `status: "unmatched"` for a trace no
 * case or rule graded (never in a document), and `pass: null` for a verdict that is not an evaluation.
 */
export const runEntrySchema = z.looseObject({
  sample: int,
  status: z.enum(['scored', 'errored', 'unmatched']),
  // turnstone run fields
  ...matchFields,
  /** null (scoring traces only) when the verdict is unscorable, incomplete or an infrastructure error, or none applied. */
  pass: z.boolean().nullable(),
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
  /** Errored samples and scored traces: where the trace lives (a run's scored samples carry these on `verdict`). */
  trace_id: z.string().optional(),
  root_span_id: z.string().optional(),
  trace_url: z.string().optional(),
  // scoring traces (`score`, `serve` lines)
  /** The case or rule that graded the trace (neither: unmatched), and the case's suite. */
  case: z.string().optional(),
  rule: z.string().optional(),
  suite: z.string().optional(),
  /** 0 for a trace's first judgement, one more each time late spans re-opened it. */
  revision: int.optional(),
  /** The trace's re-open window has closed: its last judgement (only these are counted). */
  final: z.boolean().optional(),
  /** Replaces an earlier judgement of the same trace. */
  supersedes: z.boolean().optional(),
  /** The trace never became whole (a root that did not end, parents that never arrived). */
  incomplete: z.boolean().optional(),
  /** Handed out early by a memory bound: may be incomplete. */
  evicted: z.boolean().optional(),
  mode: z.enum(['decision', 'trajectory']).optional(),
  /** The instrumentations that wrote the trace, and the producer family recognised from its structure. */
  producers: z.array(z.string()).optional(),
  family: z.string().optional(),
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

export const groupSchema = z.looseObject({
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
  /** What was under test: a model (provider) or the team's agent (module, http, command); `--target`. */
  target: z.looseObject({ name: z.string(), kind: z.enum(['model', 'module', 'http', 'command']) }).optional(),
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

/** JSON Schema (draft 2020-12) of the results document, for editors and external readers. */
export function resultsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(resultsDocumentSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
