// Tool-call matchers for vitest's `expect`: on an eval result (`runEval`), a case result, a `Run`, or a
// captured OTLP trace (an ExportTraceServiceRequest as JSON: normalised by traces/ like production traces).
// The failure message is the verdict's reason, or says which call did not match and why.
import type { CaseResult, VerdictCategory } from '../types/verdict.js';
import type { Run, ToolCall } from '../types/run.js';
import type { ExpectedAction, MatchMode } from '../types/case.js';
import { matchAction, scoreMatch } from '../scoring/match-modes.js';
import { toArgExpectation } from '../fixtures/normalise.js';
import { createTraceAssembler } from '../traces/assembler.js';
import { spansFromRequest } from '../traces/spans.js';
import { normaliseTrace } from '../traces/normalise.js';
import { isRecord } from '../core/is-record.js';

/** What the matchers accept. */
export type MatcherSubject = CaseResult | Run | { resourceSpans: unknown[] } | { result: CaseResult };

interface Sample {
  label: string;
  calls: readonly ToolCall[];
  category?: VerdictCategory;
  reason?: string;
}

function isCaseResult(v: unknown): v is CaseResult {
  return isRecord(v) && Array.isArray(v.samples) && typeof v.caseId === 'string';
}

function isRun(v: unknown): v is Run {
  return isRecord(v) && Array.isArray(v.toolCalls) && Array.isArray(v.modelCalls);
}

function runsOfTrace(doc: { resourceSpans: unknown[] }): Run[] {
  const { spans, problems } = spansFromRequest(doc, 'trace');
  if (problems.length > 0) throw new TypeError(`the trace is not valid OTLP: ${problems[0]!.reason}`);
  const assembler = createTraceAssembler({ quiet: 0 });
  assembler.addSpans(spans, 0);
  return assembler.flush().flatMap((t) => {
    const r = normaliseTrace(t);
    return r.ok ? [r.run] : [];
  });
}

/** The samples a subject holds, each with its calls (and verdict, when it was judged). */
function samplesOf(subject: unknown): Sample[] {
  const value = isRecord(subject) && isCaseResult(subject.result) ? subject.result : subject;
  if (isCaseResult(value)) {
    return value.samples.map((s) =>
      s.status === 'scored'
        ? { label: `${value.caseId}#${s.sample}`, calls: s.verdict.calls, category: s.verdict.category, reason: s.verdict.reason }
        : { label: `${value.caseId}#${s.sample}`, calls: [], reason: `errored: ${s.error.message}` },
    );
  }
  if (isRun(value)) return [{ label: `${value.caseId}#${value.sample}`, calls: value.toolCalls.map((c) => c.call) }];
  if (isRecord(value) && Array.isArray(value.resourceSpans)) {
    const runs = runsOfTrace(value as { resourceSpans: unknown[] });
    if (runs.length === 0) throw new TypeError('the trace holds no agent run (no LLM or tool spans)');
    return runs.map((r) => ({ label: r.trace?.traceId ?? 'trace', calls: r.toolCalls.map((c) => c.call) }));
  }
  throw new TypeError('expected an eval result, a case result, a Run or an OTLP trace (JSON with resourceSpans)');
}

function callsText(calls: readonly ToolCall[]): string {
  return calls.length === 0 ? 'no tool call' : calls.map((c) => `${c.name}(${JSON.stringify(c.arguments ?? {})})`).join(', ');
}

function actionOf(name: string, args?: Record<string, unknown>): ExpectedAction {
  const action: ExpectedAction = { tool: name };
  if (args) action.args = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, toArgExpectation(v)]));
  return action;
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * Every sample called `name` (with arguments matching `args`: plain values compare tolerantly, `$one_of`,
 * `$regex`, `$absent` and `$equals` as in fixtures). With `.not`: no sample called it.
 */
export function toCallTool(received: unknown, name: string, args?: Record<string, unknown>): MatcherResult {
  const action = actionOf(name, args);
  const misses: string[] = [];
  const hits: string[] = [];
  for (const s of samplesOf(received)) {
    const reasons = s.calls.map((c) => matchAction(action, c));
    if (reasons.some((r) => r.ok)) hits.push(s.label);
    else {
      const why = reasons.find((_r, i) => s.calls[i]!.name === name)?.reason ?? `called ${callsText(s.calls)}`;
      misses.push(`${s.label}: ${why}`);
    }
  }
  const wanted = `${name}${args ? ` with ${JSON.stringify(args)}` : ''}`;
  return {
    pass: misses.length === 0,
    message: () =>
      misses.length === 0 ? `expected no call to ${wanted}, but ${hits.join(', ')} made one` : `expected a call to ${wanted}: ${misses.join('; ')}`,
  };
}

/**
 * Every sample made these calls in order, by turnstone's match modes (`ordered_subset` by default:
 * the expected calls appear in this order, other calls may come between).
 */
export function toCallToolsInOrder(
  received: unknown,
  expected: ReadonlyArray<string | { tool: string; args?: Record<string, unknown>; args_pattern?: Record<string, string> }>,
  options: { mode?: MatchMode } = {},
): MatcherResult {
  const actions = expected.map((e) => {
    if (typeof e === 'string') return actionOf(e);
    const a = actionOf(e.tool, e.args);
    if (e.args_pattern) a.argsPattern = e.args_pattern;
    return a;
  });
  const mode = options.mode ?? 'ordered_subset';
  const misses: string[] = [];
  for (const s of samplesOf(received)) {
    const m = scoreMatch(actions, s.calls, mode);
    if (!m.pass) misses.push(`${s.label}: ${m.detail} (calls: ${callsText(s.calls)})`);
  }
  return {
    pass: misses.length === 0,
    message: () => (misses.length === 0 ? `expected the calls not to match ${mode}` : `expected calls ${mode}: ${misses.join('; ')}`),
  };
}

/** Every judged sample has this verdict category (`pass`, `wrong_tool`, `wrong_args`, ...). */
export function toHaveVerdict(received: unknown, category: VerdictCategory): MatcherResult {
  const samples = samplesOf(received);
  const judged = samples.filter((s) => s.category !== undefined);
  if (judged.length === 0)
    return { pass: false, message: () => `expected a verdict ${category}, but nothing was judged (${samples.map((s) => s.reason ?? s.label).join('; ')})` };
  const other = judged.filter((s) => s.category !== category);
  return {
    pass: other.length === 0,
    message: () =>
      other.length === 0
        ? `expected a verdict other than ${category}`
        : `expected verdict ${category}: ${other.map((s) => `${s.label}: ${s.category}: ${s.reason}`).join('; ')}`,
  };
}

/** The matchers for `expect.extend` (importing `runspec-eval/vitest` registers them). */
export const runspecMatchers = { toCallTool, toCallToolsInOrder, toHaveVerdict };
