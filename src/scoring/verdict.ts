// One verdict per case run. Every applicable check runs; the first failure in this precedence order
// is the verdict's category, and the reason names the others ("also: wrong_args").
//
// | #  | category                      | applies when                                   | fails when                                          |
// | -- | ----------------------------- | ---------------------------------------------- | --------------------------------------------------- |
// | 1  | error                         | always                                         | run status is error or cancelled                    |
// | 2  | unexpected_run                | expect_no_run                                  | the model called a runnable (it should have asked)  |
// | 3  | forbidden_tool                | forbid_tools / verifier.avoid                  | any call names a forbidden tool                     |
// | 4  | no_run                        | expect_tool/command/host/args/autonomy         | no runnable call at all                             |
// | 5  | wrong_tool                    | expect_tool                                    | the terminal call's runnable is none of them        |
// | 6  | wrong_command                 | expect_command                                 | subcommand path differs (space-joined, trimmed, ci) |
// | 7  | wrong_host                    | expect_host                                    | host/group differs (trimmed, case-insensitive)      |
// | 8  | wrong_args                    | expect_args                                    | an expected arg is missing or does not match        |
// |    | wrong_tool / wrong_args / too_many_calls / too_few_calls | expect_calls        | the first tool-calling response's calls differ (expect-calls.ts) |
// | 9  | wrong_autonomy                | expect_autonomy                                | the call would gate at another level                |
// | 10 | missing_required … bad_command| validateArgs and a toolset                     | the preflight validator would bounce the call       |
// | 11 | json_dump                     | replio / turnstone expectations                | a later check fails and the final text is a dump    |
// | 12 | wrong_sequence                | verifier.exact; `expected` without a verifier; expected_actions | sequence differs / actions unmatched |
// | 13 | missing_tool                  | verifier.must_include                          | a listed tool was never called                      |
// | 14 | too_many_calls / too_few_calls| verifier.max_calls / min_calls                 | call count out of bounds                            |
// | 15 | wrong_args                    | verifier.args                                  | no call to the tool passes the expected args        |
// | 16 | redundant_call                | max_redundant (opt-in)                         | more repeated identical calls than allowed          |
// | 17 | tool_error                    | allow_tool_errors = false (opt-in)             | any tool call failed                                |
// | 18 | pass                          |                                                | nothing failed                                      |
//
// With expect_no_run, rows 3–10 do not apply: not calling is the whole expectation.
//
// Not checkable: every check is judged only on data the run carries. A check whose data is absent (a
// trace recorded without content has call names but no arguments; a search-layout call names its
// runnable inside the arguments) is listed in `checks` with `judged: false` and the missing data named.
// Precedence: a definite failure on a judged check wins; otherwise `unscorable` when any needed check
// was not checkable; otherwise pass.
// replio's `expected` is its accuracy metric; it decides the verdict only when there is no verifier
// (replio's pass is the verifier). A runspec no_run keeps its category when the text is a JSON dump
// (the verdict's jsonDump flag says so); json_dump replaces only trajectory failures.
import { cutText } from '../core/cut.js';
import type { Autonomy, Case } from '../types/case.js';
import type { CheckResult, Expected, Observed, Verdict, VerdictCategory } from '../types/verdict.js';
import type { ResolvedCall, ToolMode, Toolset } from '../types/toolset.js';
import type { HiddenDecision, Run, ToolCallRecord } from '../types/run.js';
import { argFailuresOf, argsMissingReason, checkArgs, describeArgFailures, isUnparsedArgs } from './arg-match.js';
import { expectationsHash } from './arg-hash.js';
import { checkExpectedCalls } from './expect-calls.js';
import { detectJsonDump } from './json-dump.js';
import { scoreMatch } from './match-modes.js';
import { checkVerifierDetailed, redundantBounds, replioMetrics, withoutDropped } from './replio.js';
import { commandText, resolveRecord, type ResolveContext } from '../toolset/resolve.js';
import { toolsetAutonomy, toolsetProblems, expectedToolMatches } from './_toolset.js';

/** Options of {@link scoreRun}. */
export interface ScoreOptions {
  /** The toolset the run was offered: enables name resolution, autonomy and arg validation. */
  toolset?: Toolset;
  /** The layout the model saw; defaults to the run's, then `dedup`. */
  toolMode?: ToolMode;
  /** Check the terminal call against the preflight validator (the bounce buckets). @default false */
  validateArgs?: boolean;
  /** Key of hashed argument capture (RUNSPEC_HASH_KEY): argument hashes are then checkable. */
  hashKey?: string;
  /**
   * The argument check as recorded on the trace, with the fingerprint of the expectations it was judged
   * against ({@link expectationsHash}); used when the trace carries no arguments and the case's argument
   * expectations are unchanged.
   */
  recordedArgs?: { expectationsHash: string; pass: boolean };
  /**
   * The terminal call's autonomy as recorded on the trace: autonomy can depend on arguments (a `force`
   * flag), so a call without them is judged on the recorded level, or not at all.
   */
  recordedAutonomy?: Autonomy;
}

interface Failure {
  category: VerdictCategory;
  /** Worded only when this failure is the verdict's (a function: it is worded when read). */
  reason: string | (() => string);
  /** Position in the precedence table; defaults to the category's place in PRECEDENCE. */
  rank: number;
}

/** Categories json_dump may replace: the model wrote its call as text, which explains these. */
const DUMP_EXPLAINS = new Set<VerdictCategory>(['wrong_sequence', 'missing_tool', 'too_few_calls', 'wrong_args']);

function norm(text: string | undefined): string | undefined {
  return text === undefined ? undefined : text.trim().replace(/\s+/g, ' ').toLowerCase();
}

function firstLine(text: string | undefined, maxChars = 80): string {
  const line = (text ?? '').trim().split('\n')[0] ?? '';
  return cutText(line, maxChars);
}

function callLabel(r: ResolvedCall): string {
  return r.runnable || r.calledName;
}

/**
 * Score one run of a case: a verdict with a category, a human-readable reason, what was expected and
 * what was observed (tool, command, host and autonomy, asserted or not), the replio metrics and, for
 * turnstone expectations, the match score. Model output never makes it throw.
 *
 * @example scoreRun(c, run, { toolset, validateArgs: true }).category // 'wrong_host'
 */
export function scoreRun(c: Case, run: Run, opts: ScoreOptions = {}): Verdict {
  const spec = c.runspec;
  const toolMode = opts.toolMode ?? run.toolMode ?? (opts.toolset ? 'dedup' : undefined);
  const ctx: ResolveContext = { toolMode, commandIsVerb: spec?.command !== undefined };
  if (opts.toolset) ctx.toolset = opts.toolset;
  const records: ToolCallRecord[] = run.toolCalls.length > 0 ? withoutDropped(run.toolCalls) : run.terminal ? [run.terminal] : [];
  // Array.from, not `.map`: optimised code's inlined `.map` makes holey arrays where the interpreter's are
  // packed, which deoptimised scoreRun and every reader of the verdict's calls ("wrong map") once each.
  const calls = Array.from(records, (r) => r.call);
  const resolvedAll = Array.from(records, (r) => resolveRecord(r, ctx));
  const terminalIndex = run.terminal ? records.indexOf(run.terminal) : -1;
  const terminal: ResolvedCall | undefined = run.terminal
    ? terminalIndex >= 0
      ? resolvedAll[terminalIndex]
      : resolveRecord(run.terminal, ctx)
    : resolvedAll.find((r) => !r.discovery);
  const terminalRecord: ToolCallRecord | undefined = run.terminal ?? (terminal ? records[resolvedAll.indexOf(terminal)] : undefined);

  const observed: Observed = {};
  let autonomy: Autonomy | undefined;
  if (terminal) {
    observed.tool = callLabel(terminal);
    if (terminal.command !== undefined) observed.command = commandText(terminal.command) ?? terminal.command;
    if (terminal.host !== undefined) observed.host = terminal.host;
    const argsAbsent = (run.terminal ?? records[resolvedAll.indexOf(terminal)])?.call.argumentsAbsent === true;
    autonomy = argsAbsent ? opts.recordedAutonomy : opts.toolset ? toolsetAutonomy(opts.toolset, terminal) : undefined;
    if (autonomy !== undefined) observed.autonomy = autonomy;
    observed.args = terminal.args;
  }
  const expected: Expected = {};
  if (spec?.tool?.length) expected.tool = [...spec.tool];
  else if (spec?.calls) expected.tool = [...new Set(spec.calls.map((x) => x.tool))];
  if (spec?.command !== undefined) expected.command = spec.command;
  if (spec?.host !== undefined) expected.host = spec.host;
  if (spec?.autonomy !== undefined) expected.autonomy = spec.autonomy;
  if (spec?.noRun) expected.noRun = true;

  const failures: Failure[] = [];
  const checks: CheckResult[] = [];
  const fail = (category: VerdictCategory, reason: Failure['reason'], rank = PRECEDENCE.indexOf(category)): void => {
    failures.push({ category, reason, rank });
  };
  const judged = (check: string, pass: boolean, expectedValue?: unknown, observedValue?: unknown, via?: CheckResult['via']): void => {
    const r: CheckResult = { check, judged: true, pass };
    if (via) r.via = via;
    if (expectedValue !== undefined) r.expected = expectedValue;
    if (observedValue !== undefined) r.observed = observedValue;
    checks.push(r);
  };
  const notCheckable = (check: string, missing: string, expectedValue?: unknown): void => {
    const r: CheckResult = { check, judged: false, missing };
    if (expectedValue !== undefined) r.expected = expectedValue;
    checks.push(r);
  };

  if (run.status === 'error' || run.status === 'cancelled') {
    // The error code travels as data (telemetry exports it as error.type) rather than inside the reason.
    judged('run_status', false, 'ok', run.error?.code || run.status);
    fail('error', run.error ? `run ${run.status === 'error' ? 'failed' : 'cancelled'}: ${run.error.code}: ${run.error.message}` : `run ${run.status}`);
  }

  // The trace shows the model was called but not what it decided: checks that need it are not checkable.
  const hidden = records.length === 0 ? run.hiddenDecision : undefined;
  let passReason = 'no expectations to check';
  if (spec) {
    const runnableCalls = resolvedAll.filter((r) => !r.discovery);
    if (spec.noRun && !terminal && hidden?.missing === 'answer') {
      notCheckable('no_run', hiddenText(hidden), true);
    } else if (spec.noRun && !terminal && hidden) {
      // A tool-call finish reason is enough: the model called something, even if the trace hides what.
      judged('no_run', false, true, 'tool calls (finish reason; names not recorded)');
      fail('unexpected_run', 'expected no runnable call (clarify or answer), but the model finished with tool calls (their names are not recorded)');
    } else if (spec.noRun) {
      judged('no_run', !terminal, true, terminal ? callLabel(terminal) : undefined);
      if (terminal) fail('unexpected_run', `expected no runnable call (clarify or answer), but the model called ${callLabel(terminal)}`);
      else passReason = 'made no runnable call, as expected';
    } else {
      const forbidden = (spec.forbidTools ?? []).filter((name) => runnableCalls.some((r) => expectedToolMatches(name, r, opts.toolset)));
      // A search-layout call without its arguments names no runnable: it may be a forbidden one.
      const unnamed = resolvedAll.filter((r, i) => !r.discovery && r.runnable === '' && records[i]?.call.argumentsAbsent);
      if (spec.forbidTools?.length) {
        if (!forbidden.length && hidden) notCheckable('forbid_tools', hiddenText(hidden), spec.forbidTools);
        else if (forbidden.length || !unnamed.length)
          judged('forbid_tools', forbidden.length === 0, spec.forbidTools, forbidden.length ? forbidden : undefined);
        else notCheckable('forbid_tools', `the runnable of ${unnamed.length} call(s) is named in arguments that were not captured`, spec.forbidTools);
      }
      if (forbidden.length) fail('forbidden_tool', `called forbidden tool ${forbidden.join(', ')}`);
      else if (spec.forbidTools?.length) passReason = 'called no forbidden tool';
      const asserts =
        !!spec.tool?.length || spec.command !== undefined || spec.host !== undefined || spec.autonomy !== undefined || !!spec.args || !!spec.calls;
      if (!terminal && hidden) {
        if (asserts) notCheckable('run', hiddenText(hidden), spec.tool?.length ? spec.tool : 'a runnable call');
      } else if (!terminal) {
        if (asserts) {
          judged('run', false, spec.tool?.length ? spec.tool : 'a runnable call', 'no runnable call');
          const want = spec.tool?.length
            ? `a call to ${spec.tool.join(' or ')}`
            : spec.calls
              ? `${spec.calls.length === 1 ? 'a call' : `${spec.calls.length} calls`} to ${[...new Set(spec.calls.map((x) => x.tool))].join(', ')}`
              : 'a runnable call';
          const said = firstLine(run.finalText);
          fail('no_run', `expected ${want}, but the model made no runnable call${said ? ` (it said: "${said}")` : ''}`);
        }
      } else {
        checkTerminal(spec, terminal, terminalRecord, autonomy, opts, { fail, judged, notCheckable });
        if (spec.calls) {
          // Every runnable call of the response that held the terminal call (parallel calls), in order.
          const at = terminalIndex >= 0 ? terminalIndex : resolvedAll.indexOf(terminal);
          const index = records[at]?.modelCallIndex;
          const found = records.filter((r, i) => (at < 0 ? i === 0 : r.modelCallIndex === index) && !resolvedAll[i]?.discovery).map((r) => r.call);
          const raw = found.length ? found : [run.terminal?.call ?? records[0]!.call];
          const wanted = spec.calls.map((x) => x.tool);
          // A trace recorded without content cannot show the arguments: not checkable, never a failure.
          if (raw.some((x) => x.argumentsAbsent)) {
            notCheckable(
              'calls',
              argsMissingReason(
                raw.find((x) => x.argumentsAbsent)!,
                opts.hashKey,
              ) ?? 'arguments not captured (content capture off)',
              wanted,
            );
          } else {
            const problem = checkExpectedCalls({
              expected: spec.calls,
              raw,
              mode: spec.equality ?? 'tolerant',
              ...(c.tools ? { tools: c.tools } : {}),
              ...(opts.toolset ? { toolset: opts.toolset } : {}),
            });
            judged(
              'calls',
              problem === undefined,
              wanted,
              raw.map((x) => x.name),
            );
            if (problem) fail(problem.category, problem.reason);
          }
        }
        const did = `called ${callLabel(terminal)}${observed.command ? ` ${observed.command}` : ''}${observed.host ? ` on ${observed.host}` : ''}${autonomy ? ` (${autonomy})` : ''}`;
        passReason = asserts ? `${did} as expected` : spec.forbidTools?.length ? `${did}, no forbidden tool` : did;
      }
    }
  }

  const metrics = replioMetrics(c, run);
  const verifier = c.replio?.verifier;
  if (hidden && (verifier || c.replio?.expected)) {
    notCheckable(verifier ? 'verifier' : 'sequence', hiddenText(hidden));
  } else if (verifier) {
    // verifier.args is row 15: after the call-count checks, unlike the runspec wrong_args of row 8.
    const v = checkVerifierDetailed(verifier, calls, opts.hashKey);
    for (const f of v.failures) fail(f.category, f.reason, f.category === 'wrong_args' ? VERIFIER_ARGS_RANK : undefined);
    judged('verifier', v.failures.length === 0);
    for (const tool of v.notCheckable) notCheckable(`verifier.args.${tool}`, `arguments of ${tool} not captured`);
    passReason = `verifier passed (${metrics.calls} calls)`;
  } else if (c.replio?.expected) {
    judged('sequence', metrics.accuracy === 1, c.replio.expected, metrics.names);
    if (metrics.accuracy !== 1) {
      fail('wrong_sequence', `expected [${c.replio.expected.join(', ')}], got [${metrics.names.join(', ')}]`);
    }
    passReason = `tool sequence matches [${c.replio.expected.join(', ')}]`;
  }
  // Opt-in checks (off by default, so turnstone and replio cases keep their seed semantics).
  const maxRedundant = c.settings.maxRedundant;
  if (maxRedundant !== undefined) {
    // Redundancy compares arguments: a repeated name without them is not checkable, never a failure.
    const bounds = redundantBounds(calls);
    if (bounds.min > maxRedundant) {
      fail('redundant_call', `${bounds.min} redundant call${bounds.min === 1 ? '' : 's'} (same tool, same arguments), at most ${maxRedundant} allowed`);
    } else if (bounds.max > maxRedundant) notCheckable('max_redundant', 'arguments of repeated calls not captured (content capture off)', maxRedundant);
  }
  if (c.settings.allowToolErrors === false) {
    const failed = records.filter((r) => r.isError === true || (r.result !== undefined && r.result.startsWith('Error')));
    if (failed.length > 0) {
      fail(
        'tool_error',
        `${failed.length} tool call${failed.length === 1 ? '' : 's'} failed (${[...new Set(failed.map((r) => r.call.name))].join(', ')}); allow_tool_errors = false`,
      );
    }
  }
  const match = c.turnstone && !hidden ? scoreMatch(c.turnstone.actions, calls, c.turnstone.matchMode) : undefined;
  if (c.turnstone && hidden) notCheckable('expected_actions', hiddenText(hidden));
  if (match) {
    if (match.notCheckable) notCheckable('expected_actions', match.notCheckable);
    else {
      judged('expected_actions', match.pass, match.matchMode, match.detail);
      if (!match.pass) fail('wrong_sequence', match.detail);
    }
    passReason = match.detail;
  }

  failures.sort((a, b) => a.rank - b.rank);
  const unchecked = checks.filter((k) => !k.judged);
  // A definite failure wins; otherwise a needed check that could not be judged makes the verdict unscorable.
  const unscorable = failures.length === 0 && unchecked.length > 0;
  const pass = failures.length === 0 && !unscorable;
  const jsonDump = failures.length > 0 && detectJsonDump(run.finalText);
  let category: VerdictCategory = pass ? 'pass' : unscorable ? 'unscorable' : failures[0]!.category;
  const first = failures[0]?.reason;
  let reason = pass ? passReason : unscorable ? unscorableReason(unchecked) : typeof first === 'function' ? first() : first!;
  if (jsonDump && DUMP_EXPLAINS.has(category) && (c.replio || c.turnstone)) {
    reason = `the model wrote a tool call as JSON text instead of calling it; ${reason}`;
    category = 'json_dump';
  } else if (jsonDump) {
    reason = `${reason}; the final text is a JSON tool-call dump`;
  }
  if (failures.length > 1) {
    const others = [...new Set(failures.slice(1).map((f) => f.category))].filter((cat) => cat !== failures[0]!.category);
    if (others.length) reason += ` (also: ${others.join(', ')})`;
  }

  const verdict: Verdict = {
    caseId: c.id,
    sample: run.sample,
    dialect: c.dialect,
    pass,
    category,
    reason,
    expected,
    observed,
    replio: metrics,
    jsonDump,
    status: run.status,
    calls,
    checks,
  };
  if (toolMode !== undefined) verdict.toolMode = toolMode;
  if (match) verdict.match = match;
  if (run.trace?.rootSpanId) verdict.trace = { traceId: run.trace.traceId, rootSpanId: run.trace.rootSpanId };
  return verdict;
}

/**
 * What a hidden decision leaves out, naming the producer family and its switch:
 * `tool call names not recorded (the model finished with tool calls; openllmetry-legacy records them with TRACELOOP_TRACE_CONTENT=true / traceContent: true)`.
 */
export function hiddenText(h: HiddenDecision): string {
  const what =
    h.missing === 'tool_calls'
      ? 'tool call names not recorded (the model finished with tool calls'
      : "the model's answer not recorded (no finish reason, text or tool call";
  const how = h.family ? `; ${h.family} records it with ${h.captureSwitch ?? 'content capture on'}` : '; enable content capture';
  return `${what}${how})`;
}

/** `not checkable: args.service (arguments not captured (content capture off)); host (...)`. */
export function unscorableReason(unchecked: readonly CheckResult[]): string {
  const byMissing = new Map<string, string[]>();
  for (const k of unchecked) {
    const key = k.missing ?? 'data missing';
    byMissing.set(key, [...(byMissing.get(key) ?? []), k.check]);
  }
  return `not checkable: ${[...byMissing].map(([missing, names]) => `${names.join(', ')} (${missing})`).join('; ')}`;
}

interface CheckSink {
  fail: (category: VerdictCategory, reason: Failure['reason']) => void;
  judged: (check: string, pass: boolean, expected?: unknown, observed?: unknown, via?: CheckResult['via']) => void;
  notCheckable: (check: string, missing: string, expected?: unknown) => void;
}

function snippet(v: unknown): string {
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(cutText(text, 80));
}

function checkTerminal(
  spec: NonNullable<Case['runspec']>,
  terminal: ResolvedCall,
  record: ToolCallRecord | undefined,
  autonomy: Autonomy | undefined,
  opts: ScoreOptions,
  sink: CheckSink,
): void {
  const { fail, judged, notCheckable } = sink;
  const call = record?.call;
  // Without arguments, what the layout reads out of them (a search call's runnable, the subcommand, the
  // host selector) is unknown, unless the trace recorded the resolution itself (our own traces do).
  const argsGone = call?.argumentsAbsent === true && !record?.resolved;
  const noArgs = 'arguments not captured (content capture off), and the trace does not record the resolved call';
  if (spec.tool?.length) {
    if (argsGone && terminal.runnable === '') notCheckable('tool', noArgs, spec.tool);
    else {
      const ok = spec.tool.some((name) => expectedToolMatches(name, terminal, opts.toolset));
      judged('tool', ok, spec.tool, callLabel(terminal));
      if (!ok) {
        const unknown = opts.toolset && !terminal.known ? ' (not a runnable of the toolset)' : '';
        fail('wrong_tool', `expected ${spec.tool.join(' or ')}, got ${callLabel(terminal)}${unknown}`);
      }
    }
  }
  if (spec.command !== undefined) {
    if (argsGone && terminal.command === undefined) notCheckable('command', noArgs, spec.command);
    else {
      const ok = norm(spec.command) === norm(terminal.command);
      judged('command', ok, spec.command, terminal.command);
      if (!ok) fail('wrong_command', `expected command "${spec.command}", got ${terminal.command ? `"${terminal.command}"` : 'no command'}`);
    }
  }
  if (spec.host !== undefined) {
    if (argsGone && terminal.host === undefined) notCheckable('host', noArgs, spec.host);
    else {
      const ok = norm(spec.host) === norm(terminal.host);
      judged('host', ok, spec.host, terminal.host);
      if (!ok) fail('wrong_host', `expected host ${spec.host}, got ${terminal.host ?? 'no host'}`);
    }
  }
  if (spec.args && isUnparsedArgs(terminal.args)) {
    // Not "arg X: missing": the model did send arguments, just not as JSON.
    judged('args', false, 'valid JSON arguments', 'malformed');
    fail('wrong_args', `malformed call: the arguments are not valid JSON (${snippet(terminal.args._raw)})`);
  } else if (spec.args) {
    const target = call ?? { arguments: terminal.args };
    const recorded = opts.recordedArgs;
    // The resolved call's args drop the host selector and subcommand; judge those, unless only hashes exist.
    const source = call?.argumentsAbsent ? target : { arguments: terminal.args };
    const argChecks = checkArgs(spec.args, source, opts.hashKey !== undefined ? { hashKey: opts.hashKey } : {});
    // Without values (no content, or hashes a regex cannot use), expectations the trace was judged against keep its recorded verdict.
    if (call?.argumentsAbsent && argChecks.some((k) => !k.judged) && recorded && recorded.expectationsHash === expectationsHash(spec.args)) {
      judged('args', recorded.pass, 'recorded argument check (expectations unchanged)', recorded.pass ? 'pass' : 'fail', 'recorded');
      if (!recorded.pass) fail('wrong_args', 'arguments did not match when the trace was recorded (expectations unchanged since)');
    } else {
      for (const k of argChecks) {
        if (k.judged) judged(k.check, k.pass === true, k.expected, k.observed, k.via);
        else notCheckable(k.check, k.missing ?? 'not captured', k.expected);
      }
      const failures = argFailuresOf(spec.args, source, argChecks);
      if (failures.length) fail('wrong_args', describeArgFailures(failures));
    }
  }
  if (spec.autonomy !== undefined) {
    if (call?.argumentsAbsent && autonomy === undefined)
      notCheckable('autonomy', 'arguments not captured (content capture off), and the trace does not record the autonomy level', spec.autonomy);
    else {
      judged('autonomy', autonomy === spec.autonomy, spec.autonomy, autonomy);
      if (autonomy !== spec.autonomy) {
        fail(
          'wrong_autonomy',
          autonomy
            ? `expected the call to gate at ${spec.autonomy}, it would gate at ${autonomy}`
            : `expected the call to gate at ${spec.autonomy}, but its autonomy is unknown${opts.toolset ? '' : ' (no toolset)'}`,
        );
      }
    }
  }
  if (opts.validateArgs && opts.toolset) {
    if (call?.argumentsAbsent) notCheckable('validate_args', 'arguments not captured (content capture off)');
    else {
      const problems = toolsetProblems(opts.toolset, terminal);
      judged('validate_args', problems.length === 0, undefined, problems.length ? problems.map((p) => p.bucket) : undefined);
      // The messages (an unknown arg's "did you mean") are worded only when this is the verdict's failure.
      if (problems.length) fail(problems[0]!.bucket, () => problems.map((p) => p.message).join('; '));
    }
  }
}

/** The precedence of failure categories (see the table at the top of this file). */
export const PRECEDENCE: readonly VerdictCategory[] = [
  'error',
  'unexpected_run',
  'forbidden_tool',
  'no_run',
  'wrong_tool',
  'wrong_command',
  'wrong_host',
  'wrong_args',
  'wrong_autonomy',
  'missing_required',
  'unknown_arg',
  'bad_choice',
  'out_of_range',
  'bad_command',
  'json_dump',
  'wrong_sequence',
  'missing_tool',
  'too_many_calls',
  'too_few_calls',
  'redundant_call',
  'tool_error',
  'incomplete',
  'unscorable',
  'pass',
];

const VERIFIER_ARGS_RANK = PRECEDENCE.indexOf('too_few_calls') + 0.5;
