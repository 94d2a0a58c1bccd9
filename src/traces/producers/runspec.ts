// Our own traces (telemetry/ writes them): runspec.eval.* attributes on the root (case id, suite,
// sample, tool mode) and runspec.eval.executed = false on a tool call a decision run captured unexecuted.
import { ATTR_RUNSPEC_EVAL_CASE_ID, ATTR_RUNSPEC_EVAL_DROPPED, ATTR_RUNSPEC_EVAL_EXECUTED, ATTR_RUNSPEC_EVAL_SAMPLE, ATTR_RUNSPEC_EVAL_SUITE, ATTR_RUNSPEC_EVAL_TOOL_MODE } from '../../semconv/attributes.js';
import { isToolMode } from '../../core/vocabulary.js';
import type { ToolMode } from '../../types/toolset.js';
import { toInt, toStr } from '../_json.js';
import type { SpanRecord } from '../spans.js';

/** `runspec.eval.`: the namespace of our verdict attributes (derived, not spelled out). */
const RUNSPEC_EVAL_PREFIX = ATTR_RUNSPEC_EVAL_CASE_ID.slice(0, ATTR_RUNSPEC_EVAL_CASE_ID.lastIndexOf('.') + 1);

/** True when any span carries a runspec.eval.* attribute. */
export function isRunspecTrace(spans: SpanRecord[]): boolean {
  return spans.some((s) => Object.keys(s.attributes).some((k) => k.startsWith(RUNSPEC_EVAL_PREFIX)));
}

/** A trajectory call our run dropped beyond the parallel cap (runspec.eval.dropped). */
export function wasDropped(a: Record<string, unknown>): boolean {
  return a[ATTR_RUNSPEC_EVAL_DROPPED] === true || a[ATTR_RUNSPEC_EVAL_DROPPED] === 'true';
}

/** False only for a call our decision run captured without executing it. */
export function wasExecuted(a: Record<string, unknown>): boolean {
  return a[ATTR_RUNSPEC_EVAL_EXECUTED] !== false && a[ATTR_RUNSPEC_EVAL_EXECUTED] !== 'false';
}

/** What our root span (else the first span that has it) says about the case this trace ran. */
export interface RunspecCaseInfo {
  caseId?: string;
  suite?: string;
  sample?: number;
  toolMode?: ToolMode;
}

export function readRunspecCase(root: SpanRecord, spans: SpanRecord[]): RunspecCaseInfo {
  const info: RunspecCaseInfo = {};
  const caseId = findAttr(root, spans, ATTR_RUNSPEC_EVAL_CASE_ID);
  if (caseId !== undefined) info.caseId = caseId;
  const suite = findAttr(root, spans, ATTR_RUNSPEC_EVAL_SUITE);
  if (suite) info.suite = suite;
  const sample = toInt(findAttr(root, spans, ATTR_RUNSPEC_EVAL_SAMPLE));
  if (sample !== undefined) info.sample = sample;
  const toolMode = findAttr(root, spans, ATTR_RUNSPEC_EVAL_TOOL_MODE);
  if (isToolMode(toolMode)) info.toolMode = toolMode;
  return info;
}

function findAttr(root: SpanRecord, spans: SpanRecord[], key: string): string | undefined {
  const v = root.attributes[key] ?? spans.find((s) => s.attributes[key] !== undefined)?.attributes[key];
  return v === undefined ? undefined : toStr(v);
}
