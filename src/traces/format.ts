// Renderers for `score --output`: verdict lines and the summary as a table, JSON, JUnit XML or Markdown.
// Pure string functions; only the CLI prints.
import { safeText } from '../core/safe-text.js';
import { VERDICT_CATEGORIES } from '../types/verdict.js';
import { escapeAttr, escapeCell, escapeXml } from '../core/escape.js';
import type { ScoreSummary, TraceVerdictLine } from './score-traces.js';

export type ScoreOutputFormat = 'table' | 'json' | 'jsonl' | 'junit' | 'md';
export const SCORE_OUTPUT_FORMATS: readonly ScoreOutputFormat[] = ['table', 'json', 'jsonl', 'junit', 'md'];

/** One JSON line per verdict (the stable machine format). */
export function verdictLineJson(line: TraceVerdictLine): string {
  return JSON.stringify(line);
}

function label(l: TraceVerdictLine): string {
  return l.case ?? (l.rule !== undefined ? `rule:${l.rule}` : '-');
}

function callsText(l: TraceVerdictLine): string {
  return l.calls.map((c) => c.name).join(' → ') || '(none)';
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function cut(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** The summary as aligned text: counts by category, uninterpretable traces with reasons, evictions. */
export function renderSummaryTable(s: ScoreSummary): string {
  const out: string[] = [];
  out.push(`traces: ${s.traces}  verdicts: ${s.verdicts}  passed: ${s.passed}  failed: ${s.failed}  unscorable: ${s.unscorable}  errored: ${s.errored}  unmatched: ${s.unmatched}  uninterpretable: ${s.uninterpretable}`);
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
    for (const [reason, n] of reasons.sort((a, b) => b[1] - a[1])) out.push(`  ${n} × ${reason}`);
  }
  if (s.inputProblems) {
    out.push('');
    out.push(`input problems: ${s.inputProblems}`);
    for (const p of s.inputProblemExamples.slice(0, 10)) out.push(`  ${p.place}: ${p.reason}`);
    if (s.inputProblems > 10) out.push(`  … and ${s.inputProblems - 10} more`);
  }
  if (s.evictedTraces || s.droppedSpans || s.lateRecords) {
    out.push('');
    out.push(`evicted traces: ${s.evictedTraces}  dropped spans: ${s.droppedSpans}  late spans/records: ${s.lateRecords}`);
  }
  return out.join('\n');
}

/** A verdict table followed by the summary. */
export function renderTable(lines: TraceVerdictLine[], s: ScoreSummary): string {
  // Trace attributes and model text: no escape sequence may act on the terminal.
  const rows = lines.map((l) => [l.traceId.slice(0, 16), cut(safeText(label(l)), 28), l.category ?? '-', l.pass === null ? '-' : l.pass ? 'pass' : 'FAIL', cut(safeText(callsText(l)), 40), cut(safeText(l.reason), 80)]);
  const head = ['trace', 'case/rule', 'category', 'result', 'calls', 'reason'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!))).join('  ');
  return [fmt(head), ...rows.map(fmt), '', renderSummaryTable(s)].join('\n');
}

/** `{ verdicts, summary }`. */
export function renderJson(lines: TraceVerdictLine[], s: ScoreSummary): string {
  return JSON.stringify({ verdicts: lines, summary: s }, null, 2);
}

/** JUnit XML: one testsuite per case or rule, one testcase per trace; unmatched traces are skipped tests. */
export function renderJunit(lines: TraceVerdictLine[], s: ScoreSummary): string {
  const groups = new Map<string, TraceVerdictLine[]>();
  for (const l of lines) {
    const key = label(l);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(l);
  }
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(`<testsuites name="runspec-eval score" tests="${lines.length}" failures="${s.failed}" errors="${s.uninterpretable}">`);
  for (const [name, ls] of groups) {
    const failures = ls.filter((l) => l.pass === false).length;
    const skipped = ls.filter((l) => l.pass === null).length;
    out.push(`  <testsuite name="${escapeAttr(name)}" tests="${ls.length}" failures="${failures}" skipped="${skipped}">`);
    for (const l of ls) {
      out.push(`    <testcase classname="${escapeAttr(name)}" name="trace ${l.traceId}">`);
      const props = [['trace_id', l.traceId], ['root_span_id', l.rootSpanId], ...(l.traceUrl ? [['trace_url', l.traceUrl]] : [])];
      out.push(`      <properties>${props.map(([k, v]) => `<property name="${k}" value="${escapeAttr(v!)}"/>`).join('')}</properties>`);
      if (l.pass === false) out.push(`      <failure type="${escapeAttr(l.category ?? '')}" message="${escapeAttr(cut(l.reason, 200))}">${escapeXml(`${l.reason}\ncalls: ${callsText(l)}`)}</failure>`);
      if (l.pass === null) out.push(`      <skipped message="${escapeAttr(l.reason)}"/>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  if (s.uninterpretable) {
    out.push(`  <testsuite name="uninterpretable traces" tests="${s.uninterpretableExamples.length}" errors="${s.uninterpretableExamples.length}">`);
    for (const u of s.uninterpretableExamples) out.push(`    <testcase classname="uninterpretable" name="trace ${u.traceId}"><error message="${escapeAttr(u.reason)}"/></testcase>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n');
}

/** Markdown: a verdict table and the summary counts. */
export function renderMarkdown(lines: TraceVerdictLine[], s: ScoreSummary): string {
  const out: string[] = ['# Offline trace scoring', ''];
  out.push(`**${s.traces}** traces · **${s.verdicts}** verdicts · **${s.passed}** passed · **${s.failed}** failed · ${s.unscorable} unscorable · ${s.errored} errored · ${s.unmatched} unmatched · ${s.uninterpretable} uninterpretable`, '');
  out.push('| trace | case / rule | category | result | calls | reason |', '| --- | --- | --- | --- | --- | --- |');
  for (const l of lines) {
    const id = `\`${l.traceId.slice(0, 16)}\``;
    out.push(`| ${l.traceUrl ? `[${id}](${l.traceUrl.replace(/[()]/g, encodeURIComponent)})` : id} | ${escapeCell(label(l))} | ${l.category ?? '-'} | ${l.pass === null ? '-' : l.pass ? '✅' : '❌'} | ${escapeCell(callsText(l))} | ${escapeCell(l.reason)} |`);
  }
  const cats = VERDICT_CATEGORIES.filter((c) => s.byCategory[c] > 0);
  if (cats.length) {
    out.push('', '| category | count |', '| --- | --- |');
    for (const c of cats) out.push(`| ${c} | ${s.byCategory[c]} |`);
  }
  const reasons = Object.entries(s.uninterpretableReasons);
  if (reasons.length) {
    out.push('', '**Uninterpretable traces**', '');
    for (const [r, n] of reasons) out.push(`- ${n} × ${escapeCell(r)}`);
  }
  if (s.inputProblems) out.push('', `**Input problems:** ${s.inputProblems}`);
  if (s.evictedTraces) out.push('', `**Evicted traces:** ${s.evictedTraces}`);
  return out.join('\n');
}
