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

/**
 * Render a comparison as a terminal table, JSON, or Markdown. Deltas are percentage points against
 * the first run; `*` marks a case whose 95% intervals do not overlap the first run's.
 */
export function renderComparison(c: Comparison, format: 'table' | 'json' | 'md'): string {
  if (format === 'json') return `${JSON.stringify(c, null, 2)}\n`;
  const header = ['case', ...c.labels.map((l, i) => (i === 0 ? l : `${l} (Δ)`))];
  const rows = c.rows.map((row) => [
    row.caseId,
    ...row.cells.map((cell, i) => {
      const delta = i === 0 ? '' : deltaText(row.deltas[i] ?? null, row.significant.includes(c.labels[i]!));
      return delta ? `${cellText(cell)} (${delta})` : cellText(cell);
    }),
  ]);
  const summary = [
    'pass rate',
    ...c.summaries.map((s) => `${percent(s.summary.avgPassRate, 1)}`),
  ];
  const meeting = ['cases meeting threshold', ...c.summaries.map((s) => `${s.summary.casesMeetingThreshold}/${s.summary.cases}`)];
  const tokens = ['tokens', ...c.summaries.map((s) => String(s.summary.tokens))];
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
      line(summary.map((s, i) => (i === 0 ? `**${s}**` : escapeCell(s)))),
      line(meeting.map((s, i) => (i === 0 ? `**${s}**` : escapeCell(s)))),
      line(tokens.map((s, i) => (i === 0 ? `**${s}**` : escapeCell(s)))),
      '',
      `\\${footnote}`,
      '',
    ].join('\n');
  }
  const all = [header, ...rows, summary, meeting, tokens];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(header), rule, ...rows.map(fmt), rule, fmt(summary), fmt(meeting), fmt(tokens), '', footnote, ''].join('\n');
}
