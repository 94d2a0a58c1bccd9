// Which cases grade a trace: the one named by `runspec.eval.case_id`, else every case whose `match` rule
// holds (a regex searched in the first user message, and/or attribute equality on the root or any span).
import { regexSearch } from '../core/regex.js';
import type { Case, CaseMatchRule } from '../types/case.js';
import type { TraceInfo } from './normalise.js';

function search(pattern: string, text: string): boolean {
  return regexSearch(pattern, text).ok;
}

function attrEquals(v: unknown, want: string): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.some((x) => attrEquals(x, want));
  return (typeof v === 'object' ? JSON.stringify(v) : String(v)) === want;
}

/** Whether a match rule holds for a trace (all given conditions must hold; an empty rule never matches). */
export function matchRuleHolds(rule: CaseMatchRule | undefined, info: TraceInfo): boolean {
  if (!rule || (rule.prompt === undefined && !rule.attributes)) return false;
  if (rule.prompt !== undefined && (info.firstUserMessage === undefined || !search(rule.prompt, info.firstUserMessage))) return false;
  for (const [key, want] of Object.entries(rule.attributes ?? {})) {
    const holds = attrEquals(info.rootAttributes[key], want) || info.spanAttributes.some((a) => attrEquals(a[key], want));
    if (!holds) return false;
  }
  return true;
}

/**
 * The cases that grade this trace. `runspec.eval.case_id` wins (narrowed by `runspec.eval.suite` when
 * several suites share the id); without it, or when no loaded case has that id, the match rules decide.
 */
export function casesForTrace(info: TraceInfo, cases: readonly Case[]): Case[] {
  if (info.caseId !== undefined) {
    const byId = cases.filter((c) => c.id === info.caseId);
    const bySuite = info.suite !== undefined ? byId.filter((c) => c.suite === info.suite) : [];
    if (bySuite.length) return bySuite.slice(0, 1);
    if (byId.length) return byId.slice(0, 1);
  }
  return cases.filter((c) => matchRuleHolds(c.match, info));
}
