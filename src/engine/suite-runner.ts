// Runs a selection of cases × samples through the engine with a bounded pool, scores every sample,
// aggregates a case once all its samples end, then renders telemetry for that case (so every trace
// carries the final verdict and pass rate) and reports the case through a callback.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Case, CaseGate } from '../types/case.js';
import type { CaseResult, SampleOutcome, Verdict } from '../types/verdict.js';
import type { Run, RunError } from '../types/run.js';
import type { ReachabilityWatch } from '../core/reachability.js';
import type { ToolMode, Toolset } from '../types/toolset.js';
import { runPool } from '../core/concurrency.js';
import { isRecord } from '../core/is-record.js';
import { runCase, type TurnEvent } from './run-case.js';
import { toolLog } from './tool-log.js';
import { createMcpToolHost, type ToolHost } from './mcp-tools.js';
import type { Provider } from '../providers/types.js';
import type { CommandSandbox } from './sandbox/command.js';
import { scoreRun } from '../scoring/verdict.js';
import { aggregateCase, type AggregateOptions } from '../scoring/samples.js';
import { sampleTraceOf } from '../scoring/sample-trace.js';

/** The per-sample agent loop the suite runner drives (the engine's `runCase` by default). */
export type RunCaseFn = (opts: {
  case: Case;
  sample: number;
  provider: Provider;
  toolset: Toolset;
  toolMode: ToolMode;
  maxTurns?: number;
  systemPrompt?: string;
  keepWorktrees?: boolean;
  signal?: AbortSignal;
  /** Runs MCP toolsets' tools (trajectory mode); shared by every sample of the run. */
  toolHost?: ToolHost;
  onTurn?: (event: TurnEvent) => void;
  sandbox?: CommandSandbox;
}) => Promise<Run>;

/** Scoring the suite runner needs (scoring/ by default). */
export interface SuiteScoring {
  scoreRun(c: Case, run: Run, opts: { toolset: Toolset; toolMode: ToolMode; validateArgs: boolean }): Verdict;
  aggregateCase(c: Case, outcomes: SampleOutcome[], opts: AggregateOptions): CaseResult;
}

function isTraceIds(v: unknown): v is { traceId: string; rootSpanId: string; url?: string } {
  return isRecord(v) && typeof v.traceId === 'string' && typeof v.rootSpanId === 'string' && (v.url === undefined || typeof v.url === 'string');
}

/** What the runner hands telemetry once a case is final: one call per sample. */
export interface CaseTelemetrySink {
  emitCase(input: {
    case: Case;
    run: Run;
    /** Absent for an errored sample (infrastructure): the trace then carries `error` instead. */
    verdict?: Verdict;
    error?: RunError;
    result: CaseResult;
    runId: string;
    agentName?: string;
    toolset?: Toolset;
  }): unknown; // the rendered trace's { traceId, rootSpanId } when there is one
}

export interface SampleProgress {
  caseId: string;
  sample: number;
  /** Samples finished so far in this suite run (skipped cases not counted). */
  done: number;
  /** Samples to run in this suite run. */
  total: number;
  outcome: SampleOutcome;
  /** The trajectory worktree kept for inspection (`keepWorktrees`; `onWorktreeKept` had it first, in order with the turns). */
  worktree?: string;
}

export interface RunSuiteOptions {
  /** The selected cases, in report order. */
  cases: Case[];
  /** The model provider, passed to the engine as is. */
  provider: Provider;
  /** The toolset of a case (resolve and load them before the run: a bad toolset is bad input). */
  toolsetFor(c: Case): Toolset;
  /** @default 'dedup' */
  toolMode?: ToolMode;
  /** CLI `--samples`: wins over the suite default, loses to the case's own count. */
  samples?: number;
  /** CLI `--threshold`. @default 1 */
  threshold?: number;
  /** CLI `--pass-k`: the k values of pass@k / pass^k each case reports. @default [] */
  passK?: readonly number[];
  /** CLI `--gate`: the gate of cases without their own. */
  gate?: CaseGate;
  validateArgs?: boolean;
  /** Case samples in flight at once. @default 4 */
  concurrency?: number;
  /** CLI `--max-turns`: a case's own `max_turns` wins. */
  maxTurns?: number;
  systemPrompt?: string;
  keepWorktrees?: boolean;
  /**
   * Runs MCP toolsets' tools in trajectory mode. Absent: the runner starts one for the run when a
   * case uses an `mcp:` toolset (needs `mcpServers`) and stops its servers when the run ends.
   */
  toolHost?: ToolHost;
  /** Per-turn progress of every sample (`-v`). */
  onTurn?: (event: TurnEvent) => void;
  /** Working directory and environment of MCP servers the runner starts. */
  mcpServers?: { projectDir: string; env: Readonly<Record<string, string | undefined>> };
  /** Where model-driven commands run (trajectory mode). @default the engine's bubblewrap sandbox */
  sandbox?: CommandSandbox;
  /** Aborting ends in-flight runs as `cancelled` and starts nothing new; finished cases are kept. */
  signal?: AbortSignal;
  /**
   * Stop the run after this many samples in a row errored (infrastructure: the provider looks down): start
   * nothing new, cancel what is in flight, keep finished cases (see `SuiteRunResult.stopped`). 0 = never.
   * @default 0
   */
  stopAfterErrors?: number;
  /**
   * The provider's reachability watch (core/reachability.ts): when it reports that every request in flight
   * failed to connect for its window, the run stops as with `stopAfterErrors`.
   */
  reachability?: ReachabilityWatch;
  runId: string;
  agentName?: string;
  telemetry?: CaseTelemetrySink;
  /** Ids of cases already finished (resume): not run, not reported. */
  skip?: ReadonlySet<string>;
  /** Called once per finished case, in finishing order; awaited before the next case is reported. */
  onCaseResult?(result: CaseResult, c: Case): void | Promise<void>;
  onSample?(progress: SampleProgress): void;
  /**
   * A sample's worktree was kept (`keepWorktrees`): called as the sample ends in its lane, before the lane
   * starts its next sample, so it comes after the sample's turns (`onTurn`) and before the next sample's.
   * `onSample` comes later (after scoring, which waits until the lane's next request is out).
   */
  onWorktreeKept?(kept: { caseId: string; sample: number; worktree: string }): void;
  onWarning?: (message: string) => void;
  /** Replace the engine's agent loop (a custom agent); the default is the engine's `runCase`. */
  runCase?: RunCaseFn;
  /** Replace scoring (tests); the default is scoring/. */
  scoring?: SuiteScoring;
  /**
   * Return every case result in `results` (the default). A caller that takes them through
   * `onCaseResult` passes false, so the run's memory does not grow with the number of cases.
   * @default true
   */
  keepResults?: boolean;
}

export interface SuiteRunResult {
  /** Finished cases in the order of `cases` (skipped ones excluded); empty with `keepResults: false`. */
  results: CaseResult[];
  /** Cases that did not finish because the run was aborted. */
  unfinished: string[];
  cancelled: boolean;
  /** Samples run. */
  samplesRun: number;
  /**
   * Why the run stopped early, when it did: `stopAfterErrors` samples in a row errored (how many, and the
   * last one's error), or every request in flight failed to connect for the reachability window.
   */
  stopped?: { cause: 'errors'; samples: number; error: { code: string; message: string } } | { cause: 'unreachable'; windowMs: number; reason: string };
}

/**
 * How many samples a case runs. turnstone precedence: the case's own count > CLI `--samples` > the
 * suite default > 3; runspec and replio cases run once unless the case or the CLI says otherwise.
 * @example sampleCount(turnstoneCase, undefined) // 3
 */
export function sampleCount(c: Case, cliSamples?: number): number {
  if (c.settings.samples !== undefined) return c.settings.samples;
  if (cliSamples !== undefined) return cliSamples;
  if (c.settings.suiteSamples !== undefined) return c.settings.suiteSamples;
  return c.dialect === 'turnstone' ? 3 : 1;
}

/** Why a run that ended in error failed (the engine always says; a custom agent loop might not). */
function runErrorOf(run: Run): RunError {
  return run.error ?? { code: 'INTERNAL', message: 'the run ended in error without a reason' };
}

/** The outcome of one sample: scored, or errored (infrastructure, never a wrong answer). */
export function sampleOutcome(run: Run, verdict: Verdict): SampleOutcome {
  const elapsedMs = Math.max(0, run.endTimeMs - run.startTimeMs);
  if (run.status === 'error') {
    const outcome: SampleOutcome = {
      status: 'errored',
      sample: run.sample,
      error: runErrorOf(run),
      elapsedMs,
      trace: sampleTraceOf(run),
    };
    // A provider that failed mid-run: keep the calls, tokens and sequence that happened before it.
    if (run.modelCalls.some((m) => !m.error) || run.toolCalls.length > 0) {
      outcome.partial = verdict;
      outcome.tokens = run.usage.totalTokens ?? 0;
      if (run.mode === 'trajectory') outcome.toolLog = toolLog(run);
    }
    return outcome;
  }
  // turnstone's tool_call_log, per trajectory sample ({ tool, args, result ≤ 500 chars, turn }).
  return {
    status: 'scored',
    sample: run.sample,
    verdict,
    elapsedMs,
    tokens: run.usage.totalTokens ?? 0,
    trace: sampleTraceOf(run),
    ...(run.mode === 'trajectory' ? { toolLog: toolLog(run) } : {}),
  };
}

/**
 * Run `cases` × samples through the engine up to `concurrency` at once and score them.
 * Never throws for provider trouble (those samples are `errored`); an unexpected exception of the engine,
 * of scoring, of `onSample` or of `onWorktreeKept` aborts the remaining work and is rethrown once in-flight
 * samples have ended and the cases already queued are reported.
 */
export async function runSuite(opts: RunSuiteOptions): Promise<SuiteRunResult> {
  const runOne: RunCaseFn = opts.runCase ?? runCase;
  const scoring: SuiteScoring = opts.scoring ?? { scoreRun, aggregateCase };
  const toolMode = opts.toolMode ?? 'dedup';
  const threshold = opts.threshold ?? 1;
  const warn = opts.onWarning ?? (() => {});
  // A case's slot is emptied once its state is made (or it is reported, without samples): past that the
  // runner holds a case only while it is in flight, so a caller that lets go of its cases frees them as
  // they finish. Their ids stay for the end of the run (`unfinished`, the order of `results`).
  const todo: Array<Case | undefined> = opts.cases.filter((c) => !opts.skip?.has(c.id));
  const ids = todo.map((c) => c!.id);

  /** A settled sample: the report of its case when it completed one (wrapped: a promise would be awaited with it). */
  interface Settled {
    report?: Promise<void>;
  }
  interface CaseState {
    c: Case;
    /** Position in `todo`. */
    index: number;
    toolset: Toolset;
    samples: number;
    /** Each ended sample with its outcome, built once (onSample and the case's aggregate share it). */
    runs: Array<{ run: Run; verdict: Verdict; outcome: SampleOutcome } | undefined>;
    ended: number;
    cancelled: boolean;
  }
  // A case's state is made when its first sample is taken and dropped once it is reported, so the run
  // holds state for the cases in flight only, not for every case.
  const stateOf = (c: Case, index: number): CaseState => {
    const n = sampleCount(c, opts.samples);
    return { c, index, toolset: opts.toolsetFor(c), samples: n, runs: new Array(n).fill(undefined), ended: 0, cancelled: false };
  };
  // Samples of one case are queued together, so cases finish (and reach the log) one after another.
  function* jobs(): Generator<{ s: CaseState; sample: number }> {
    for (let i = 0; i < todo.length; i++) {
      const c = todo[i];
      if (c === undefined) continue;
      todo[i] = undefined;
      const s = stateOf(c, i);
      for (let sample = 0; sample < s.samples; sample++) yield { s, sample };
    }
  }
  let total = 0;
  for (const c of todo) total += sampleCount(c!, opts.samples);
  const keep = opts.keepResults !== false;
  // Finished cases: their results when kept, else one flag per case.
  const finished = new Map<string, CaseResult>();
  const finishedFlags = new Uint8Array(todo.length);
  let done = 0;
  // Case reports go through one chain so the callback sees one case at a time. A lane does not wait
  // for it (that would leave a request slot empty while a case is logged or its traces rendered),
  // unless the chain falls this far behind: then lanes wait, so pending reports stay bounded.
  let reportChain: Promise<void> = Promise.resolve();
  let reportsPending = 0;
  const maxReportsPending = Math.max(16, 2 * (opts.concurrency ?? 4));
  let failure: unknown;
  let erroredInARow = 0;
  let stopped: SuiteRunResult['stopped'];
  const internal = new AbortController();
  const onOuterAbort = (): void => internal.abort();
  if (opts.signal?.aborted) internal.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const unwatch = opts.reachability?.watch(({ windowMs, reason }) => {
    if (stopped || internal.signal.aborted) return;
    stopped = { cause: 'unreachable', windowMs, reason };
    internal.abort();
  });

  // MCP servers live for the run: started on first use, stopped when the run ends.
  const ownHost =
    !opts.toolHost && opts.mcpServers && todo.some((c) => c!.mode === 'trajectory' && opts.toolsetFor(c!).source.startsWith('mcp:'))
      ? createMcpToolHost({ ...opts.mcpServers, onWarning: warn })
      : undefined;
  const toolHost = opts.toolHost ?? ownHost;

  const finishCase = async (s: CaseState): Promise<void> => {
    const scored = s.runs as Array<{ run: Run; verdict: Verdict; outcome: SampleOutcome }>;
    // Array.from, not `.map`: see scoreRun (the case result's samples are a copy of this array; a holey one
    // from optimised code deoptimised their readers).
    const outcomes = Array.from(scored, (r) => r.outcome);
    const aggregate: AggregateOptions = { threshold };
    if (opts.passK) aggregate.passK = opts.passK;
    if (opts.gate) aggregate.gate = opts.gate;
    const result = scoring.aggregateCase(s.c, outcomes, aggregate);
    finishedFlags[s.index] = 1;
    if (keep) finished.set(s.c.id, result);
    if (opts.telemetry) {
      for (const { run, verdict, outcome } of scored) {
        const judged = outcome.status === 'scored' ? { verdict } : { error: outcome.error };
        try {
          const rendered = await opts.telemetry.emitCase({
            case: s.c,
            run,
            ...judged,
            result,
            runId: opts.runId,
            agentName: opts.agentName,
            toolset: s.toolset,
          });
          // The verdict links to its trace (results file, log, reports); the outcome shares this object.
          if (outcome.status === 'scored' && isTraceIds(rendered)) {
            verdict.trace = { traceId: rendered.traceId, rootSpanId: rendered.rootSpanId };
            if (rendered.url !== undefined) verdict.trace.url = rendered.url;
          } else if (outcome.status === 'errored' && isTraceIds(rendered)) {
            // An errored sample's trace was exported too: its run entry links to it like a verdict does.
            outcome.traceRef = { traceId: rendered.traceId, rootSpanId: rendered.rootSpanId };
            if (rendered.url !== undefined) outcome.traceRef.url = rendered.url;
          }
        } catch (err) {
          warn(`telemetry: ${s.c.id}#${run.sample}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    await opts.onCaseResult?.(result, s.c);
    // The case is reported: its runs are no longer needed.
    s.runs = [];
  };

  /** An exception of the engine, of scoring or of a callback is the run's failure: nothing new starts. */
  const failWith = (err: unknown, s: CaseState): void => {
    failure ??= err;
    internal.abort();
    s.cancelled = true;
  };

  // Ended samples not yet settled, and the last one's settlement.
  let settling = 0;
  let lastSettled: Promise<Settled> = Promise.resolve({});
  /**
   * Score one ended sample, count it, and once its case has every sample, queue the case's report.
   * Never throws: an exception (scoring, onSample) is the run's failure, as an engine exception is: nothing
   * new starts, what is in flight is cancelled, the sample's case is not reported, and it is rethrown once
   * the run has wound down.
   */
  const settle = (s: CaseState, sample: number, run: Run): Settled => {
    settling--;
    try {
      const verdict = scoring.scoreRun(s.c, run, { toolset: s.toolset, toolMode, validateArgs: !!opts.validateArgs });
      const outcome = sampleOutcome(run, verdict);
      s.runs[sample] = { run, verdict, outcome };
      s.ended++;
      done++;
      opts.onSample?.({ caseId: s.c.id, sample, done, total, outcome, ...(run.worktree ? { worktree: run.worktree } : {}) });
    } catch (err) {
      failWith(err, s);
      return {};
    }
    if (s.ended !== s.samples || s.cancelled) return {};
    reportsPending++;
    const report = reportChain.then(() => finishCase(s)).finally(() => reportsPending--);
    reportChain = report;
    // Its failure is rethrown by the final await of the chain; don't let it surface as unhandled meanwhile.
    report.catch(() => {});
    return { report };
  };

  try {
    for (let i = 0; i < todo.length; i++) {
      const c = todo[i]!;
      if (sampleCount(c, opts.samples) > 0) continue;
      todo[i] = undefined;
      await finishCase(stateOf(c, i));
    }
    await runPool(jobs(), opts.concurrency ?? 4, async ({ s, sample }) => {
      if (internal.signal.aborted || failure !== undefined) {
        s.cancelled = true;
        return;
      }
      let run: Run;
      try {
        const attempt = (): Promise<Run> =>
          runOne({
            case: s.c,
            sample,
            provider: opts.provider,
            toolset: s.toolset,
            toolMode,
            // Like samples: the case's own max_turns wins over the CLI's.
            maxTurns: s.c.settings.maxTurns ?? opts.maxTurns,
            systemPrompt: opts.systemPrompt,
            keepWorktrees: opts.keepWorktrees,
            signal: internal.signal,
            ...(toolHost ? { toolHost } : {}),
            ...(opts.onTurn ? { onTurn: opts.onTurn } : {}),
            ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
          });
        run = await attempt();
        // An MCP server died under a call and will be restarted: the sample runs once more on the new
        // server; a second failure (or a restart that fails) stays an errored sample.
        if (run.status === 'error' && run.error?.retryable && !internal.signal.aborted) {
          warn(`${s.c.id}#${sample}: running the sample again after the MCP server restart`);
          run = await attempt();
        }
        if (run.error) delete run.error.retryable;
      } catch (err) {
        failWith(err, s);
        return;
      }
      if (run.status === 'cancelled' || internal.signal.aborted) {
        // A case with a cancelled sample is not finished: --resume runs it again in full.
        s.cancelled = true;
        return;
      }
      try {
        if (run.worktree !== undefined) opts.onWorktreeKept?.({ caseId: s.c.id, sample, worktree: run.worktree });
      } catch (err) {
        failWith(err, s);
        return;
      }
      // The stop needs only the run's status, so it is decided before this lane takes another sample.
      erroredInARow = run.status === 'error' ? erroredInARow + 1 : 0;
      if (run.status === 'error' && opts.stopAfterErrors && erroredInARow >= opts.stopAfterErrors && !stopped) {
        const { code, message } = runErrorOf(run);
        stopped = { cause: 'errors', samples: erroredInARow, error: { code, message } };
        internal.abort();
      }
      // Scoring, progress and the case's report wait two turns of the event loop: the answers of a wave
      // arrive together, and each lane's next request goes out before any of them is scored and logged,
      // instead of the last lane's request waiting behind everyone's finishing work. Two, because undici
      // writes a request on a reused keep-alive connection in the check phase after it was dispatched (first
      // letting bytes pending on the idle socket arrive: GHSA-35p6-xmwp-9g52); one turn would run the
      // settlement before that write. Settlements run in the order the samples ended (setImmediate is FIFO).
      settling++;
      const settled = nextTurn()
        .then(() => nextTurn())
        .then(() => settle(s, sample, run));
      lastSettled = settled;
      // Past the bound on reports pending a lane waits for its sample's settlement and report, as a lane
      // waits when the chain falls behind; and a provider that answers without I/O (a replay) would
      // otherwise take every sample before any is settled, holding all their runs.
      if (settling > maxReportsPending || reportsPending > maxReportsPending) {
        const { report } = await settled;
        if (report && reportsPending > maxReportsPending) await report;
      }
    });
    await lastSettled;
    await reportChain;
  } finally {
    // After a failure too: nothing of this run is scored or reported once it has returned (the chain's own
    // failure, if any, is rethrown by the await above).
    await lastSettled;
    await reportChain.catch(() => {});
    opts.signal?.removeEventListener('abort', onOuterAbort);
    unwatch?.();
    await ownHost?.close();
  }
  if (failure !== undefined) throw failure;
  const results = keep
    ? ids.flatMap((id) => {
        const r = finished.get(id);
        return r ? [r] : [];
      })
    : [];
  return {
    results,
    unfinished: ids.filter((_id, i) => finishedFlags[i] === 0),
    cancelled: !!opts.signal?.aborted,
    samplesRun: done,
    ...(stopped ? { stopped } : {}),
  };
}
