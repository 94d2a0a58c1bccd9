// Trace → verdict lines. Stateless per trace: the same trace gives the same lines wherever it is scored,
// which is what makes `--shard i/n` and load-balanced `serve` replicas add up to the unsharded result.
import { ATTR_GEN_AI_OUTPUT_MESSAGES, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS } from '@opentelemetry/semantic-conventions/incubating';
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { scoreRun } from '../scoring/verdict.js';
import { ATTR_RUNSPEC_EVAL_CASE_ID, ATTR_RUNSPEC_EVAL_CATEGORY, ATTR_RUNSPEC_EVAL_PASS, ATTR_RUNSPEC_EVAL_REASON } from '../semconv/attributes.js';
import type { Run } from '../types/run.js';
import { layoutFor } from '../toolset/layout.js';
import type { Case } from '../types/case.js';
import type { ToolMode, Toolset } from '../types/toolset.js';
import type { Verdict, VerdictCategory } from '../types/verdict.js';
import { VERDICT_CATEGORIES } from '../types/verdict.js';
import type { AssembledTrace, AssemblerStats } from './assembler.js';
import { casesForTrace, matchRuleHolds } from './match.js';
import { normaliseTrace } from './normalise.js';
import type { TraceInfo } from './normalise.js';
import { applyRule } from './rules.js';
import type { TraceRule } from './rules.js';
import type { InputProblem } from './spans.js';

/** One observed tool call as written in verdict lines. */
export interface ObservedCallLine {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
  executed: boolean;
  isError?: boolean;
}

/** One JSON line of `score` / `serve` output. */
export interface TraceVerdictLine {
  traceId: string;
  rootSpanId: string;
  /** The case that graded the trace (absent for rules and unmatched traces). */
  case?: string;
  suite?: string;
  /** The rule that graded the trace. */
  rule?: string;
  /** Sample index (`runspec.eval.sample`, 0 when the trace does not say). */
  sample: number;
  /** null when no case or rule applied (the line then only shows what was extracted). */
  category: VerdictCategory | null;
  pass: boolean | null;
  reason: string;
  mode: 'decision' | 'trajectory';
  producers: string[];
  calls: ObservedCallLine[];
  /** The trace was handed out early by a memory bound and may be incomplete. */
  evicted?: boolean;
}

/** A scored trace: its lines and the verdicts behind them (for annotations and verdict spans). */
export type TraceOutcome =
  | { kind: 'scored'; traceId: string; info: TraceInfo; lines: TraceVerdictLine[]; verdicts: Array<{ verdict: Verdict; caseId?: string; rule?: string }> }
  | { kind: 'uninterpretable'; traceId: string; rootSpanId?: string; reason: string };

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
}

export interface TraceScorer {
  score(trace: AssembledTrace): TraceOutcome;
}

/** @example const scorer = createTraceScorer({ cases, rules, toolset }); const out = scorer.score(trace); */
export function createTraceScorer(options: TraceScorerOptions): TraceScorer {
  const cases = options.cases ?? [];
  const rules = options.rules ?? [];
  const isDiscovery = options.toolset
    ? ((layout) => (name: string) => layout.isDiscovery(name))(layoutFor(options.toolset, options.toolMode ?? 'dedup'))
    : undefined;
  return {
    score(trace) {
      const n = normaliseTrace(trace, isDiscovery ? { isDiscovery } : {});
      if (!n.ok) {
        const out: TraceOutcome = { kind: 'uninterpretable', traceId: n.traceId, reason: n.reason };
        if (n.rootSpanId) out.rootSpanId = n.rootSpanId;
        return out;
      }
      const { run, info } = n;
      const calls: ObservedCallLine[] = run.toolCalls.map((r) => {
        const c: ObservedCallLine = { name: r.call.name, arguments: r.call.arguments, executed: r.executed };
        if (r.call.id) c.id = r.call.id;
        if (r.isError) c.isError = true;
        return c;
      });
      const base = (): TraceVerdictLine => {
        const line: TraceVerdictLine = {
          traceId: info.traceId,
          rootSpanId: info.rootSpanId,
          sample: run.sample,
          category: null,
          pass: null,
          reason: '',
          mode: run.mode,
          producers: info.producers,
          calls,
        };
        if (trace.evicted) line.evicted = true;
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
        const verdict = recordedVerdict(c, run, info) ?? scoreRun(c, { ...run, caseId: c.id }, opts);
        const line = { ...base(), case: c.id, category: verdict.category, pass: verdict.pass, reason: verdict.reason };
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
        lines.push({ ...base(), rule: rule.name, category: verdict.category, pass: verdict.pass, reason: verdict.reason });
        verdicts.push({ verdict, rule: rule.name });
      }
      if (lines.length === 0) {
        lines.push({
          ...base(),
          reason: cases.length || rules.length ? 'no case or rule matched this trace' : `extracted ${calls.length} tool calls (no cases or rules given)`,
        });
      }
      return { kind: 'scored', traceId: info.traceId, info, lines, verdicts };
    },
  };
}

/**
 * Our own traces carry tool arguments only with content capture. Re-scoring such a trace would see every
 * call without arguments (and, in dedup / search layouts, without its host and subcommand), and would
 * report wrong_args / wrong_host where the live run passed. So when a trace of ours was recorded without
 * content and is graded by the very case it names, its recorded verdict stands, and the reason says why.
 */
function recordedVerdict(c: Case, run: Run, info: TraceInfo): Verdict | undefined {
  const a = info.rootAttributes;
  if (!info.producers.includes('runspec') || a[ATTR_RUNSPEC_EVAL_CASE_ID] !== c.id) return undefined;
  const category = a[ATTR_RUNSPEC_EVAL_CATEGORY];
  if (typeof category !== 'string' || !(VERDICT_CATEGORIES as readonly string[]).includes(category)) return undefined;
  if (run.toolCalls.length === 0 || argumentsCaptured(info)) return undefined;
  const recorded = typeof a[ATTR_RUNSPEC_EVAL_REASON] === 'string' ? `: ${String(a[ATTR_RUNSPEC_EVAL_REASON])}` : '';
  return {
    caseId: c.id,
    sample: run.sample,
    dialect: c.dialect,
    pass: a[ATTR_RUNSPEC_EVAL_PASS] === true,
    category: category as VerdictCategory,
    reason: `recorded verdict (trace recorded without capture_content, so its arguments cannot be re-checked)${recorded}`,
    expected: {},
    observed: {},
    jsonDump: false,
    status: run.status,
    calls: run.toolCalls.map((r) => r.call),
  };
}

function argumentsCaptured(info: TraceInfo): boolean {
  return info.spanAttributes.some(
    (s) => s[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] !== undefined || s[ATTR_GEN_AI_OUTPUT_MESSAGES] !== undefined || (s[OI.OPENINFERENCE_SPAN_KIND] === 'TOOL' && s[OI.INPUT_VALUE] !== undefined),
  );
}

/** Counts for the summary table. */
export interface ScoreSummary {
  traces: number;
  /** Lines with a verdict. */
  verdicts: number;
  passed: number;
  failed: number;
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

export function createSummaryCollector(): SummaryCollector {
  const byCategory = Object.fromEntries(VERDICT_CATEGORIES.map((c) => [c, 0])) as Record<VerdictCategory, number>;
  const s: ScoreSummary = {
    traces: 0,
    verdicts: 0,
    passed: 0,
    failed: 0,
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
    badFiles: [],
  };
  return {
    addOutcome(o) {
      s.traces++;
      if (o.kind === 'uninterpretable') {
        s.uninterpretable++;
        s.uninterpretableReasons[o.reason] = (s.uninterpretableReasons[o.reason] ?? 0) + 1;
        if (s.uninterpretableExamples.length < MAX_EXAMPLES) s.uninterpretableExamples.push({ traceId: o.traceId, reason: o.reason });
        return;
      }
      for (const l of o.lines) {
        if (l.category === null) {
          s.unmatched++;
          continue;
        }
        s.verdicts++;
        s.byCategory[l.category]++;
        if (l.pass) s.passed++;
        else s.failed++;
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
    },
    summary: () => structuredClone(s),
  };
}
