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
// | 9  | wrong_autonomy                | expect_autonomy                                | the call would gate at another level                |
// | 10 | missing_required … bad_command| validateArgs and a toolset                     | the preflight validator would bounce the call       |
// | 11 | json_dump                     | replio / turnstone expectations                | a later check fails and the final text is a dump    |
// | 12 | wrong_sequence                | verifier.exact; `expected` without a verifier; expected_actions | sequence differs / actions unmatched |
// | 13 | missing_tool                  | verifier.must_include                          | a listed tool was never called                      |
// | 14 | too_many_calls / too_few_calls| verifier.max_calls / min_calls                 | call count out of bounds                            |
// | 15 | wrong_args                    | verifier.args                                  | no call to the tool passes the expected args        |
// | 16 | pass                          |                                                | nothing failed                                      |
//
// With expect_no_run, rows 3–10 do not apply: not calling is the whole expectation.
// replio's `expected` is its accuracy metric; it decides the verdict only when there is no verifier
// (replio's pass is the verifier). A runspec no_run keeps its category when the text is a JSON dump
// (the verdict's jsonDump flag says so); json_dump replaces only trajectory failures.
import type { Autonomy, Case } from '../types/case.js';
import type { Expected, Observed, Verdict, VerdictCategory } from '../types/verdict.js';
import type { ResolvedCall, ToolMode, Toolset } from '../types/toolset.js';
import type { Run, ToolCallRecord } from '../types/run.js';
import { describeArgFailures, matchArgs } from './arg-match.js';
import { detectJsonDump } from './json-dump.js';
import { scoreMatch } from './match-modes.js';
import { checkVerifier, replioMetrics } from './replio.js';
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
}

interface Failure {
  category: VerdictCategory;
  reason: string;
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
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
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
  const records: ToolCallRecord[] = run.toolCalls.length > 0 ? run.toolCalls : run.terminal ? [run.terminal] : [];
  const calls = records.map((r) => r.call);
  const resolvedAll = records.map((r) => resolveRecord(r, ctx));
  const terminalIndex = run.terminal ? records.indexOf(run.terminal) : -1;
  const terminal: ResolvedCall | undefined = run.terminal
    ? terminalIndex >= 0
      ? resolvedAll[terminalIndex]
      : resolveRecord(run.terminal, ctx)
    : resolvedAll.find((r) => !r.discovery);

  const observed: Observed = {};
  let autonomy: Autonomy | undefined;
  if (terminal) {
    observed.tool = callLabel(terminal);
    if (terminal.command !== undefined) observed.command = commandText(terminal.command) ?? terminal.command;
    if (terminal.host !== undefined) observed.host = terminal.host;
    autonomy = opts.toolset ? toolsetAutonomy(opts.toolset, terminal) : undefined;
    if (autonomy !== undefined) observed.autonomy = autonomy;
    observed.args = terminal.args;
  }
  const expected: Expected = {};
  if (spec?.tool?.length) expected.tool = [...spec.tool];
  if (spec?.command !== undefined) expected.command = spec.command;
  if (spec?.host !== undefined) expected.host = spec.host;
  if (spec?.autonomy !== undefined) expected.autonomy = spec.autonomy;
  if (spec?.noRun) expected.noRun = true;

  const failures: Failure[] = [];
  const fail = (category: VerdictCategory, reason: string, rank = PRECEDENCE.indexOf(category)): void => {
    failures.push({ category, reason, rank });
  };

  if (run.status === 'error' || run.status === 'cancelled') {
    fail('error', run.error ? `run ${run.status === 'error' ? 'failed' : 'cancelled'}: ${run.error.code}: ${run.error.message}` : `run ${run.status}`);
  }

  let passReason = 'no expectations to check';
  if (spec) {
    const runnableCalls = resolvedAll.filter((r) => !r.discovery);
    if (spec.noRun) {
      if (terminal) fail('unexpected_run', `expected no runnable call (clarify or answer), but the model called ${callLabel(terminal)}`);
      else passReason = 'made no runnable call, as expected';
    } else {
      const forbidden = (spec.forbidTools ?? []).filter((name) =>
        runnableCalls.some((r) => expectedToolMatches(name, r, opts.toolset)),
      );
      if (forbidden.length) fail('forbidden_tool', `called forbidden tool ${forbidden.join(', ')}`);
      else if (spec.forbidTools?.length) passReason = 'called no forbidden tool';
      const asserts =
        !!spec.tool?.length || spec.command !== undefined || spec.host !== undefined || spec.autonomy !== undefined || !!spec.args;
      if (!terminal) {
        if (asserts) {
          const want = spec.tool?.length ? `a call to ${spec.tool.join(' or ')}` : 'a runnable call';
          const said = firstLine(run.finalText);
          fail('no_run', `expected ${want}, but the model made no runnable call${said ? ` (it said: "${said}")` : ''}`);
        }
      } else {
        checkTerminal(spec, terminal, autonomy, opts, fail);
        const did = `called ${callLabel(terminal)}${observed.command ? ` ${observed.command}` : ''}${observed.host ? ` on ${observed.host}` : ''}${autonomy ? ` (${autonomy})` : ''}`;
        passReason = asserts ? `${did} as expected` : spec.forbidTools?.length ? `${did}, no forbidden tool` : did;
      }
    }
  }

  const metrics = replioMetrics(c, run);
  const verifier = c.replio?.verifier;
  if (verifier) {
    // verifier.args is row 15: after the call-count checks, unlike the runspec wrong_args of row 8.
    for (const f of checkVerifier(verifier, calls)) fail(f.category, f.reason, f.category === 'wrong_args' ? VERIFIER_ARGS_RANK : undefined);
    passReason = `verifier passed (${metrics.calls} calls)`;
  } else if (c.replio?.expected) {
    if (metrics.accuracy !== 1) {
      fail('wrong_sequence', `expected [${c.replio.expected.join(', ')}], got [${metrics.names.join(', ')}]`);
    }
    passReason = `tool sequence matches [${c.replio.expected.join(', ')}]`;
  }
  const match = c.turnstone ? scoreMatch(c.turnstone.actions, calls, c.turnstone.matchMode) : undefined;
  if (match) {
    if (!match.pass) fail('wrong_sequence', match.detail);
    passReason = match.detail;
  }

  failures.sort((a, b) => a.rank - b.rank);
  const pass = failures.length === 0;
  const jsonDump = !pass && detectJsonDump(run.finalText);
  let category: VerdictCategory = pass ? 'pass' : failures[0]!.category;
  let reason = pass ? passReason : failures[0]!.reason;
  if (!pass && jsonDump && DUMP_EXPLAINS.has(category) && (c.replio || c.turnstone)) {
    reason = `the model wrote a tool call as JSON text instead of calling it; ${reason}`;
    category = 'json_dump';
  } else if (!pass && jsonDump) {
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
  };
  if (toolMode !== undefined) verdict.toolMode = toolMode;
  if (match) verdict.match = match;
  return verdict;
}

/** Arguments the provider adapter could not parse (`{ _raw: text }`). */
function isMalformedCall(args: Record<string, unknown> | undefined): args is { _raw: unknown } {
  const keys = args ? Object.keys(args) : [];
  return keys.length === 1 && keys[0] === '_raw';
}

function snippet(v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function checkTerminal(
  spec: NonNullable<Case['runspec']>,
  terminal: ResolvedCall,
  autonomy: Autonomy | undefined,
  opts: ScoreOptions,
  fail: (category: VerdictCategory, reason: string) => void,
): void {
  if (spec.tool?.length && !spec.tool.some((name) => expectedToolMatches(name, terminal, opts.toolset))) {
    const unknown = opts.toolset && !terminal.known ? ' (not a runnable of the toolset)' : '';
    fail('wrong_tool', `expected ${spec.tool.join(' or ')}, got ${callLabel(terminal)}${unknown}`);
  }
  if (spec.command !== undefined && norm(spec.command) !== norm(terminal.command)) {
    fail('wrong_command', `expected command "${spec.command}", got ${terminal.command ? `"${terminal.command}"` : 'no command'}`);
  }
  if (spec.host !== undefined && norm(spec.host) !== norm(terminal.host)) {
    fail('wrong_host', `expected host ${spec.host}, got ${terminal.host ?? 'no host'}`);
  }
  if (spec.args && isMalformedCall(terminal.args)) {
    // Not "arg X: missing": the model did send arguments, just not as JSON.
    fail('wrong_args', `malformed call: the arguments are not valid JSON (${snippet(terminal.args._raw)})`);
  } else if (spec.args) {
    const result = matchArgs(spec.args, terminal.args);
    if (!result.ok) fail('wrong_args', describeArgFailures(result.failures));
  }
  if (spec.autonomy !== undefined && autonomy !== spec.autonomy) {
    fail(
      'wrong_autonomy',
      autonomy
        ? `expected the call to gate at ${spec.autonomy}, it would gate at ${autonomy}`
        : `expected the call to gate at ${spec.autonomy}, but its autonomy is unknown${opts.toolset ? '' : ' (no toolset)'}`,
    );
  }
  if (opts.validateArgs && opts.toolset) {
    const problems = toolsetProblems(opts.toolset, terminal);
    if (problems.length) fail(problems[0]!.bucket, problems.map((p) => p.message).join('; '));
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
  'pass',
];

const VERIFIER_ARGS_RANK = PRECEDENCE.indexOf('too_few_calls') + 0.5;
