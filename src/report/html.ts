// A single self-contained HTML report: inline CSS, no script, no external resource (a CSP meta tag
// forbids any fetch), so it can be attached to a CI run and opened offline.
import type { ResultsDocument, RunEntry } from './results.js';
import { caseViews, categoryCounts, formatInt, lastIteration, meaningOf, percent, thresholdText, titleOf, type CaseView } from './_present.js';
import { escapeXml as esc } from '../core/escape.js';

const STYLE = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328}
h1{font-size:20px;margin:0 0 4px}.meta{color:var(--muted);margin:0 0 16px}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:0 0 16px}.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px;background:var(--bg);min-width:140px}
.card b{display:block;font-size:18px}.card.ok b{color:var(--ok)}.card.bad b{color:var(--bad)}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600}code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-word;background:var(--bg);padding:6px;border-radius:4px;margin:4px 0}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff;background:var(--bad)}
.badge.pass{background:var(--ok)}.badge.errored{background:var(--warn)}
tr.fail td.rate{color:var(--bad);font-weight:600}tr.ok td.rate{color:var(--ok)}
details summary{cursor:pointer;color:var(--muted)}ul.cats{list-style:none;padding:0;display:flex;gap:12px;flex-wrap:wrap}
`;

function badge(category: string): string {
  const cls = category === 'pass' ? 'badge pass' : category === 'errored' ? 'badge errored' : 'badge';
  return `<span class="${cls}" title="${esc(meaningOf(category))}">${esc(category)}</span>`;
}

function sampleHtml(r: RunEntry): string {
  if (r.status === 'errored') {
    return `<li>sample ${r.sample}: ${badge('errored')} ${esc(r.error ? `${r.error.code}: ${r.error.message}` : r.detail)}</li>`;
  }
  const calls = r.calls.length
    ? `<pre>${esc(r.calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join('\n'))}</pre>`
    : '<div class="meta">no tool calls</div>';
  const matched = r.match ? `<div>${esc(r.match.detail)}</div>` : '';
  const id = r.verdict?.trace_id;
  const url = r.verdict?.trace_url;
  const trace = id ? `<div class="meta">trace ${url && /^https?:\/\//.test(url) ? `<a class="trace" href="${esc(url)}">${esc(id)}</a>` : `<code>${esc(id)}</code>`}</div>` : '';
  return `<li>sample ${r.sample}: ${badge(r.verdict?.category ?? (r.pass ? 'pass' : 'fail'))} ${esc(r.verdict?.reason ?? r.detail)}${matched}${trace}${calls}</li>`;
}

function rowHtml(v: CaseView): string {
  const cls = v.errored ? 'errored' : v.meetsThreshold ? 'ok' : 'fail';
  const interval = `${percent(v.entry.pass_rate_low)}–${percent(v.entry.pass_rate_high)}`;
  return [
    `<tr class="${cls}" data-case="${esc(v.caseId)}">`,
    `<td><code>${esc(v.caseId)}</code>${v.entry.tags.length ? `<div class="meta">${esc(v.entry.tags.join(', '))}</div>` : ''}</td>`,
    `<td>${badge(v.verdict)}</td>`,
    `<td><code>${esc(v.tool)}</code></td><td>${esc(v.command)}</td><td>${esc(v.autonomy)}</td><td>${esc(v.host)}</td>`,
    `<td class="rate" title="95% interval ${esc(interval)}">${esc(v.passRate)}</td>`,
    `<td>${esc(v.reason)}<details><summary>${v.entry.runs.length} sample${v.entry.runs.length === 1 ? '' : 's'}</summary><ul>${v.entry.runs.map(sampleHtml).join('')}</ul></details></td>`,
    '</tr>',
  ].join('');
}

/**
 * Render the results as one self-contained HTML page.
 *
 * @example writeFileSync('report.html', renderHtml(doc))
 */
export function renderHtml(doc: ResultsDocument): string {
  const views = caseViews(doc);
  const agg = lastIteration(doc)?.aggregate;
  const title = titleOf(doc);
  const meta = [doc.meta.started ? `started ${doc.meta.started}` : '', doc.meta.base_url ? `endpoint ${doc.meta.base_url}` : '']
    .filter(Boolean)
    .join(' · ');
  const cards = agg
    ? [
        `<div class="card ${agg.all_meet_threshold ? 'ok' : 'bad'}" id="verdict"><b>${agg.cases_meeting_threshold}/${agg.total_cases}</b>cases meet the threshold (${esc(thresholdText(views))})</div>`,
        `<div class="card"><b>${percent(agg.avg_pass_rate, 1)}</b>pass rate</div>`,
        agg.avg_accuracy !== null ? `<div class="card"><b>${percent(agg.avg_accuracy, 1)}</b>accuracy</div>` : '',
        `<div class="card"><b>${agg.scored_runs}</b>samples${agg.errored_runs ? ` (${agg.errored_runs} errored)` : ''}</div>`,
        `<div class="card"><b>${formatInt(agg.tokens)}</b>tokens · ${formatInt(agg.calls)} calls</div>`,
      ].join('')
    : '';
  const cats = agg ? categoryCounts(agg.by_category) : [];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${esc(title)}</h1>
<p class="meta">${esc(meta)}</p>
<div class="cards">${cards}</div>
${cats.length ? `<ul class="cats">${cats.map(([c, n]) => `<li>${badge(c)} ${n}</li>`).join('')}</ul>` : ''}
<table>
<thead><tr><th>Case</th><th>Verdict</th><th>Tool</th><th>Command</th><th>Autonomy</th><th>Host</th><th>Pass rate</th><th>Reason</th></tr></thead>
<tbody>
${views.map(rowHtml).join('\n')}
</tbody>
</table>
</body>
</html>
`;
}
