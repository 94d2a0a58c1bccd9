// The terminal table: verdict, tool, command, autonomy, host, pass rate and reason per case, then the summary.
import { cutText } from '../core/cut.js';
import { safeText } from '../core/safe-text.js';
import type { ResultsDocument, ResultsInputs } from './results.js';
import {
  caseViews,
  categoryCounts,
  inputReasons,
  inputsHeadline,
  MAX_INPUT_EXAMPLES,
  formatInt,
  gateText,
  hasPassK,
  lastIteration,
  opsColumns,
  passKText,
  percent,
  pooledPassRate,
  pooledPassRateText,
  thresholdText,
  titleOf,
  type CaseView,
} from './_present.js';

/** Options of {@link renderTable}. */
export interface TableOptions {
  /** ANSI colours (the CLI passes true on a TTY without NO_COLOR). @default false */
  color?: boolean;
  /** Terminal width: the reason column is cut to fit. @default unlimited */
  width?: number;
}

const ANSI = { reset: '\u001b[0m', red: '\u001b[31m', green: '\u001b[32m', yellow: '\u001b[33m', dim: '\u001b[2m', bold: '\u001b[1m' };

/** Column widths are capped so one long name does not push the reason off screen. */
const MAX_COLUMN = 32;
/** Narrowest each column gets before the reason gives way: mark, case, verdict, tool, command, autonomy, host, pass rate. */
const MIN_WIDTHS = [1, 14, 14, 10, 7, 10, 6, 9];
const MIN_REASON = 16;

function cut(text: string, width: number): string {
  return cutText(text, width);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Render the results as a plain-text table for a terminal.
 *
 * @example renderTable(doc, { color: process.stdout.isTTY, width: process.stdout.columns })
 */
export function renderTable(doc: ResultsDocument, opts: TableOptions = {}): string {
  const color = opts.color === true;
  const paint = (code: string, text: string): string => (color && text ? `${code}${text}${ANSI.reset}` : text);
  const views = caseViews(doc);
  // The command, autonomy and host columns appear only when some case uses them.
  const ops = opsColumns(views);
  const keep = [true, true, true, true, ops.command, ops.autonomy, ops.host, true, true];
  const pick = <T>(cells: T[]): T[] => cells.filter((_c, i) => keep[i]);
  const header = pick(['', 'CASE', 'VERDICT', 'TOOL', 'COMMAND', 'AUTONOMY', 'HOST', 'PASS RATE', 'REASON']);
  const minWidths = pick([...MIN_WIDTHS, 0]);
  const rateColumn = header.indexOf('PASS RATE');
  const mark = (v: CaseView): string => (v.errored ? '!' : v.meetsThreshold ? '✓' : '✗');
  // Case ids, tools and reasons come from fixtures and models: no escape sequence may act on the terminal.
  const rows = views.map((v) =>
    pick([mark(v), v.caseId, v.verdict, v.tool || '-', v.command || '-', v.autonomy || '-', v.host || '-', v.passRate, oneLine(v.reason)]).map(safeText),
  );
  const fixed = header.length - 1;
  const widths = header.slice(0, fixed).map((h, i) => Math.min(MAX_COLUMN, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  if (opts.width !== undefined) {
    // Narrow terminal: take columns down, widest first, until the reason keeps MIN_REASON characters.
    const budget = opts.width - 2 * fixed - MIN_REASON;
    for (let guard = 0; guard < 1000 && widths.reduce((a, b) => a + b, 0) > budget; guard++) {
      const excess = widths.map((w, i) => w - minWidths[i]!);
      const most = excess.indexOf(Math.max(...excess));
      if (excess[most]! <= 0) break;
      widths[most]!--;
    }
  }
  const used = widths.reduce((a, b) => a + b, 0) + 2 * fixed;
  const reasonWidth = opts.width !== undefined ? Math.max(10, opts.width - used) : Number.POSITIVE_INFINITY;
  const lines: string[] = [paint(ANSI.bold, titleOf(doc)), ''];
  const formatRow = (cells: string[], v?: CaseView): string => {
    const parts = cells.slice(0, fixed).map((cell, i) => {
      const padded = cut(cell, widths[i]!).padEnd(widths[i]!);
      if (!v) return padded;
      if (i === 0 || i === 2) return paint(v.errored ? ANSI.yellow : v.verdict === 'pass' ? ANSI.green : ANSI.red, padded);
      if (i === rateColumn) return paint(v.meetsThreshold ? ANSI.green : v.errored ? ANSI.yellow : ANSI.red, padded);
      if (cell === '-') return paint(ANSI.dim, padded);
      return padded;
    });
    const reason = Number.isFinite(reasonWidth) ? cut(cells[fixed]!, reasonWidth) : cells[fixed]!;
    return `${parts.join('  ')}  ${reason}`.trimEnd();
  };
  lines.push(paint(ANSI.dim, formatRow(header)));
  views.forEach((v, i) => lines.push(formatRow(rows[i]!, v)));
  lines.push('');
  if (hasPassK(views)) {
    const idWidth = Math.min(MAX_COLUMN, Math.max(...views.map((v) => safeText(v.caseId).length)));
    lines.push(paint(ANSI.dim, 'pass@k / pass^k (unbiased; errored samples left out of n)'));
    for (const v of views) {
      const bits = [passKText(v.entry), gateText(v.entry) && `gate ${gateText(v.entry)}`].filter(Boolean).join(' · ');
      lines.push(`  ${cut(safeText(v.caseId), idWidth).padEnd(idWidth)}  ${safeText(bits) || '-'}`);
    }
    lines.push('');
  }
  // Where to look: the trace of each failing case's representative sample (its link with trace_url).
  const failing = views.filter((v) => !v.meetsThreshold && v.traceId !== undefined);
  if (failing.length) {
    lines.push('traces of failing cases:');
    for (const v of failing) lines.push(`  ${safeText(v.caseId)}  ${safeText(v.traceUrl ?? v.traceId ?? '')}`);
    lines.push('');
  }
  const agg = lastIteration(doc)?.aggregate;
  if (agg) {
    const verdictLine = agg.all_meet_threshold
      ? paint(ANSI.green, `${agg.cases_meeting_threshold}/${agg.total_cases} cases meet the threshold (${thresholdText(views)})`)
      : paint(ANSI.red, `${agg.cases_meeting_threshold}/${agg.total_cases} cases meet the threshold (${thresholdText(views)})`);
    const parts = [verdictLine];
    if (agg.errored_cases > 0) parts.push(paint(ANSI.yellow, `${agg.errored_cases} errored`));
    lines.push(parts.join(' · '));
    const rates = [pooledPassRateText(pooledPassRate(doc))];
    // replio's accuracy: the share of samples whose call names equal the expected sequence, not a pass rate.
    if (agg.avg_accuracy !== null) rates.push(`expected-sequence accuracy ${percent(agg.avg_accuracy, 1)}`);
    lines.push(rates.join(' · '));
    lines.push(
      `samples ${agg.scored_runs} scored, ${agg.errored_runs} errored${agg.unscorable_runs ? `, ${agg.unscorable_runs} unscorable` : ''} · calls ${formatInt(agg.calls)} · redundant ${formatInt(agg.redundant)} · errors ${formatInt(agg.errors)} · tokens ${formatInt(agg.tokens)}${agg.json_dumps ? ` · json dumps ${agg.json_dumps}` : ''}`,
    );
    const categories = categoryCounts(agg.by_category);
    if (categories.length) lines.push(`by verdict: ${categories.map(([c, n]) => `${c} ${n}`).join(' · ')}`);
    const tags = Object.entries(agg.by_tag);
    if (tags.length)
      lines.push(
        `by tag: ${tags.map(([t, g]) => `${t} ${g.cases_meeting_threshold}/${g.cases} cases, ${percent(g.runs ? g.passed_runs / g.runs : 0)} of samples`).join(' · ')}`,
      );
  }
  if (doc.inputs) lines.push(...inputsLines(doc.inputs));
  return `${lines.join('\n')}\n`;
}

/** Scored traces only: unmatched and uninterpretable traces, input problems (text from the input: made safe). */
function inputsLines(i: ResultsInputs): string[] {
  const out = ['', `inputs: ${inputsHeadline(i)}`];
  const reasons = inputReasons(i);
  if (reasons.length) {
    out.push('uninterpretable traces:');
    for (const [reason, n] of reasons) out.push(`  ${n} × ${safeText(oneLine(reason))}`);
    for (const u of (i.uninterpretable_traces ?? []).slice(0, MAX_INPUT_EXAMPLES)) out.push(`  trace ${safeText(u.trace_id)}: ${safeText(oneLine(u.reason))}`);
  }
  const unmatched = i.unmatched_traces ?? [];
  if (unmatched.length)
    out.push(
      `unmatched traces (no case or rule applied): ${unmatched
        .slice(0, MAX_INPUT_EXAMPLES)
        .map((u) => safeText(u.trace_id))
        .join(' ')}${i.unmatched > MAX_INPUT_EXAMPLES ? ` … and ${i.unmatched - MAX_INPUT_EXAMPLES} more` : ''}`,
    );
  if (i.problems) {
    out.push(`input problems: ${i.problems}`);
    for (const p of (i.problem_examples ?? []).slice(0, MAX_INPUT_EXAMPLES)) out.push(`  ${safeText(oneLine(p.place))}: ${safeText(oneLine(p.reason))}`);
    if (i.problems > MAX_INPUT_EXAMPLES) out.push(`  … and ${i.problems - MAX_INPUT_EXAMPLES} more`);
  }
  for (const f of i.bad_files ?? []) out.push(`unreadable: ${safeText(oneLine(f))}`);
  return out;
}
