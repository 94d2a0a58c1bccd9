// `score` and `serve`: `late` lines and the summary as text (stderr). Verdict lines are run entries of the
// results document (report/verdict-line.ts); every other score output is that document rendered by report/
// (one renderer per format). Pure string functions; only the CLI prints.
import { safeText } from '../core/safe-text.js';
import { VERDICT_CATEGORIES } from '../types/verdict.js';
import type { LateRecordsLine, ScoreSummary } from './score-traces.js';

export type ScoreOutputFormat = 'table' | 'json' | 'jsonl' | 'junit' | 'md';
export const SCORE_OUTPUT_FORMATS: readonly ScoreOutputFormat[] = ['table', 'json', 'jsonl', 'junit', 'md'];

/** A `late` line: records after a trace's re-open window (its own kind, never a verdict; snake_case like verdict lines). */
export function lateLineJson(line: LateRecordsLine): string {
  return JSON.stringify({ kind: line.kind, trace_id: line.traceId, records: line.records, reason: line.reason });
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** The summary as aligned text: counts by category, uninterpretable traces with reasons, evictions. */
export function renderSummaryTable(s: ScoreSummary): string {
  const out: string[] = [];
  out.push(
    `traces: ${s.traces}  verdicts: ${s.verdicts}  passed: ${s.passed}  failed: ${s.failed}  unscorable: ${s.unscorable}  errored: ${s.errored}  unmatched: ${s.unmatched}  uninterpretable: ${s.uninterpretable}`,
  );
  const cats = VERDICT_CATEGORIES.filter((c) => s.byCategory[c] > 0);
  if (cats.length) {
    out.push('');
    out.push(`${pad('category', 18)} count`);
    for (const c of cats) out.push(`${pad(c, 18)} ${s.byCategory[c]}`);
  }
  const reasons = Object.entries(s.uninterpretableReasons);
  if (reasons.length) {
    out.push('');
    out.push('uninterpretable traces:');
    for (const [reason, n] of reasons.sort((a, b) => b[1] - a[1])) out.push(`  ${n} × ${safeText(reason)}`);
  }
  if (s.inputProblems) {
    out.push('');
    out.push(`input problems: ${s.inputProblems}`);
    for (const p of s.inputProblemExamples.slice(0, 10)) out.push(`  ${safeText(p.place)}: ${safeText(p.reason)}`);
    if (s.inputProblems > 10) out.push(`  … and ${s.inputProblems - 10} more`);
  }
  if (s.evictedTraces || s.droppedSpans || s.lateRecords) {
    out.push('');
    out.push(`evicted traces: ${s.evictedTraces}  dropped spans: ${s.droppedSpans}  late spans/records: ${s.lateRecords}`);
  }
  return out.join('\n');
}
