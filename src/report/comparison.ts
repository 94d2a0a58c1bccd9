// The side-by-side summary of `compare` / `run --compare`.
import type { Comparison, ComparisonCell } from './compare.js';
import { percent } from './_present.js';
import { escapeCell, mdCode } from '../core/escape.js';

function cellText(cell: ComparisonCell | null): string {
  if (!cell) return '—';
  if (cell.k === 0) return 'errored';
  return `${percent(cell.passRate)} ${cell.category === 'pass' ? '' : cell.category}`.trim();
}

function deltaText(delta: number | null, significant: boolean): string {
  if (delta === null) return '';
  const points = Math.round(delta * 100);
  const sign = points > 0 ? '+' : points < 0 ? '−' : '±';
  return `${sign}${Math.abs(points)}${significant ? ' *' : ''}`;
}

/** The output formats `compare` can produce. */
export const COMPARISON_FORMATS = ['table', 'json', 'md'] as const;
export type ComparisonFormat = (typeof COMPARISON_FORMATS)[number];

/** One metric of the side-by-side summary: a value per run and its delta against the first run. */
export interface ComparisonSummaryRow {
  metric: string;
  /** A ratio (0..1) shown as a percentage; deltas are then in percentage points. */
  percent: boolean;
  values: Array<number | null>;
  /** null for the first run, or when either value is missing. */
  deltas: Array<number | null>;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `−${Math.abs(n)}` : '±0';
}

/**
 * The side-by-side summary (replio's compare): pass rate, accuracy, cases meeting the threshold, calls,
 * redundant calls, errors and tokens per run, with deltas against the first run.
 */
export function summaryRows(c: Comparison): ComparisonSummaryRow[] {
  const metric = (name: string, pct: boolean, pick: (s: Comparison['summaries'][number]['summary']) => number | null): ComparisonSummaryRow => {
    const values = c.summaries.map((s) => pick(s.summary));
    const first = values[0] ?? null;
    return { metric: name, percent: pct, values, deltas: values.map((v, i) => (i === 0 || v === null || first === null ? null : v - first)) };
  };
  return [
    // The headline pass rate of every report: judged samples pooled over the cases (as the HTML view).
    metric('pass rate (judged samples)', true, (s) => s.overallPassRate),
    metric('expected-sequence accuracy', true, (s) => s.avgAccuracy),
    metric('cases meeting threshold', false, (s) => s.casesMeetingThreshold),
    metric('calls', false, (s) => s.calls),
    metric('redundant', false, (s) => s.redundant),
    metric('errors', false, (s) => s.errors),
    metric('tokens', false, (s) => s.tokens),
  ];
}

/**
 * Render a comparison as a terminal table, JSON, or Markdown. Deltas are percentage points against
 * the first run; `*` marks a case whose 95% intervals do not overlap the first run's.
 */
export function renderComparison(c: Comparison, format: ComparisonFormat): string {
  if (format === 'json') return `${JSON.stringify({ ...c, summary_rows: summaryRows(c) }, null, 2)}\n`;
  const header = ['case', ...c.labels.map((l, i) => (i === 0 ? l : `${l} (Δ)`))];
  const rows = c.rows.map((row) => [
    row.caseId,
    ...row.cells.map((cell, i) => {
      const delta = i === 0 ? '' : deltaText(row.deltas[i] ?? null, row.significant.includes(c.labels[i]!));
      return delta ? `${cellText(cell)} (${delta})` : cellText(cell);
    }),
  ]);
  const summary = summaryRows(c).map((m) => [
    m.metric,
    ...m.values.map((v, i) => {
      const of = m.metric === 'cases meeting threshold' ? `/${c.summaries[i]?.summary.cases ?? 0}` : '';
      const text = v === null ? '—' : m.percent ? percent(v, 1) : `${v}${of}`;
      const d = i === 0 ? null : (m.deltas[i] ?? null);
      return d === null ? text : `${text} (${signed(m.percent ? Math.round(d * 1000) / 10 : d)}${m.percent ? ' pts' : ''})`;
    }),
  ]);
  const flagged = c.rows.filter((r) => r.significant.length > 0).length;
  const footnote = `* intervals do not overlap the first run's (${flagged} case${flagged === 1 ? '' : 's'})`;
  if (format === 'md') {
    const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
    return [
      `## runspec-eval comparison: ${c.labels.map(escapeCell).join(' vs ')}`,
      '',
      line(header.map(escapeCell)),
      line(header.map(() => '---')),
      ...rows.map((r) => line([mdCode(r[0]!), ...r.slice(1).map(escapeCell)])),
      ...summary.map((row) => line(row.map((s, i) => (i === 0 ? `**${s}**` : escapeCell(s))))),
      '',
      `\\${footnote}`,
      '',
    ].join('\n');
  }
  const all = [header, ...rows, ...summary];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(header), rule, ...rows.map(fmt), rule, ...summary.map(fmt), '', footnote, ''].join('\n');
}
