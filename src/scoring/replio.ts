// replio eval metrics and the declarative verifier.
import type { ArgExpectation, Case, ReplioVerifier } from '../types/case.js';
import type { ReplioMetrics, VerdictCategory } from '../types/verdict.js';
import type { Run, ToolCall } from '../types/run.js';
import { canonicalJson } from '../core/canonical-json.js';
import { argsMissingReason, checkArgs, describeArgFailures, isUnparsedArgs, matchArgs } from './arg-match.js';
import { totalTokens } from '../core/tokens.js';

/** The records themselves (no copy) unless some call was dropped at the parallel cap. */
export function withoutDropped<T extends { dropped?: boolean }>(records: T[]): T[] {
  return records.some((r) => r.dropped === true) ? records.filter((r) => r.dropped !== true) : records;
}

/**
 * The tool calls of a run in order, without calls dropped at the parallel cap; a decision run that
 * recorded only its terminal call yields that call.
 */
export function callsOf(run: Run): ToolCall[] {
  if (run.toolCalls.length > 0) return withoutDropped(run.toolCalls).map((r) => r.call);
  return run.terminal ? [run.terminal.call] : [];
}

/** Count of calls that repeat an earlier call with the same name and canonically equal arguments. */
export function countRedundant(calls: readonly ToolCall[]): number {
  // Nothing to repeat (every decision run): skip canonicalising the arguments.
  if (calls.length < 2) return 0;
  const seen = new Set<string>();
  let redundant = 0;
  for (const call of calls) {
    const key = `${call.name}\u0000${canonicalJson(call.arguments ?? {})}`;
    if (seen.has(key)) redundant++;
    else seen.add(key);
  }
  return redundant;
}

/**
 * Redundant calls as far as the captured arguments tell: `min` counts only calls whose arguments were
 * captured (those repeats are certain); `max` assumes every repeated name repeats its arguments too.
 * Equal when every call's arguments were captured.
 */
export function redundantBounds(calls: readonly ToolCall[]): { min: number; max: number } {
  if (!calls.some((c) => c.argumentsAbsent)) {
    const n = countRedundant(calls);
    return { min: n, max: n };
  }
  return { min: countRedundant(calls.filter((c) => !c.argumentsAbsent)), max: calls.length - new Set(calls.map((c) => c.name)).size };
}

/** total_tokens from provider usage, falling back to prompt + completion, then to the model calls' usage. */
export function tokensOf(run: Run): number {
  const own = totalTokens(run.usage);
  if (own !== undefined) return own;
  return run.modelCalls.reduce((sum, m) => sum + (totalTokens(m.usage) ?? 0), 0);
}

/** Engine errors (failed model calls, or the run's own error) plus tool results starting with "Error". */
export function countErrors(run: Run): number {
  const modelErrors = run.modelCalls.filter((m) => m.error);
  let errors = modelErrors.length;
  if (run.error && !modelErrors.some((m) => m.error!.message === run.error!.message)) errors++;
  for (const record of run.toolCalls) {
    if (record.dropped) continue;
    if (record.isError === true || (record.result !== undefined && record.result.startsWith('Error'))) errors++;
  }
  return errors;
}

/** One failed verifier check, in the trajectory verdict vocabulary. */
export interface VerifierFailure {
  category: Extract<VerdictCategory, 'wrong_sequence' | 'missing_tool' | 'forbidden_tool' | 'too_many_calls' | 'too_few_calls' | 'wrong_args'>;
  reason: string;
}

function showNames(names: readonly string[]): string {
  return names.length ? `[${names.join(', ')}]` : '[] (no tool calls)';
}

/**
 * Run the replio verifier over a call log; every failed check is returned, in verifier order
 * (avoid, exact, must_include, max_calls, min_calls, args). An empty list means it passed.
 */
export function checkVerifier(verifier: ReplioVerifier, calls: readonly ToolCall[]): VerifierFailure[] {
  return checkVerifierDetailed(verifier, calls).failures;
}

/** {@link checkVerifier}, also naming the `args` checks that could not be judged (arguments not captured). */
export function checkVerifierDetailed(
  verifier: ReplioVerifier,
  calls: readonly ToolCall[],
  hashKey?: string,
): { failures: VerifierFailure[]; notCheckable: string[] } {
  const notCheckable: string[] = [];
  // A call without values: true/false when its keyed hashes decide every expected argument, else unknown.
  const byHash = (expected: Record<string, ArgExpectation>, c: ToolCall): boolean | undefined => {
    if (hashKey === undefined || !c.argumentHashes || argsMissingReason(c, hashKey)) return undefined;
    const checks = checkArgs(expected, c, { hashKey });
    if (checks.some((k) => k.judged && k.pass === false)) return false;
    return checks.every((k) => k.judged) ? true : undefined;
  };
  const names = calls.map((c) => c.name);
  const failures: VerifierFailure[] = [];
  const avoided = (verifier.avoid ?? []).filter((name) => names.includes(name));
  if (avoided.length) failures.push({ category: 'forbidden_tool', reason: `called avoided tool ${avoided.join(', ')}` });
  if (verifier.exact && (verifier.exact.length !== names.length || verifier.exact.some((n, i) => n !== names[i]))) {
    failures.push({ category: 'wrong_sequence', reason: `expected exactly ${showNames(verifier.exact)}, got ${showNames(names)}` });
  }
  const missing = (verifier.mustInclude ?? []).filter((name) => !names.includes(name));
  if (missing.length) failures.push({ category: 'missing_tool', reason: `never called ${missing.join(', ')} (calls: ${showNames(names)})` });
  if (verifier.maxCalls !== undefined && names.length > verifier.maxCalls) {
    failures.push({ category: 'too_many_calls', reason: `${names.length} tool calls, at most ${verifier.maxCalls} allowed` });
  }
  if (verifier.minCalls !== undefined && names.length < verifier.minCalls) {
    failures.push({ category: 'too_few_calls', reason: `${names.length} tool calls, at least ${verifier.minCalls} required` });
  }
  for (const [tool, expected] of Object.entries(verifier.args ?? {})) {
    const want = expected as Record<string, ArgExpectation>;
    const candidates = calls.filter((c) => c.name === tool);
    if (candidates.some((c) => (c.argumentsAbsent ? byHash(want, c) === true : matchArgs(want, c.arguments ?? {}).ok))) continue;
    if (!candidates.length) {
      failures.push({ category: 'wrong_args', reason: `no call to ${tool} to check its arguments` });
      continue;
    }
    if (candidates.some((c) => c.argumentsAbsent && byHash(want, c) === undefined)) {
      notCheckable.push(tool);
      continue;
    }
    // Arguments that were not JSON are a malformed call, not "arg X: missing".
    const parsed = candidates.filter((c) => !c.argumentsAbsent && !isUnparsedArgs(c.arguments));
    if (parsed.length === 0 && candidates.every((c) => c.argumentsAbsent)) {
      failures.push({ category: 'wrong_args', reason: `no ${tool} call passes the expected arguments: hashed values do not match` });
      continue;
    }
    if (parsed.length === 0) {
      failures.push({ category: 'wrong_args', reason: `malformed call: the arguments of ${tool} are not valid JSON` });
      continue;
    }
    const closest = parsed
      .map((c) => matchArgs(expected as Record<string, ArgExpectation>, c.arguments ?? {}).failures)
      .sort((a, b) => a.length - b.length)[0]!;
    failures.push({ category: 'wrong_args', reason: `no ${tool} call passes the expected arguments: ${describeArgFailures(closest)}` });
  }
  return { failures, notCheckable };
}

/**
 * replio metrics of one run: trace, names, accuracy (1 when names equal `expected` exactly; null
 * without `expected`), pass (the verifier; null without one), calls, redundant, errors, tokens, status.
 */
export function replioMetrics(c: Case, run: Run): ReplioMetrics {
  const calls = callsOf(run);
  // Array.from, not `.map`: see scoreRun (holey arrays from optimised code deoptimised their readers).
  const names = Array.from(calls, (call) => call.name);
  const expected = c.replio?.expected;
  const verifier = c.replio?.verifier;
  return {
    trace: Array.from(calls, (call) => ({ name: call.name, arguments: call.arguments ?? {} })),
    names,
    accuracy: expected ? (expected.length === names.length && expected.every((n, i) => n === names[i]) ? 1 : 0) : null,
    pass: verifier ? checkVerifier(verifier, calls).length === 0 : null,
    calls: calls.length,
    redundant: countRedundant(calls),
    errors: countErrors(run),
    tokens: tokensOf(run),
    status: run.status,
  };
}
