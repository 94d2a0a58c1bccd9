// Inline SVG bar charts for the report view: no library, no script, text escaped like the rest.
import { cutText } from '../core/cut.js';
import { escapeXml as esc } from '../core/escape.js';

export interface BarItem {
  label: string;
  value: number;
  /** Interval whiskers (same scale as value). */
  low?: number;
  high?: number;
  /** Extra CSS class of the bar (`pass`, `fail`, `errored`). */
  cls?: string;
}

const ROW = 22;
const LABEL_W = 190;
const BAR_W = 300;
const VALUE_W = 110;

function cutLabel(s: string, n = 28): string {
  return cutText(s, n);
}

/**
 * A horizontal bar chart. `max` is the value of a full bar (1 for rates); `format` writes each value.
 * @example barChart('Pass rate by tag', [{ label: 'ops', value: 0.5, low: 0.2, high: 0.8 }], { max: 1, format: (v) => `${v * 100}%` })
 */
export function barChart(title: string, items: readonly BarItem[], opts: { max?: number; format: (v: number) => string; id?: string }): string {
  const max = opts.max ?? Math.max(1e-9, ...items.map((i) => i.high ?? i.value));
  const height = items.length * ROW + 8;
  const width = LABEL_W + BAR_W + VALUE_W;
  const x = (v: number): number => LABEL_W + Math.max(0, Math.min(1, v / max)) * BAR_W;
  const rows = items.map((item, i) => {
    const y = 4 + i * ROW;
    const whisker =
      item.low !== undefined && item.high !== undefined
        ? `<line class="ci" x1="${x(item.low).toFixed(1)}" x2="${x(item.high).toFixed(1)}" y1="${y + 9}" y2="${y + 9}"/>` +
          `<line class="ci" x1="${x(item.low).toFixed(1)}" x2="${x(item.low).toFixed(1)}" y1="${y + 4}" y2="${y + 14}"/>` +
          `<line class="ci" x1="${x(item.high).toFixed(1)}" x2="${x(item.high).toFixed(1)}" y1="${y + 4}" y2="${y + 14}"/>`
        : '';
    const w = Math.max(item.value > 0 ? 1 : 0, x(item.value) - LABEL_W);
    return (
      `<g><title>${esc(`${item.label}: ${opts.format(item.value)}${item.low !== undefined && item.high !== undefined ? ` (95% interval ${opts.format(item.low)}–${opts.format(item.high)})` : ''}`)}</title>` +
      `<text class="lbl" x="${LABEL_W - 6}" y="${y + 13}" text-anchor="end">${esc(cutLabel(item.label))}</text>` +
      `<rect class="track" x="${LABEL_W}" y="${y + 3}" width="${BAR_W}" height="12" rx="2"/>` +
      `<rect class="bar ${esc(item.cls ?? '')}" x="${LABEL_W}" y="${y + 3}" width="${w.toFixed(1)}" height="12" rx="2"/>` +
      whisker +
      `<text class="val" x="${LABEL_W + BAR_W + 6}" y="${y + 13}">${esc(opts.format(item.value))}</text></g>`
    );
  });
  return (
    `<figure class="chart"${opts.id ? ` id="${esc(opts.id)}"` : ''}><figcaption>${esc(title)}</figcaption>` +
    `<svg role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="100%" preserveAspectRatio="xMinYMin meet">${rows.join('')}</svg></figure>`
  );
}
