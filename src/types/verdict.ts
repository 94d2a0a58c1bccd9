import type { Autonomy, Dialect, MatchMode } from './case.js';
import type { RunError, RunStatus, ToolCall, ToolLogEntry } from './run.js';
import type { ToolMode } from './toolset.js';

/** Every verdict category; renderers map over this with Record<VerdictCategory, ...>. */
export const VERDICT_CATEGORIES = [
  'pass',
  'wrong_tool',
  'wrong_command',
  'wrong_host',
  'wrong_args',
  'wrong_autonomy',
  'no_run',
  'unexpected_run',
  'forbidden_tool',
  'missing_required',
  'unknown_arg',
  'bad_choice',
  'out_of_range',
  'bad_command',
  'wrong_sequence',
  'missing_tool',
  'too_many_calls',
  'too_few_calls',
  'redundant_call',
  'json_dump',
  'tool_error',
  'error',
  'unscorable',
  'incomplete',
] as const;
export type VerdictCategory = (typeof VERDICT_CATEGORIES)[number];

export interface Observed {
  tool?: string;
  command?: string;
  host?: string;
  autonomy?: Autonomy;
  args?: Record<string, unknown>;
}

export interface Expected {
  tool?: string[];
  command?: string;
  host?: string;
  autonomy?: Autonomy;
  noRun?: boolean;
}

/** replio metrics for one case run. */
export interface ReplioMetrics {
  trace: Array<{ name: string; arguments: Record<string, unknown> }>;
  names: string[];
  /** 1 when names equal `expected` exactly, 0 otherwise; null without `expected`. */
  accuracy: number | null;
  /** Verifier result; null without a verifier. */
  pass: boolean | null;
  calls: number;
  redundant: number;
  errors: number;
  tokens: number;
  status: RunStatus;
}

/** turnstone score_run() result. */
export interface MatchScore {
  matchMode: MatchMode;
  pass: boolean;
  score: number;
  matched: number[];
  unmatched: number[];
  extraTools: string[];
  detail: string;
  /** The match failed only on calls whose arguments the trace did not carry: the failure is not definite. */
  notCheckable?: string;
}

/**
 * One check of a verdict: judged against observed data (with its result), or not checkable because the
 * data it needs is absent from the run (content not captured, an attribute missing).
 */
export interface CheckResult {
  /** `tool`, `command`, `host`, `autonomy`, `args.<name>`, `forbid_tools`, `validate_args`, `sequence`, ... */
  check: string;
  judged: boolean;
  /** Judged checks: whether it held. */
  pass?: boolean;
  expected?: unknown;
  observed?: unknown;
  /** Not-judged checks: the data that was missing. */
  missing?: string;
  /** Judged from a hash of the value or a recorded result rather than the value itself. */
  via?: 'hash' | 'recorded';
}

/** Where a verdict's run lives as a trace (lowercase hex ids). */
export interface TraceRef {
  traceId: string;
  rootSpanId: string;
  /** The `[telemetry] trace_url` template filled in, when one is configured. */
  url?: string;
}

export interface Verdict {
  caseId: string;
  sample: number;
  dialect: Dialect | 'rule';
  pass: boolean;
  category: VerdictCategory;
  reason: string;
  expected: Expected;
  observed: Observed;
  toolMode?: ToolMode;
  replio?: ReplioMetrics;
  match?: MatchScore;
  jsonDump: boolean;
  status: RunStatus;
  /** The observed tool calls, in order. */
  calls: ToolCall[];
  /** Every check, judged or not (absent on verdicts written by older versions). */
  checks?: CheckResult[];
  /** The trace of this sample, when there is one. */
  trace?: TraceRef;
}

/** One step of a sample's timeline: a model call or a tool call, with its offset from the sample start. */
export type SampleTraceStep =
  | {
      kind: 'llm';
      turn: number;
      /** Index of the model call in the run. */
      index: number;
      offsetMs: number;
      durationMs: number;
      model?: string;
      inputTokens?: number;
      outputTokens?: number;
      finishReason?: string;
      /** Text the model wrote (cut to {@link TRACE_TEXT_CHARS}). */
      text?: string;
      /** Names of the tools this call asked for. */
      toolCalls: string[];
      error?: RunError;
    }
  | {
      kind: 'tool';
      turn: number;
      name: string;
      callId: string;
      offsetMs: number;
      durationMs: number;
      /** Decision-mode terminal calls are captured, never executed. */
      executed: boolean;
      arguments?: Record<string, unknown>;
      /** What the tool returned (cut to {@link TRACE_TEXT_CHARS}). */
      result?: string;
      isError?: boolean;
      /** Beyond the per-turn parallel cap: not run (the model was told so). */
      dropped?: boolean;
      /** The result came from `tool_mocks`. */
      mocked?: boolean;
    };

/**
 * What happened in one sample (turns, model and tool calls, timings, results), kept with the verdict so a
 * report can draw its waterfall with telemetry off or sent elsewhere.
 */
export interface SampleTrace {
  /** Epoch milliseconds of the sample start. */
  startTimeMs: number;
  durationMs: number;
  status: RunStatus;
  steps: SampleTraceStep[];
  /** Steps left out past {@link TRACE_MAX_STEPS}. */
  droppedSteps?: number;
  error?: RunError;
}

/** Longest model text or tool result a sample trace keeps. */
export const TRACE_TEXT_CHARS = 2000;
/** Most steps a sample trace keeps. */
export const TRACE_MAX_STEPS = 200;

/** One sample of a case: a scored run, or an infrastructure error (never a wrong answer). */
export type SampleOutcome =
  | { status: 'scored'; sample: number; verdict: Verdict; elapsedMs: number; tokens: number; toolLog?: ToolLogEntry[]; trace?: SampleTrace }
  | {
      status: 'errored';
      sample: number;
      error: RunError;
      elapsedMs: number;
      /**
       * What happened before the failure (a provider that failed mid-run): the verdict scored over the
       * partial run, its replio metrics with status `error`. Never counted as a pass or a fail.
       */
      partial?: Verdict;
      /** Tokens spent before the failure. */
      tokens?: number;
      toolLog?: ToolLogEntry[];
      trace?: SampleTrace;
      /** Where the errored sample's exported trace lives (set once telemetry has sent it). */
      traceRef?: TraceRef;
    };

/** Unbiased estimates over the n scored samples (errored and unscorable samples are left out of n). */
export interface PassKValue {
  k: number;
  /** 1 − C(n−c, k)/C(n, k); null when k > n. */
  passAt: number | null;
  /** C(c, k)/C(n, k); null when k > n. */
  passHat: number | null;
}

export interface GateResult {
  /** Canonical text, e.g. "pass@3 >= 0.9". */
  text: string;
  /** The metric's value; null when it cannot be computed (k > n, or nothing scored). */
  value: number | null;
  met: boolean;
}

export interface CaseResult {
  caseId: string;
  suite?: string;
  /** The case's dialect; `rule` for a trace rule's results (`score --results`). */
  dialect: Dialect | 'rule';
  tags: string[];
  samples: SampleOutcome[];
  /** Passed scored samples / scored samples (errored samples excluded; 0 when none scored). */
  passRate: number;
  /** 95% Wilson interval. */
  passRateLow: number;
  passRateHigh: number;
  /** Unbiased pass@k and pass^k for k = number of scored samples. */
  passAtK: number;
  passHatK: number;
  /** pass@k and pass^k for each requested k (`--pass-k`, plus the gate's k); null where k > n. */
  passK: PassKValue[];
  /** The gate that decided `meetsThreshold`, when the case (or `--gate`) set one. */
  gate?: GateResult;
  avgScore?: number;
  threshold: number;
  meetsThreshold: boolean;
  /** Any sample errored (infrastructure). */
  errored: boolean;
  /** Samples whose verdict is `unscorable` or `incomplete` (left out of the pass rate); absent when none. */
  unscorable?: number;
}
