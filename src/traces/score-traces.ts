// Trace → verdict lines. Stateless per trace: the same trace gives the same lines wherever it is scored,
// which is what makes `--shard i/n` and load-balanced `serve` replicas add up to the unsharded result.
import { scoreRun } from '../scoring/index.js';
import { createLayout } from '../toolset/index.js';
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
    ? ((layout) => (name: string) => layout.isDiscovery(name))(createLayout(options.toolMode ?? 'dedup', options.toolset))
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
        const verdict = scoreRun(c, { ...run, caseId: c.id }, opts);
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
