// turnstone score_run(): match an ordered tool-call log against expected actions.
//
// | mode           | matched expected actions                                   | pass                        |
// | -------------- | ---------------------------------------------------------- | --------------------------- |
// | exact          | position i matches call i                                  | every position, same count  |
// | ordered_subset | the largest in-order matching (extra calls between allowed) | all matched                 |
// | subset         | a maximum bipartite matching (one call per action)         | all matched                 |
// | contains_any   | every action that matches some call                        | at least one matched        |
//
// score = matched / total and pass = (score === 1), except: `exact` divides by max(expected, actual)
// so that extra calls lower the score (and fail it), and `contains_any` scores 1 when anything matched.
// An empty expectation passes every mode except `exact` with calls present.
import type { ExpectedAction, MatchMode } from '../types/case.js';
import type { MatchScore } from '../types/verdict.js';
import type { ToolCall } from '../types/run.js';
import { showValue } from '../core/canonical-json.js';
import { valueText, valuesEqual } from '../core/equality.js';
import { regexSearch } from '../core/regex.js';
import { argText, isUnparsedArgs, matchArg } from './arg-match.js';

/** Calls past this many are ignored by the matchers (the engine caps a run far below it). */
const MAX_CALLS = 10_000;

/**
 * turnstone `_match_action`: the names are equal; every key of `args` has the same string value
 * (the `$one_of`/`$regex`/`$absent` matchers apply as in runspec); every `argsPattern` regex is found in
 * the value; arguments that failed to parse (`{ _raw }`) match only an action that expects no arguments.
 */
export function matchAction(action: ExpectedAction, call: ToolCall): { ok: boolean; reason?: string; unknown?: boolean } {
  if (action.tool !== call.name) return { ok: false, reason: `tool ${call.name} is not ${action.tool}` };
  const args = action.args ?? {};
  const patterns = action.argsPattern ?? {};
  const actual = call.arguments ?? {};
  const expectsArgs = Object.keys(args).length > 0 || Object.keys(patterns).length > 0;
  // Not checkable: the trace recorded the call but not its arguments (turnstone args compare as strings,
  // which hashed capture cannot reproduce, so hashes do not help here either).
  if (call.argumentsAbsent && expectsArgs) return { ok: false, unknown: true, reason: 'arguments not captured' };
  if (isUnparsedArgs(actual) && expectsArgs) return { ok: false, reason: 'arguments were not valid JSON' };
  for (const [key, expected] of Object.entries(args)) {
    const present = Object.hasOwn(actual, key) && actual[key] !== undefined;
    if (expected.kind === 'equals') {
      if (!present) return { ok: false, reason: `arg ${key}: missing (expected ${showValue(valueText(expected.value))})` };
      if (!valuesEqual(actual[key], expected.value, 'text')) {
        return { ok: false, reason: `arg ${key}: expected ${showValue(valueText(expected.value))}, got ${showValue(valueText(actual[key]))}` };
      }
      continue;
    }
    const result = matchArg(expected, present ? actual[key] : undefined, { present });
    if (!result.ok) return { ok: false, reason: `arg ${key}: ${result.reason}` };
  }
  for (const [key, pattern] of Object.entries(patterns)) {
    if (!Object.hasOwn(actual, key) || actual[key] === undefined) return { ok: false, reason: `arg ${key}: missing (expected a match for /${pattern}/)` };
    const found = regexSearch(pattern, argText(actual[key]));
    if (found.error) return { ok: false, reason: `arg ${key}: ${found.error}` };
    if (!found.ok) return { ok: false, reason: `arg ${key}: expected a match for /${pattern}/, got ${showValue(actual[key])}` };
  }
  return { ok: true };
}

const MODE_LABEL: Record<MatchMode, string> = {
  exact: 'Exact',
  ordered_subset: 'Ordered subset',
  subset: 'Subset',
  contains_any: 'Contains any',
};

/** Maximum bipartite matching (Kuhn's augmenting paths): expected action → call index. */
export function maximumMatching(edges: boolean[][], callCount: number): number[] {
  const callOwner = new Array<number>(callCount).fill(-1);
  const tryAssign = (action: number, seen: boolean[]): boolean => {
    for (let call = 0; call < callCount; call++) {
      if (!edges[action]![call] || seen[call]) continue;
      seen[call] = true;
      if (callOwner[call] === -1 || tryAssign(callOwner[call]!, seen)) {
        callOwner[call] = action;
        return true;
      }
    }
    return false;
  };
  for (let action = 0; action < edges.length; action++) tryAssign(action, new Array<boolean>(callCount).fill(false));
  const assignment = new Array<number>(edges.length).fill(-1);
  callOwner.forEach((action, call) => {
    if (action !== -1) assignment[action] = call;
  });
  return assignment;
}

/** Largest order-preserving matching (LCS with a match predicate): expected action → call index. */
function orderedMatching(edges: boolean[][], callCount: number): number[] {
  const n = edges.length;
  // best[i][j]: most matches using actions i.. and calls j..
  const best: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(callCount + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = callCount - 1; j >= 0; j--) {
      const take = edges[i]![j] ? 1 + best[i + 1]![j + 1]! : 0;
      best[i]![j] = Math.max(take, best[i + 1]![j]!, best[i]![j + 1]!);
    }
  }
  const assignment = new Array<number>(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < callCount) {
    if (edges[i]![j] && best[i]![j] === 1 + best[i + 1]![j + 1]!) {
      assignment[i] = j;
      i++;
      j++;
    } else if (best[i]![j + 1] === best[i]![j]) {
      // Skip a call before giving up on an action, so ties resolve the way turnstone's scan does.
      j++;
    } else {
      i++;
    }
  }
  return assignment;
}

function describeAction(action: ExpectedAction): string {
  const parts = [
    ...Object.entries(action.args ?? {}).map(([k, v]) => `${k}=${v.kind === 'equals' ? valueText(v.value) : v.kind}`),
    ...Object.entries(action.argsPattern ?? {}).map(([k, p]) => `${k}~/${p}/`),
  ];
  return parts.length ? `${action.tool}(${parts.join(', ')})` : action.tool;
}

/**
 * turnstone `score_run`: score a tool-call log against expected actions.
 *
 * @example scoreMatch([{ tool: 'read_file' }], [{ id: '1', name: 'read_file', arguments: {} }], 'ordered_subset').detail
 * // 'Ordered subset: 1/1'
 */
export function scoreMatch(actions: readonly ExpectedAction[], calls: readonly ToolCall[], mode: MatchMode = 'ordered_subset'): MatchScore {
  const log = calls.slice(0, MAX_CALLS);
  const results = actions.map((action) => log.map((call) => matchAction(action, call)));
  const edges = results.map((row) => row.map((r) => r.ok));
  const out = scoreEdges(actions, log, edges, mode);
  if (!out.pass && results.some((row) => row.some((r) => r.unknown))) {
    // Would it pass if every call without arguments matched? Then the failure is not definite.
    const optimistic = scoreEdges(
      actions,
      log,
      results.map((row) => row.map((r) => r.ok || r.unknown === true)),
      mode,
    );
    if (optimistic.pass) out.notCheckable = 'arguments not captured for calls the expected actions need';
    else {
      // A definite failure: name as missing only what no uncaptured arguments could have matched.
      const byNameOnly = out.unmatched.length - optimistic.unmatched.length;
      out.detail = byNameOnly ? `${optimistic.detail}; ${byNameOnly} matched by name only (arguments not captured)` : optimistic.detail;
    }
  }
  return out;
}

function scoreEdges(actions: readonly ExpectedAction[], log: readonly ToolCall[], edges: boolean[][], mode: MatchMode): MatchScore {
  let assignment: number[];
  switch (mode) {
    case 'exact':
      assignment = actions.map((_, i) => (i < log.length && edges[i]![i] ? i : -1));
      break;
    case 'ordered_subset':
      assignment = orderedMatching(edges, log.length);
      break;
    case 'subset':
      assignment = maximumMatching(edges, log.length);
      break;
    case 'contains_any':
      assignment = edges.map((row) => row.indexOf(true));
      break;
  }
  const matched = assignment.flatMap((call, i) => (call === -1 ? [] : [i]));
  const unmatched = assignment.flatMap((call, i) => (call === -1 ? [i] : []));
  const used = new Set(assignment.filter((call) => call !== -1));
  const extraTools =
    mode === 'contains_any' ? log.filter((_, j) => !edges.some((row) => row[j])).map((c) => c.name) : log.filter((_, j) => !used.has(j)).map((c) => c.name);
  let score: number;
  let total = actions.length;
  if (mode === 'contains_any') score = actions.length === 0 || matched.length > 0 ? 1 : 0;
  else if (mode === 'exact') {
    total = Math.max(actions.length, log.length);
    score = total === 0 ? 1 : matched.length / total;
  } else score = total === 0 ? 1 : matched.length / total;
  const pass = score === 1;
  let detail = `${MODE_LABEL[mode]}: ${matched.length}/${mode === 'exact' ? total : actions.length}`;
  if (unmatched.length) detail += `; missing ${unmatched.map((i) => describeAction(actions[i]!)).join(', ')}`;
  if (mode === 'exact' && log.length !== actions.length) detail += `; ${log.length} calls for ${actions.length} expected`;
  return { matchMode: mode, pass, score, matched, unmatched, extraTools, detail };
}
