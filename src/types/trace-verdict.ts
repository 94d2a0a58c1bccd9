// One judgement of a scored trace, as the trace scorer (traces/) hands it on. It is written out as a run
// entry of the results document (report/verdict-line.ts): the JSON line of `score` and `serve`.
import type { CheckResult, Verdict, VerdictCategory } from './verdict.js';

/** One observed tool call of a scored trace. */
export interface ObservedCallLine {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
  executed: boolean;
  isError?: boolean;
  /** Split back out of a call the producer garbled (merged parallel calls). */
  reconstructed?: boolean;
}

/** One judgement of a trace: a case's or a rule's verdict, or (`verdict` null) a trace none applied to. */
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
  /** The verdict behind the line; null when no case or rule applied (the line then only shows what was extracted). */
  verdict: Verdict | null;
  /** The verdict's category (null without one). */
  category: VerdictCategory | null;
  /** null also for `unscorable`, `incomplete` and `error`: neither passed nor failed. */
  pass: boolean | null;
  reason: string;
  /** Every check of the verdict, judged or not (what was expected and observed, or what was missing). */
  checks?: CheckResult[];
  /** Link to the trace (`[telemetry] trace_url`), when a template is configured. */
  traceUrl?: string;
  /** This judgement replaces an earlier one of the same trace (late spans re-opened it); only the last counts. */
  supersedes?: boolean;
  /** 0 for a trace's first judgement, one more each time late spans re-opened it. */
  revision: number;
  /** The trace's re-open window has closed: this is its last judgement (summaries, results and verdict spans count only these). */
  final: boolean;
  /** The trace never became whole (a root that did not end, parents that never arrived). */
  incomplete?: boolean;
  mode: 'decision' | 'trajectory';
  producers: string[];
  /** The producer family that wrote the trace, recognised from its structure (content on or off). */
  family?: string;
  calls: ObservedCallLine[];
  /** The trace was handed out early by a memory bound and may be incomplete. */
  evicted?: boolean;
}
