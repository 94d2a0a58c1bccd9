// Our own `runspec.eval.*` registry (docs/semconv.md, src/semconv/attributes.ts): the writer (verdict
// attributes on the root / carrier span, the executed / dropped / mocked marks on tool spans) and, below
// it, the reader that finds our traces and the case they ran. A change to what we write goes next to what
// we read.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import {
  ATTR_RUNSPEC_EVAL_ACCURACY,
  ATTR_RUNSPEC_EVAL_ARGS_PASS,
  ATTR_RUNSPEC_EVAL_CALLS,
  ATTR_RUNSPEC_EVAL_CASE_ID,
  ATTR_RUNSPEC_EVAL_CATEGORY,
  ATTR_RUNSPEC_EVAL_DIALECT,
  ATTR_RUNSPEC_EVAL_DROPPED,
  ATTR_RUNSPEC_EVAL_ERRORS,
  ATTR_RUNSPEC_EVAL_EXECUTED,
  ATTR_RUNSPEC_EVAL_EXPECTED_ARGS_HASH,
  ATTR_RUNSPEC_EVAL_EXPECTED_AUTONOMY,
  ATTR_RUNSPEC_EVAL_EXPECTED_COMMAND,
  ATTR_RUNSPEC_EVAL_EXPECTED_HOST,
  ATTR_RUNSPEC_EVAL_EXPECTED_TOOL,
  ATTR_RUNSPEC_EVAL_JSON_DUMP,
  ATTR_RUNSPEC_EVAL_MATCH_MODE,
  ATTR_RUNSPEC_EVAL_MEETS_THRESHOLD,
  ATTR_RUNSPEC_EVAL_MOCKED,
  ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY,
  ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND,
  ATTR_RUNSPEC_EVAL_OBSERVED_HOST,
  ATTR_RUNSPEC_EVAL_OBSERVED_TOOL,
  ATTR_RUNSPEC_EVAL_PASS,
  ATTR_RUNSPEC_EVAL_PASS_RATE,
  ATTR_RUNSPEC_EVAL_PASS_RATE_HIGH,
  ATTR_RUNSPEC_EVAL_PASS_RATE_LOW,
  ATTR_RUNSPEC_EVAL_REASON,
  ATTR_RUNSPEC_EVAL_REDUNDANT,
  ATTR_RUNSPEC_EVAL_RULE,
  ATTR_RUNSPEC_EVAL_RUN_ID,
  ATTR_RUNSPEC_EVAL_SAMPLE,
  ATTR_RUNSPEC_EVAL_SAMPLES,
  ATTR_RUNSPEC_EVAL_SCORE,
  ATTR_RUNSPEC_EVAL_STATUS,
  ATTR_RUNSPEC_EVAL_SUITE,
  ATTR_RUNSPEC_EVAL_THRESHOLD,
  ATTR_RUNSPEC_EVAL_TOKENS,
  ATTR_RUNSPEC_EVAL_TOOL_MODE,
} from '../../semconv/attributes.js';
import { RUNSPEC_EVALUATION_NAME, RUNSPEC_RULE_EVALUATION_PREFIX, RUNSPEC_TRAJECTORY_EVALUATION_NAME } from '../../semconv/vendor.js';
import type { ArgExpectation } from '../../types/case.js';
import type { RunError, RunStatus, ToolCallRecord, Usage } from '../../types/run.js';
import type { ToolMode } from '../../types/toolset.js';
import type { CaseResult, Verdict, VerdictCategory } from '../../types/verdict.js';
import { expectationsHash } from '../../scoring/arg-hash.js';
import { isUnjudgedCategory } from '../../scoring/samples.js';
import { totalTokens } from '../../core/tokens.js';
import { isToolMode } from '../../core/vocabulary.js';
import { RecordSink, type AttributeSink } from '../attributes.js';
import { contentFreeReason } from '../content-free.js';
import { toInt, toStr } from './_json.js';
import type { AttributeCarrier } from './_read.js';

// ================================================================ writer

/** What the verdict attributes are built from; `verdict` is absent when the sample errored before scoring. */
export interface VerdictContext {
  caseId: string;
  sample?: number;
  suite?: string;
  runId?: string;
  rule?: string;
  verdict?: Verdict;
  /** The error of a sample that never produced a verdict. */
  error?: RunError;
  result?: CaseResult;
  /** Content capture on: the verdict's full reason (which may quote arguments) is exported. */
  captureContent?: boolean;
  /** The case's argument expectations (runspec `expect_args`): their fingerprint goes on the root span. */
  expectedArgs?: Record<string, ArgExpectation>;
  /** Fallbacks when the verdict lacks them. */
  toolMode?: ToolMode;
  status?: RunStatus;
  usage?: Usage;
}

// A case's expectations are fixed once it is loaded: hashed once per case, not once per sample's trace.
const hashedExpectations = new WeakMap<Record<string, ArgExpectation>, string>();
function expectationsHashOf(args: Record<string, ArgExpectation>): string {
  let hash = hashedExpectations.get(args);
  if (hash === undefined) hashedExpectations.set(args, (hash = expectationsHash(args)));
  return hash;
}

/** What every verdict form (attributes, event, annotation) shares. */
export interface VerdictSummary {
  pass: boolean;
  category: VerdictCategory;
  reason: string;
  /**
   * A real verdict to score and alert on. False for infrastructure errors and for `unscorable` /
   * `incomplete` verdicts: those export no score and no `runspec.eval.pass`, so a mean score or an alert on
   * `pass=false` counts only real verdicts.
   */
  judged: boolean;
  /** `error.type` of an errored sample (the error code). */
  errorType?: string;
  /** Evaluator name: tool selection, trajectory, or one per offline rule. */
  name: string;
}

/** The evaluator (annotation) name of a verdict: distinct per kind so Phoenix does not average them together. */
export function evaluationName(verdict: Pick<Verdict, 'dialect' | 'caseId'> | undefined, rule?: string): string {
  if (rule !== undefined) return `${RUNSPEC_RULE_EVALUATION_PREFIX}${rule}`;
  if (verdict?.dialect === 'rule') return `${RUNSPEC_RULE_EVALUATION_PREFIX}${verdict.caseId}`;
  if (verdict?.dialect === 'replio' || verdict?.dialect === 'turnstone') return RUNSPEC_TRAJECTORY_EVALUATION_NAME;
  return RUNSPEC_EVALUATION_NAME;
}

/** Without content capture the reason is rebuilt from names only: it may quote argument values. */
export function summarizeVerdict(ctx: Pick<VerdictContext, 'verdict' | 'error' | 'captureContent' | 'rule'>): VerdictSummary {
  const name = evaluationName(ctx.verdict, ctx.rule);
  if (ctx.verdict) {
    const v = ctx.verdict;
    const reason = ctx.captureContent ? v.reason : contentFreeReason(v);
    const s: VerdictSummary = { pass: v.pass, category: v.category, reason, judged: v.category !== 'error' && !isUnjudgedCategory(v.category), name };
    if (v.category === 'error') s.errorType = errorTypeOf(v);
    return s;
  }
  return {
    pass: false,
    category: 'error',
    reason: ctx.error ? `${ctx.error.code}: ${ctx.error.message}` : 'no verdict',
    judged: false,
    errorType: ctx.error?.code || '_OTHER',
    name,
  };
}

/** The error code recorded in the verdict's `run_status` check (`_OTHER` when there is none). */
function errorTypeOf(v: Verdict): string {
  const observed = v.checks?.find((k) => k.check === 'run_status')?.observed;
  return typeof observed === 'string' && observed !== '' ? observed : '_OTHER';
}

/** Whether the argument checks of a verdict all held (true), one failed (false), or were not all judged. */
function argsPass(v: Verdict | undefined): boolean | undefined {
  let seen = false;
  let pass = true;
  for (const k of v?.checks ?? []) {
    if (k.check !== 'args' && !k.check.startsWith('args.')) continue;
    if (!k.judged) return undefined;
    seen = true;
    if (k.pass !== true) pass = false;
  }
  return seen ? pass : undefined;
}

/** `runspec.eval.*` attributes: always attached, independent of content capture. */
export function verdictAttributes(ctx: VerdictContext): Attributes {
  const sink = new RecordSink();
  writeVerdictAttributes(sink, ctx, summarizeVerdict(ctx));
  return sink.attributes;
}

/** {@link verdictAttributes}, written onto `sink` in wire order, with the summary the caller already made. */
export function writeVerdictAttributes(sink: AttributeSink, ctx: VerdictContext, s: VerdictSummary): void {
  const v = ctx.verdict;
  const r = ctx.result;
  // A case with no judged sample (all errored or unscorable) has no pass rate: absent, not 0, so an outage
  // never reads as a regression on a pass_rate or meets_threshold alert.
  const judgedSamples = r ? r.samples.filter((x) => x.status === 'scored').length - (r.unscorable ?? 0) : 0;
  const rated = r && (judgedSamples > 0 || (!r.errored && !r.unscorable)) ? r : undefined;
  // Absent, not 0, when nothing reported usage (replio's metric counts unknown as 0).
  const tokens = v?.replio?.tokens ? v.replio.tokens : totalTokens(ctx.usage);
  // Written in order, skipping what is absent.
  let t: AttributeValue | undefined;
  if ((t = ctx.caseId) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_CASE_ID, t);
  if ((t = ctx.suite) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_SUITE, t);
  if ((t = ctx.sample ?? v?.sample) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_SAMPLE, t);
  if ((t = ctx.runId) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_RUN_ID, t);
  if ((t = ctx.rule) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_RULE, t);
  if ((t = v?.dialect) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_DIALECT, t);
  if ((t = s.judged ? s.pass : undefined) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_PASS, t);
  if ((t = s.category) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_CATEGORY, t);
  if ((t = s.reason) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_REASON, t);
  if ((t = v ? v.status : ctx.error ? 'error' : ctx.status) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_STATUS, t);
  if ((t = v?.toolMode ?? ctx.toolMode) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_TOOL_MODE, t);
  if ((t = v?.expected.tool && v.expected.tool.length > 0 ? v.expected.tool.join('|') : undefined) !== undefined)
    sink.setAttribute(ATTR_RUNSPEC_EVAL_EXPECTED_TOOL, t);
  if ((t = v?.observed.tool) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_OBSERVED_TOOL, t);
  if ((t = v?.expected.command) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_EXPECTED_COMMAND, t);
  if ((t = v?.observed.command) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND, t);
  if ((t = v?.expected.host) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_EXPECTED_HOST, t);
  if ((t = v?.observed.host) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_OBSERVED_HOST, t);
  if ((t = v?.expected.autonomy) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_EXPECTED_AUTONOMY, t);
  if ((t = v?.observed.autonomy) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY, t);
  if ((t = v?.jsonDump) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_JSON_DUMP, t);
  if ((t = v ? (v.replio?.calls ?? v.calls.length) : undefined) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_CALLS, t);
  if ((t = v?.replio?.redundant) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_REDUNDANT, t);
  if ((t = v?.replio?.errors) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_ERRORS, t);
  if ((t = v?.replio?.accuracy ?? undefined) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_ACCURACY, t);
  if ((t = v?.match?.score) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_SCORE, t);
  if ((t = v?.match?.matchMode) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_MATCH_MODE, t);
  if ((t = tokens) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_TOKENS, t);
  if ((t = r?.samples.length) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_SAMPLES, t);
  if ((t = rated?.passRate) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_PASS_RATE, t);
  if ((t = rated?.passRateLow) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_PASS_RATE_LOW, t);
  if ((t = rated?.passRateHigh) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_PASS_RATE_HIGH, t);
  if ((t = r?.threshold) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_THRESHOLD, t);
  if ((t = rated?.meetsThreshold) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_MEETS_THRESHOLD, t);
  if ((t = ctx.expectedArgs ? expectationsHashOf(ctx.expectedArgs) : undefined) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_EXPECTED_ARGS_HASH, t);
  if ((t = ctx.expectedArgs ? argsPass(v) : undefined) !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_ARGS_PASS, t);
}

/** The stable annotation/evaluation identifier of a (case, sample): re-runs upsert rather than duplicate. */
export function evaluationIdentifier(caseId: string, sample: number | undefined, rule?: string): string {
  return `${rule ?? caseId}#${sample ?? 0}`;
}

/** `runspec.eval.executed` / `dropped` / `mocked` of a tool span (marks absent unless set). */
export function runspecToolSpanAttributes(record: Pick<ToolCallRecord, 'executed' | 'dropped' | 'mocked'>): Attributes {
  const sink = new RecordSink();
  writeRunspecToolSpanAttributes(sink, record);
  return sink.attributes;
}

/** {@link runspecToolSpanAttributes}, written onto `sink` in wire order. */
export function writeRunspecToolSpanAttributes(sink: AttributeSink, record: Pick<ToolCallRecord, 'executed' | 'dropped' | 'mocked'>): void {
  if (record.executed !== undefined) sink.setAttribute(ATTR_RUNSPEC_EVAL_EXECUTED, record.executed);
  if (record.dropped) sink.setAttribute(ATTR_RUNSPEC_EVAL_DROPPED, true);
  if (record.mocked) sink.setAttribute(ATTR_RUNSPEC_EVAL_MOCKED, true);
}

// ================================================================ reader

/** `runspec.eval.`: the namespace of our verdict attributes (derived, not spelled out). */
const RUNSPEC_EVAL_PREFIX = ATTR_RUNSPEC_EVAL_CASE_ID.slice(0, ATTR_RUNSPEC_EVAL_CASE_ID.lastIndexOf('.') + 1);

/** True when any span carries a runspec.eval.* attribute. */
export function isRunspecTrace(spans: readonly AttributeCarrier[]): boolean {
  for (const s of spans) for (const k in s.attributes) if (k.startsWith(RUNSPEC_EVAL_PREFIX)) return true;
  return false;
}

/** A trajectory call our run dropped beyond the parallel cap (runspec.eval.dropped). */
export function wasDropped(a: Record<string, unknown>): boolean {
  return a[ATTR_RUNSPEC_EVAL_DROPPED] === true || a[ATTR_RUNSPEC_EVAL_DROPPED] === 'true';
}

/** False only for a call our decision run captured without executing it. */
export function wasExecuted(a: Record<string, unknown>): boolean {
  return a[ATTR_RUNSPEC_EVAL_EXECUTED] !== false && a[ATTR_RUNSPEC_EVAL_EXECUTED] !== 'false';
}

/** What our root span (else the first span that has it) says about the case this trace ran. */
export interface RunspecCaseInfo {
  caseId?: string;
  suite?: string;
  sample?: number;
  toolMode?: ToolMode;
}

export function readRunspecCase(root: AttributeCarrier, spans: AttributeCarrier[]): RunspecCaseInfo {
  const info: RunspecCaseInfo = {};
  const caseId = findAttr(root, spans, ATTR_RUNSPEC_EVAL_CASE_ID);
  if (caseId !== undefined) info.caseId = caseId;
  const suite = findAttr(root, spans, ATTR_RUNSPEC_EVAL_SUITE);
  if (suite) info.suite = suite;
  const sample = toInt(findAttr(root, spans, ATTR_RUNSPEC_EVAL_SAMPLE));
  if (sample !== undefined) info.sample = sample;
  const toolMode = findAttr(root, spans, ATTR_RUNSPEC_EVAL_TOOL_MODE);
  if (isToolMode(toolMode)) info.toolMode = toolMode;
  return info;
}

function findAttr(root: AttributeCarrier, spans: AttributeCarrier[], key: string): string | undefined {
  const v = root.attributes[key] ?? spans.find((s) => s.attributes[key] !== undefined)?.attributes[key];
  return v === undefined ? undefined : toStr(v);
}
