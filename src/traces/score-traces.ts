// Trace → verdict lines. Stateless per trace: the same trace gives the same lines wherever it is scored,
// which is what makes `--shard i/n` and load-balanced `serve` replicas add up to the unsharded result.
import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROMPT,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
} from '../semconv/gen-ai.js';
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { isUnjudgedCategory } from '../scoring/samples.js';
import { scoreRun } from '../scoring/verdict.js';
import type { ScoreOptions } from '../scoring/verdict.js';
import {
  ATTR_RUNSPEC_EVAL_ARGS_PASS,
  ATTR_RUNSPEC_EVAL_CASE_ID,
  ATTR_RUNSPEC_EVAL_ARGUMENT_HASHES,
  ATTR_RUNSPEC_EVAL_EXPECTED_ARGS_HASH,
  ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY,
  ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND,
  ATTR_RUNSPEC_EVAL_OBSERVED_HOST,
  ATTR_RUNSPEC_EVAL_OBSERVED_TOOL,
} from '../semconv/attributes.js';
import * as K from '../semconv/producers.js';
import { isContentAttribute } from '../telemetry/conventions/content.js';
import type { Run } from '../types/run.js';
import { layoutFor } from '../toolset/layout.js';
import type { Autonomy, Case } from '../types/case.js';
import type { ResolvedCall, ToolMode, Toolset } from '../types/toolset.js';
import type { ObservedCallLine, TraceVerdictLine } from '../types/trace-verdict.js';
import type { Verdict, VerdictCategory } from '../types/verdict.js';
import { VERDICT_CATEGORIES } from '../types/verdict.js';
import type { AssembledTrace, AssemblerStats } from './assembler.js';
import { casesForTrace, matchRuleHolds } from './match.js';
import { normaliseTraceForScoring } from './normalise.js';
import type { TraceInfo } from './normalise.js';
import { applyRule } from './rules.js';
import type { TraceRule } from './rules.js';
import { MAX_ATTRIBUTE_CHARS, type InputProblem } from './spans.js';
import { isRecord as isObject } from '../core/is-record.js';
import { isAutonomy } from '../core/vocabulary.js';

export type { ObservedCallLine, TraceVerdictLine } from '../types/trace-verdict.js';

/** A scored trace: its lines and the verdicts behind them (for annotations and verdict spans). */
export type TraceOutcome =
  | {
      kind: 'scored';
      traceId: string;
      info: TraceInfo;
      lines: TraceVerdictLine[];
      verdicts: Array<{ verdict: Verdict; caseId?: string; rule?: string }>;
      /** Replaces the previous outcome of this trace (same ids: annotations upsert). */
      supersedes?: boolean;
      revision: number;
      final: boolean;
    }
  | { kind: 'uninterpretable'; traceId: string; rootSpanId?: string; reason: string; supersedes?: boolean; revision: number; final: boolean };

/** Records for a trace whose re-open window had closed: dropped, never a verdict, reported when they arrive. */
export interface LateRecordsLine {
  kind: 'late';
  traceId: string;
  records: number;
  reason: string;
}

export interface TraceScorerOptions {
  cases?: readonly Case[];
  rules?: readonly TraceRule[];
  /** Toolset for rules (validate_args) and, without `toolsetFor`, for cases. */
  toolset?: Toolset;
  /** Per-case toolset (the CLI picks it as `run` does, so offline verdicts equal live ones). */
  toolsetFor?: (c: Case) => Toolset | undefined;
  /** Layout when the trace does not say (`runspec.eval.tool_mode`). */
  toolMode?: ToolMode;
  /** Check calls against the toolset's preflight validator when scoring cases. @default false */
  validateArgs?: boolean;
  /** RUNSPEC_HASH_KEY: re-check hashed arguments. */
  hashKey?: string;
}

export interface TraceScorer {
  score(trace: AssembledTrace): TraceOutcome;
}

/** @example const scorer = createTraceScorer({ cases, rules, toolset }); const out = scorer.score(trace); */
export function createTraceScorer(options: TraceScorerOptions): TraceScorer {
  const cases = options.cases ?? [];
  const rules = options.rules ?? [];
  const isDiscovery = options.toolset
    ? (
        (layout) => (name: string) =>
          layout.isDiscovery(name)
      )(layoutFor(options.toolset, options.toolMode ?? 'dedup'))
    : undefined;
  return {
    score(trace) {
      const n = normaliseTraceForScoring(trace, isDiscovery ? { isDiscovery } : {});
      if (!n.ok) {
        const out: TraceOutcome = { kind: 'uninterpretable', traceId: n.traceId, reason: n.reason, revision: trace.revision ?? 0, final: trace.final ?? true };
        if (n.rootSpanId) out.rootSpanId = n.rootSpanId;
        if (trace.reopened) out.supersedes = true;
        return out;
      }
      const { run, info } = n;
      run.trace = { traceId: info.traceId, rootSpanId: info.rootSpanId };
      const recorded = markAbsentData(run, trace, info);
      // Pushed, not `.map`ped: optimised code's inlined `.map` makes holey arrays where the interpreter's are packed,
      // and every reader of them deoptimised once ("wrong map"); Array.from avoids that through a generic builtin that
      // costs more than the deopt (callgrind at 50 MB). The same for the trace path's other lists.
      const calls: ObservedCallLine[] = [];
      for (const r of run.toolCalls) {
        const c: ObservedCallLine = { name: r.call.name, arguments: r.call.arguments, executed: r.executed };
        if (r.call.id) c.id = r.call.id;
        if (r.isError) c.isError = true;
        if (r.call.reconstructed) c.reconstructed = true;
        calls.push(c);
      }
      let rebuilt = 0;
      for (const c of calls) if (c.reconstructed) rebuilt++;
      // The verdict says when it judged calls split back out of one garbled call, and what a cut attribute affects.
      const note = (rebuilt ? ` (${rebuilt} tool calls reconstructed from one merged call: the producer concatenated parallel calls)` : '') + cutNote(trace);
      // Lines are built key by key in the order JSON output shows them (base fields, then case or rule,
      // then checks and suite): spreading a base line and overriding its fields cost more than the rule.
      const base = (verdict: Verdict | null, reason: string): TraceVerdictLine => {
        // `family` (when known) and `calls` are assigned after the literal, in this key order: a conditional
        // spread between them made and copied a throwaway object per line, and grew the line's property store.
        const line = {
          traceId: info.traceId,
          rootSpanId: info.rootSpanId,
          sample: run.sample,
          verdict,
          category: verdict ? verdict.category : null,
          pass: verdict ? passOf(verdict) : null,
          reason,
          revision: trace.revision ?? 0,
          final: trace.final ?? true,
          mode: run.mode,
          producers: info.producers,
        } satisfies Omit<TraceVerdictLine, 'calls'> as TraceVerdictLine;
        if (info.family) line.family = info.family;
        line.calls = calls;
        if (trace.evicted) line.evicted = true;
        if (trace.reopened) line.supersedes = true;
        if (trace.complete === false) line.incomplete = true;
        return line;
      };
      const lines: TraceVerdictLine[] = [];
      const verdicts: Array<{ verdict: Verdict; caseId?: string; rule?: string }> = [];
      for (const c of casesForTrace(info, cases)) {
        const opts: { toolset?: Toolset; toolMode?: ToolMode; validateArgs?: boolean } = {};
        const toolset = options.toolsetFor ? options.toolsetFor(c) : options.toolset;
        if (toolset) opts.toolset = toolset;
        const mode = run.toolMode ?? options.toolMode;
        if (mode) opts.toolMode = mode;
        if (options.validateArgs) opts.validateArgs = true;
        const scoreOpts: ScoreOptions = { ...opts };
        if (options.hashKey) scoreOpts.hashKey = options.hashKey;
        // The recorded argument check belongs to the case the trace was run as; the autonomy level to the call.
        if (recorded.args && info.caseId === c.id) scoreOpts.recordedArgs = recorded.args;
        if (recorded.autonomy) scoreOpts.recordedAutonomy = recorded.autonomy;
        const verdict = scoreRun(c, { ...run, caseId: c.id }, scoreOpts);
        verdict.reason += note;
        const line = base(verdict, verdict.reason);
        line.case = c.id;
        if (verdict.checks) line.checks = verdict.checks;
        if (c.suite !== undefined) line.suite = c.suite;
        lines.push(line);
        verdicts.push({ verdict, caseId: c.id });
      }
      for (const rule of rules) {
        if (rule.match && !matchRuleHolds(rule.match, info)) continue;
        const ctx: { toolset?: Toolset; toolMode?: ToolMode } = {};
        if (options.toolset) ctx.toolset = options.toolset;
        const mode = run.toolMode ?? options.toolMode;
        if (mode) ctx.toolMode = mode;
        const verdict = applyRule(rule, run, ctx);
        verdict.reason += note;
        const line = base(verdict, verdict.reason);
        line.rule = rule.name;
        if (verdict.checks) line.checks = verdict.checks;
        lines.push(line);
        verdicts.push({ verdict, rule: rule.name });
      }
      if (trace.complete === false) {
        // Judged on what arrived: a definite failure stands, anything else cannot be called a pass.
        for (let i = 0; i < verdicts.length; i++) {
          const v = verdicts[i]!.verdict;
          if (v.category !== 'pass' && v.category !== 'unscorable') continue;
          v.reason = incompleteReason(v) + note;
          v.category = 'incomplete';
          v.pass = false;
          const line = lines[i]!;
          line.category = 'incomplete';
          line.pass = null;
          line.reason = v.reason;
        }
      }
      if (lines.length === 0) {
        lines.push(
          base(null, cases.length || rules.length ? 'no case or rule matched this trace' : `extracted ${calls.length} tool calls (no cases or rules given)`),
        );
      }
      const outcome: TraceOutcome = { kind: 'scored', traceId: info.traceId, info, lines, verdicts, revision: trace.revision ?? 0, final: trace.final ?? true };
      if (trace.reopened) outcome.supersedes = true;
      return outcome;
    },
  };
}

// Which checks read an attribute, by the kind of content it carries (the readers in producers/).
const PROMPT_KEYS = [
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_PROMPT,
  OI.INPUT_VALUE,
  OI.LLM_INPUT_MESSAGES,
  K.VERCEL_PROMPT,
  K.VERCEL_PROMPT_MESSAGES,
  K.TRACELOOP_ENTITY_INPUT,
];
const CALL_KEYS = [
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  OI.OUTPUT_VALUE,
  OI.LLM_OUTPUT_MESSAGES,
  OI.TOOL_PARAMETERS,
  K.VERCEL_RESPONSE_TOOL_CALLS,
  K.VERCEL_RESULT_TOOL_CALLS,
  K.VERCEL_TOOL_CALL_ARGS,
  K.VERCEL_TOOL_CALL_INPUT,
];
const startsWithAny = (key: string, keys: readonly string[]): boolean => keys.some((k) => key === k || key.startsWith(`${k}.`));

function affectedChecks(key: string): string {
  if (startsWithAny(key, CALL_KEYS)) return 'the tool calls and their arguments (tool, args, calls, forbid_tools and sequence checks)';
  if (startsWithAny(key, PROMPT_KEYS)) return 'the prompt and request history (match.prompt, and calls only visible in the history)';
  return 'any check that reads it';
}

/** `; attribute X of span S was cut at the limit, affecting …` for each cut attribute of the trace. */
function cutNote(trace: AssembledTrace): string {
  let note = '';
  for (const span of trace.spans) {
    for (const c of span.cutAttributes ?? []) {
      note += `; input problem: attribute ${c.key} of span ${span.spanId} was cut at ${MAX_ATTRIBUTE_CHARS} characters (it had ${c.chars}), affecting ${affectedChecks(c.key)}`;
    }
  }
  return note;
}

/**
 * The reason of a verdict on a trace that never became whole. It says which checks found nothing wrong in
 * the spans that did arrive and which could not be checked, never that the rule or case "holds": the
 * spans that never arrived were not checked at all.
 */
function incompleteReason(v: Verdict): string {
  const head = 'incomplete trace (a root did not end or a parent span never arrived)';
  const checks = v.checks ?? [];
  if (checks.length === 0) return `${head}; the spans that never arrived could not be checked`;
  const clean = checks.filter((k) => k.judged && k.pass !== false).map((k) => k.check);
  const unchecked = checks.filter((k) => !k.judged).map((k) => (k.missing ? `${k.check} (${k.missing})` : k.check));
  const parts = [head];
  if (clean.length) parts.push(`no fault found on what arrived by ${clean.join(', ')}`);
  if (unchecked.length) parts.push(`not checkable: ${unchecked.join('; ')}`);
  parts.push('the spans that never arrived could not be checked');
  return parts.join('; ');
}

/** null for verdicts that are not evaluations: unscorable, incomplete, and infrastructure errors. */
function passOf(v: Verdict): boolean | null {
  return isUnjudgedCategory(v.category) || v.category === 'error' ? null : v.pass;
}

// Content capture is a per-process switch, so it is judged per trace: a trace that carries no message,
// argument or input/output content anywhere was recorded without it, and its calls' empty arguments
// mean "not captured", not "called without arguments".
function carriesContent(attrs: Record<string, unknown>): boolean {
  // Our own root spans always carry the decision and verdict as output.value (content-free); it says
  // nothing about content capture.
  const ours = attrs[ATTR_RUNSPEC_EVAL_CASE_ID] !== undefined;
  for (const k in attrs) {
    if (attrs[k] === K.OPENINFERENCE_REDACTED_VALUE) continue;
    if (ours && k === OI.OUTPUT_VALUE) continue;
    if (isContentAttribute(k)) return true;
  }
  return false;
}

/** Whether the trace was recorded with content capture (any span, span event or log record carries content). */
export function traceCarriesContent(trace: AssembledTrace): boolean {
  for (const span of trace.spans) {
    if (carriesContent(span.attributes)) return true;
    for (const e of span.events) if (carriesContent(e.attributes)) return true;
  }
  return trace.logs.some((l) => bodyCarriesContent(l.body, 0));
}

/**
 * Whether a GenAI event body carries content: without capture the events still go out, with
 * `finish_reason`, tool call ids and names, but no `content` and no `arguments` (gen-ai-events.md).
 */
function bodyCarriesContent(body: unknown, depth: number): boolean {
  if (typeof body === 'string') return body !== '' && depth === 0;
  if (depth > 6 || body === null || typeof body !== 'object') return false;
  if (Array.isArray(body)) return body.some((x) => bodyCarriesContent(x, depth + 1));
  for (const [k, v] of Object.entries(body)) {
    if ((k === 'content' || k === 'arguments') && v !== undefined && v !== null && v !== '') return true;
    if (typeof v === 'object' && bodyCarriesContent(v, depth + 1)) return true;
  }
  return false;
}

/**
 * Mark what the trace does not carry: calls without arguments in a content-free trace get
 * `argumentsAbsent` (plus their argument hashes under hashed capture), and in our own traces the terminal
 * call gets the resolution the live run recorded on the root span (tool, subcommand, host), so those stay
 * checkable against the case as it is now. Returns the recorded argument check, when the trace has one.
 */
interface Recorded {
  args?: { expectationsHash: string; pass: boolean };
  autonomy?: Autonomy;
}

function markAbsentData(run: Run, trace: AssembledTrace, info: TraceInfo): Recorded {
  if (traceCarriesContent(trace)) return {};
  const hashesByCallId = new Map<string, { key?: string; args: Record<string, string> }>();
  for (const span of trace.spans) {
    const raw = span.attributes[ATTR_RUNSPEC_EVAL_ARGUMENT_HASHES];
    const id = span.attributes[ATTR_GEN_AI_TOOL_CALL_ID];
    if (typeof raw !== 'string' || typeof id !== 'string') continue;
    try {
      const parsed: unknown = JSON.parse(raw);
      const args: unknown = isObject(parsed) ? parsed.args : undefined;
      if (isObject(parsed) && isObject(args)) {
        const entry: { key?: string; args: Record<string, string> } = {
          args: Object.fromEntries(Object.entries(args).filter((e): e is [string, string] => typeof e[1] === 'string')),
        };
        if (typeof parsed.key === 'string') entry.key = parsed.key;
        hashesByCallId.set(id, entry);
      }
    } catch {
      // A garbled hash attribute leaves the call's arguments not checkable.
    }
  }
  const records = run.terminal && !run.toolCalls.includes(run.terminal) ? [...run.toolCalls, run.terminal] : run.toolCalls;
  for (const r of records) {
    // A hidden OpenInference input parses as { _raw: "__REDACTED__" }: nothing was captured.
    if (r.call.arguments._raw === K.OPENINFERENCE_REDACTED_VALUE && Object.keys(r.call.arguments).length === 1) r.call.arguments = {};
    if (Object.keys(r.call.arguments).length > 0) continue;
    r.call.argumentsAbsent = true;
    const hashes = r.call.id ? hashesByCallId.get(r.call.id) : undefined;
    if (hashes) {
      r.call.argumentHashes = hashes.args;
      if (hashes.key !== undefined) r.call.argumentHashKey = hashes.key;
    }
  }
  const a = info.rootAttributes;
  if (!info.producers.includes('runspec')) return {};
  const recorded: Recorded = {};
  const level = a[ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY];
  if (isAutonomy(level)) recorded.autonomy = level;
  const tool = a[ATTR_RUNSPEC_EVAL_OBSERVED_TOOL];
  if (run.terminal && typeof tool === 'string' && tool !== '' && run.terminal.call.argumentsAbsent) {
    const resolved: ResolvedCall = {
      runnable: tool,
      known: true,
      discovery: false,
      args: {},
      layout: run.toolMode ?? 'dedup',
      calledName: run.terminal.call.name,
    };
    if (typeof a[ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND] === 'string') resolved.command = a[ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND];
    if (typeof a[ATTR_RUNSPEC_EVAL_OBSERVED_HOST] === 'string') resolved.host = a[ATTR_RUNSPEC_EVAL_OBSERVED_HOST];
    run.terminal.resolved = resolved;
  }
  const hash = a[ATTR_RUNSPEC_EVAL_EXPECTED_ARGS_HASH];
  const pass = a[ATTR_RUNSPEC_EVAL_ARGS_PASS];
  if (typeof hash === 'string' && typeof pass === 'boolean') recorded.args = { expectationsHash: hash, pass };
  return recorded;
}

/** Counts for the summary table. */
export interface ScoreSummary {
  traces: number;
  /** Lines with a verdict. */
  verdicts: number;
  passed: number;
  failed: number;
  /** Verdicts that could not judge a needed check (`unscorable`) or a trace that never became whole (`incomplete`). */
  unscorable: number;
  /** Traces of runs that failed for infrastructure reasons (category `error`): not evaluations, never failures. */
  errored: number;
  /** Traces no case or rule applied to. */
  unmatched: number;
  byCategory: Record<VerdictCategory, number>;
  uninterpretable: number;
  uninterpretableReasons: Record<string, number>;
  /** First few uninterpretable traces, for the report. */
  uninterpretableExamples: Array<{ traceId: string; reason: string }>;
  inputProblems: number;
  inputProblemExamples: InputProblem[];
  evictedTraces: number;
  droppedSpans: number;
  lateRecords: number;
  /** Traces judged again after late spans (their earlier verdicts no longer count). */
  reopenedTraces: number;
  /** Retained traces made final before their re-open window closed (the retained-summary cap). */
  retainedEvictions: number;
  /** Inputs from which nothing could be read (not OTLP at all); `score` exits 2 when any. */
  badFiles: string[];
}

export interface SummaryCollector {
  addOutcome(o: TraceOutcome): void;
  addProblem(p: InputProblem): void;
  addBadFile(file: string): void;
  setAssemblerStats(s: AssemblerStats): void;
  summary(): ScoreSummary;
}

const MAX_EXAMPLES = 20;
const MAX_REASONS = 100;
const OTHER_REASONS = 'other reasons (more than 100 distinct)';
/** Outcomes remembered for superseding (the assembler forgets judged traces sooner). */
const MAX_REMEMBERED = 20_000;

export interface SummaryCollectorOptions {
  /**
   * Whether an outcome can supersede an earlier one (provisional judgements, as `serve` hands out): each
   * trace's contribution is then remembered so it can be taken back. Files are judged once, final: nothing
   * is remembered. @default true
   */
  supersedes?: boolean;
}

export function createSummaryCollector(options: SummaryCollectorOptions = {}): SummaryCollector {
  const remember = options.supersedes ?? true;
  const byCategory = Object.fromEntries(VERDICT_CATEGORIES.map((c) => [c, 0])) as Record<VerdictCategory, number>;
  const s: ScoreSummary = {
    traces: 0,
    verdicts: 0,
    passed: 0,
    failed: 0,
    unscorable: 0,
    errored: 0,
    unmatched: 0,
    byCategory,
    uninterpretable: 0,
    uninterpretableReasons: {},
    uninterpretableExamples: [],
    inputProblems: 0,
    inputProblemExamples: [],
    evictedTraces: 0,
    droppedSpans: 0,
    lateRecords: 0,
    reopenedTraces: 0,
    retainedEvictions: 0,
    badFiles: [],
  };
  // What each recent trace contributed, so a superseding outcome can take the earlier one back; the
  // MAX_REMEMBERED most recently judged traces are kept. `stamp` orders the judgements: `order` lists them
  // oldest first, and one whose trace was judged again since is skipped when forgetting, so the oldest is
  // found without asking the map for its first key (an iterator that steps over every deleted slot before it,
  // quadratic at scale: 2.3 s of 15 s CPU on 500 MB).
  type Contribution = ({ kind: 'scored'; lines: Array<Pick<TraceVerdictLine, 'category' | 'pass'>> } | { kind: 'uninterpretable'; reason: string }) & {
    stamp?: number;
  };
  const contributed = new Map<string, Contribution>();
  let order: string[] = [];
  let orderStamps: number[] = [];
  let orderHead = 0;
  let stamp = 0;
  const compact = (o: TraceOutcome): Contribution =>
    o.kind === 'scored'
      ? { kind: 'scored', lines: o.lines.map((l) => ({ category: l.category, pass: l.pass })) }
      : { kind: 'uninterpretable', reason: o.reason };
  // An outcome counted without keeping its contribution (nothing can take it back).
  const applyOutcome = (o: TraceOutcome): void => {
    if (o.kind === 'uninterpretable') apply(o, 1);
    else apply({ kind: 'scored', lines: o.lines }, 1);
  };
  const apply = (o: Contribution, sign: 1 | -1): void => {
    s.traces += sign;
    if (o.kind === 'uninterpretable') {
      s.uninterpretable += sign;
      // Reasons can name span ids: past MAX_REASONS distinct ones, the rest share one bucket (bounded memory).
      const known = Object.hasOwn(s.uninterpretableReasons, o.reason) || Object.keys(s.uninterpretableReasons).length < MAX_REASONS;
      const key = known ? o.reason : OTHER_REASONS;
      s.uninterpretableReasons[key] = (s.uninterpretableReasons[key] ?? 0) + sign;
      if (s.uninterpretableReasons[key] === 0) delete s.uninterpretableReasons[key];
      return;
    }
    for (const l of o.lines) {
      if (l.category === null) {
        s.unmatched += sign;
        continue;
      }
      s.verdicts += sign;
      s.byCategory[l.category] += sign;
      if (l.category === 'error') s.errored += sign;
      else if (l.pass === null) s.unscorable += sign;
      else if (l.pass) s.passed += sign;
      else s.failed += sign;
    }
  };
  return {
    addOutcome(o) {
      // Only a trace's last judgement counts; earlier revisions are shown, never summed.
      if (!o.final) return;
      if (!remember) {
        // Nothing was remembered, so nothing is taken back.
        applyOutcome(o);
        if (o.kind === 'uninterpretable' && s.uninterpretableExamples.length < MAX_EXAMPLES) {
          s.uninterpretableExamples.push({ traceId: o.traceId, reason: o.reason });
        }
        return;
      }
      const before = o.supersedes ? contributed.get(o.traceId) : undefined;
      if (before) apply(before, -1);
      const mine = compact(o);
      apply(mine, 1);
      mine.stamp = ++stamp;
      contributed.set(o.traceId, mine);
      order.push(o.traceId);
      orderStamps.push(mine.stamp);
      if (contributed.size > MAX_REMEMBERED) {
        for (;;) {
          const id = order[orderHead]!;
          const at = orderStamps[orderHead++]!;
          if (contributed.get(id)?.stamp === at) {
            contributed.delete(id);
            break;
          }
        }
      }
      // Forgotten entries (before the head) and stale ones (traces judged again since) are dropped once they
      // outnumber the live ones: the lists stay within about twice the map, also while it is under its cap.
      if (order.length > 2 * contributed.size + 4096) {
        const ids: string[] = [];
        const stamps: number[] = [];
        for (let i = orderHead; i < order.length; i++) {
          if (contributed.get(order[i]!)?.stamp !== orderStamps[i]) continue;
          ids.push(order[i]!);
          stamps.push(orderStamps[i]!);
        }
        order = ids;
        orderStamps = stamps;
        orderHead = 0;
      }
      if (o.kind === 'uninterpretable' && !before && s.uninterpretableExamples.length < MAX_EXAMPLES) {
        s.uninterpretableExamples.push({ traceId: o.traceId, reason: o.reason });
      }
    },
    addProblem(p) {
      s.inputProblems++;
      if (s.inputProblemExamples.length < MAX_EXAMPLES) s.inputProblemExamples.push(p);
    },
    addBadFile(file) {
      s.badFiles.push(file);
    },
    setAssemblerStats(a) {
      s.evictedTraces = a.evictedTraces;
      s.droppedSpans = a.droppedSpans;
      s.lateRecords = a.lateRecords;
      s.reopenedTraces = a.reopenedTraces;
      s.retainedEvictions = a.retainedEvictions;
    },
    summary: () => structuredClone(s),
  };
}
