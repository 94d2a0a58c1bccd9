// The report view: one renderer for the self-contained HTML file and the `ui` console. It writes markup
// only (every value escaped); the small script in _view-assets.ts adds filters, expanding rows and the
// theme switch on top, and the page is readable without it.
import { wilsonInterval } from '../scoring/samples.js';
import { compareResults } from './compare.js';
import { runEntryCalls, type CaseEntry, type ResultsDocument, type RunEntry, type SampleTraceJson, type SampleTraceStepJson } from './results.js';
import type { ToolCall } from '../types/run.js';
import { barChart, type BarItem } from './_charts.js';
import { escapeXml as esc } from '../core/escape.js';
import {
  caseViews,
  categoryCounts,
  formatInt,
  gateText,
  isJudgedRun,
  lastIteration,
  meaningOf,
  opsColumns,
  passKText,
  percent,
  pooledPassRate,
  thresholdText,
  titleOf,
  type CaseView,
} from './_present.js';

/** Options of the report view. */
export interface ReportViewOptions {
  /**
   * Link template of a sample's trace in Phoenix or LangSmith: `{trace_id}` and `{span_id}` are replaced
   * (`[telemetry] trace_url`). Only http(s) links are written.
   * @example 'http://localhost:6006/projects/default/traces/{trace_id}'
   */
  traceUrl?: string;
  /** Prefix of element ids, so two views can share a page. @default 'rv' */
  idPrefix?: string;
}

function badge(category: string): string {
  const cls = category === 'pass' ? 'badge pass' : category === 'errored' ? 'badge errored' : 'badge fail';
  return `<span class="${cls}" title="${esc(meaningOf(category))}">${esc(category)}</span>`;
}

function ms(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} s`;
  if (n >= 1000) return `${(n / 1000).toFixed(2)} s`;
  return `${Math.round(n)} ms`;
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[at]!;
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * Where a sample's trace lives, read defensively: the verdict's `trace_id` / `root_span_id` / `trace_url`
 * (issue 13 writes them), or `trace_id` / `span_id` on the run entry (production rows).
 */
function traceRef(run: RunEntry): { traceId?: string; spanId?: string; url?: string } {
  const r = run as Record<string, unknown>;
  const v = (run.verdict ?? {}) as Record<string, unknown>;
  const pick = (...vals: unknown[]): string | undefined => vals.find((x): x is string => typeof x === 'string' && /^[0-9a-fA-F-]{8,64}$/.test(x));
  const out: { traceId?: string; spanId?: string; url?: string } = {};
  const traceId = pick(v.trace_id, r.trace_id);
  const spanId = pick(v.root_span_id, v.span_id, r.span_id, r.root_span_id);
  if (traceId) out.traceId = traceId;
  if (spanId) out.spanId = spanId;
  if (typeof v.trace_url === 'string') out.url = v.trace_url;
  else if (!run.verdict && typeof r.trace_url === 'string') out.url = r.trace_url;
  return out;
}

/**
 * The trace link of a sample: the URL the results file holds (filled in when the run was recorded), else
 * the template filled in; '' when there is neither, a placeholder stays unfilled, or it is not http(s).
 */
export function traceLink(template: string | undefined, ref: { traceId?: string; spanId?: string; url?: string }): string {
  const isHttp = (u: string): boolean => /^https?:\/\//i.test(u);
  if (ref.url && isHttp(ref.url)) return ref.url;
  if (!template || !ref.traceId) return '';
  const url = template.replace(/\{trace_id\}/g, encodeURIComponent(ref.traceId)).replace(/\{(?:root_)?span_id\}/g, encodeURIComponent(ref.spanId ?? ''));
  return isHttp(url) && !/\{[a-z_]+\}/.test(url) ? url : '';
}

interface Stats {
  scored: number;
  passed: number;
  errored: number;
  /** Unscorable or incomplete samples. */
  unjudged: number;
  rate: number;
  low: number;
  high: number;
  meeting: number;
  cases: number;
  threshold: string;
  passAtK: number | null;
  passHatK: number | null;
  tokens: number;
  latencies: number[];
  toolErrors: number;
}

function statsOf(doc: ResultsDocument): Stats {
  const views = caseViews(doc);
  const runs = views.flatMap((v) => v.entry.runs);
  // Unscorable and incomplete verdicts are neither passes nor failures: out of the pass rate, as in summaries.
  const { passed, judged, rate, low, high } = pooledPassRate(doc);
  const multi = views.filter((v) => v.entry.k > 1);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    scored: judged,
    passed,
    errored: runs.filter((r) => r.status === 'errored').length,
    unjudged: runs.filter((r) => r.status === 'scored' && !isJudgedRun(r)).length,
    rate,
    low,
    high,
    meeting: views.filter((v) => v.meetsThreshold).length,
    cases: views.length,
    threshold: thresholdText(views),
    passAtK: multi.length ? mean(multi.map((v) => v.entry.pass_at_k)) : null,
    passHatK: multi.length ? mean(multi.map((v) => v.entry.pass_hat_k)) : null,
    tokens: runs.reduce((n, r) => n + (r.tokens ?? 0), 0),
    latencies: runs.map((r) => r.elapsed_ms),
    toolErrors: runs.reduce((n, r) => n + toolErrorsOf(r).length, 0),
  };
}

function runsTotal(s: Stats): number {
  return s.scored + s.errored + s.unjudged;
}

function toolErrorsOf(run: RunEntry): Array<Extract<SampleTraceStepJson, { kind: 'tool' }>> {
  return (run.trace?.steps ?? []).filter((s): s is Extract<SampleTraceStepJson, { kind: 'tool' }> => s.kind === 'tool' && s.is_error === true);
}

function card(id: string, value: string, label: string, sub = '', cls = ''): string {
  return `<div class="card ${cls}" id="${id}"><b>${esc(value)}</b><span>${esc(label)}</span>${sub ? `<small>${esc(sub)}</small>` : ''}</div>`;
}

function cardsHtml(s: Stats, p: string): string {
  const cards = [
    card(
      `${p}-passrate`,
      percent(s.rate, 1),
      `pass rate (${s.passed}/${s.scored} judged samples)`,
      `95% interval ${percent(s.low)}–${percent(s.high)}`,
      s.scored && s.passed === s.scored ? 'ok' : s.scored ? 'bad' : '',
    ),
    card(`${p}-meeting`, `${s.meeting}/${s.cases}`, 'cases meet the threshold', `threshold ${s.threshold}`, s.meeting === s.cases ? 'ok' : 'bad'),
  ];
  if (s.passAtK !== null) {
    cards.push(card(`${p}-passk`, percent(s.passAtK, 1), 'pass@k (cases with k > 1)', `pass^k ${percent(s.passHatK ?? 0, 1)}: every sample passes`));
  }
  const apart = [s.errored ? `${s.errored} errored (infrastructure)` : '', s.unjudged ? `${s.unjudged} unscorable or incomplete` : ''].filter(Boolean);
  cards.push(
    card(
      `${p}-samples`,
      String(s.scored),
      'samples judged',
      apart.length ? `${apart.join(', ')}: not counted` : 'none left out',
      s.errored || s.unjudged ? 'warn' : '',
    ),
  );
  cards.push(card(`${p}-tokens`, formatInt(s.tokens), 'tokens', runsTotal(s) ? `${formatInt(s.tokens / runsTotal(s))} per sample` : ''));
  cards.push(card(`${p}-latency`, ms(quantile(s.latencies, 0.5)), 'median latency per sample', `p95 ${ms(quantile(s.latencies, 0.95))}`));
  if (s.toolErrors) cards.push(card(`${p}-toolerrors`, String(s.toolErrors), 'tool calls failed', 'see the waterfalls', 'warn'));
  return `<div class="cards">${cards.join('')}</div>`;
}

// ---- waterfall ----

interface WaterfallRow {
  level: 0 | 1 | 2;
  kind: 'turn' | 'llm' | 'tool';
  label: string;
  offset: number;
  duration: number;
  error: boolean;
  body: string;
}

function waterfallRows(trace: SampleTraceJson, calls: readonly ToolCall[]): WaterfallRow[] {
  const turns = new Map<number, SampleTraceStepJson[]>();
  for (const s of trace.steps) turns.set(s.turn, [...(turns.get(s.turn) ?? []), s]);
  const rows: WaterfallRow[] = [];
  for (const [turn, steps] of [...turns].sort(([a], [b]) => a - b)) {
    const start = Math.min(...steps.map((s) => s.offset_ms));
    const end = Math.max(...steps.map((s) => s.offset_ms + s.duration_ms));
    rows.push({
      level: 0,
      kind: 'turn',
      label: `turn ${turn + 1}`,
      offset: start,
      duration: end - start,
      error: steps.some((s) => (s.kind === 'tool' ? s.is_error === true : !!s.error)),
      body: '',
    });
    for (const s of steps) {
      if (s.kind === 'llm') {
        const tokens =
          s.input_tokens !== undefined || s.output_tokens !== undefined ? `${s.input_tokens ?? '?'} in / ${s.output_tokens ?? '?'} out tokens` : '';
        const facts = [s.model, tokens, s.finish_reason ? `finish ${s.finish_reason}` : '', s.tool_calls.length ? `asked for ${s.tool_calls.join(', ')}` : '']
          .filter(Boolean)
          .join(' · ');
        const body =
          (facts ? `<div class="facts">${esc(facts)}</div>` : '') +
          (s.text ? `<div class="k">model text</div><pre class="text">${esc(s.text)}</pre>` : '') +
          (s.error ? `<pre class="err">${esc(`${s.error.code}: ${s.error.message}`)}</pre>` : '');
        rows.push({ level: 1, kind: 'llm', label: `llm ${s.model ?? ''}`.trim(), offset: s.offset_ms, duration: s.duration_ms, error: !!s.error, body });
      } else {
        // A step that is one of the run's calls points at its arguments (`args_call`; stored once).
        const stepArgs = s.arguments ?? (s.args_call !== undefined ? calls[s.args_call]?.arguments : undefined);
        const args =
          stepArgs !== undefined
            ? `<div class="k">arguments</div><pre class="args">${esc(json(stepArgs))}</pre>`
            : '<div class="facts">arguments not captured</div>';
        const result =
          s.result !== undefined
            ? `<div class="k">${s.is_error ? 'error' : 'result'}</div><pre class="${s.is_error ? 'err' : 'result'}">${esc(s.result)}</pre>`
            : s.executed
              ? '<div class="facts">no result recorded</div>'
              : '<div class="facts">captured, not executed (decision mode)</div>';
        // A call past the parallel cap was never run; a mocked result is canned, not the tool's.
        const how = s.dropped
          ? '<div class="facts">dropped: beyond the per-turn parallel cap, not run</div>'
          : s.mocked
            ? '<div class="facts">mocked (tool_mocks)</div>'
            : '';
        const label = s.dropped ? `${s.name} (dropped)` : s.mocked ? `${s.name} (mock)` : s.name;
        rows.push({ level: 2, kind: 'tool', label, offset: s.offset_ms, duration: s.duration_ms, error: s.is_error === true, body: how + args + result });
      }
    }
  }
  return rows;
}

function waterfallHtml(trace: SampleTraceJson | undefined, calls: readonly ToolCall[]): string {
  if (!trace) return '<p class="muted">No trace data in this results file (written before runs kept their timeline).</p>';
  if (trace.steps.length === 0) {
    return `<p class="muted">No model or tool calls recorded (${esc(ms(trace.duration_ms))}).${trace.error ? ` <span class="err">${esc(`${trace.error.code}: ${trace.error.message}`)}</span>` : ''}</p>`;
  }
  const total = Math.max(1, trace.duration_ms, ...trace.steps.map((s) => s.offset_ms + s.duration_ms));
  const rows = waterfallRows(trace, calls).map((r) => {
    const left = (r.offset / total) * 100;
    const width = Math.max(0.6, (r.duration / total) * 100);
    const cls = `wf-row l${r.level} ${r.kind}${r.error ? ' is-error' : ''}`;
    const head =
      `<span class="wf-name">${esc(r.label)}${r.error ? ' <span class="badge fail">error</span>' : ''}</span>` +
      `<span class="wf-track"><span class="wf-bar" style="left:${left.toFixed(2)}%;width:${Math.min(width, 100 - left).toFixed(2)}%"></span></span>` +
      `<span class="wf-dur">${esc(ms(r.duration))}</span>`;
    if (!r.body) return `<div class="${cls}"><div class="wf-head">${head}</div></div>`;
    // Errors are open from the start: a failing tool must be visible without a click.
    return `<details class="${cls}"${r.error ? ' open' : ''}><summary class="wf-head">${head}</summary><div class="wf-body">${r.body}</div></details>`;
  });
  const dropped = trace.dropped_steps ? `<p class="muted">${trace.dropped_steps} further steps not kept.</p>` : '';
  const err = trace.error ? `<pre class="err">${esc(`${trace.error.code}: ${trace.error.message}`)}</pre>` : '';
  return `<div class="waterfall" role="list" aria-label="trace waterfall">${rows.join('')}</div>${dropped}${err}`;
}

function sampleHtml(run: RunEntry, opts: ReportViewOptions): string {
  const category = run.status === 'errored' ? 'errored' : (run.verdict?.category ?? (run.pass ? 'pass' : 'fail'));
  const reason = run.status === 'errored' ? (run.error ? `${run.error.code}: ${run.error.message}` : run.detail) : (run.verdict?.reason ?? run.detail);
  // turnstone and replio samples carry the same text as reason and match detail: say it once.
  const extra = [run.match?.detail, run.detail].filter((d): d is string => !!d && d !== reason && !reason.includes(d) && !d.includes(reason));
  const uniqueExtra = [...new Set(extra)];
  const ref = traceRef(run);
  const link = traceLink(opts.traceUrl, ref);
  const errors = toolErrorsOf(run);
  const facts = [ms(run.elapsed_ms), `${formatInt(run.tokens)} tokens`, `${run.calls.length} tool call${run.calls.length === 1 ? '' : 's'}`];
  if (run.replio && run.replio.accuracy !== null) facts.push(`expected sequence ${run.replio.accuracy === 1 ? 'matched' : 'not matched'}`);
  return (
    `<details class="sample" data-sample="${run.sample}"${run.pass && errors.length === 0 ? '' : ' open'}>` +
    `<summary>sample ${run.sample} ${badge(category)} <span class="facts">${esc(facts.join(' · '))}</span>` +
    (errors.length ? ` <span class="badge fail">${errors.length} tool error${errors.length === 1 ? '' : 's'}</span>` : '') +
    (link
      ? ` <a class="trace-link" href="${esc(link)}" target="_blank" rel="noopener noreferrer">open trace</a>`
      : ref.traceId
        ? ` <span class="facts">trace <code class="trace-id">${esc(ref.traceId)}</code></span>`
        : '') +
    `</summary><p class="reason">${esc(reason)}</p>` +
    uniqueExtra.map((d) => `<p class="muted">${esc(d)}</p>`).join('') +
    waterfallHtml(run.trace, runEntryCalls(run)) +
    `</details>`
  );
}

function rowHtml(v: CaseView, i: number, p: string, opts: ReportViewOptions, ops: ReturnType<typeof opsColumns>): string {
  const cls = v.errored ? 'errored' : v.meetsThreshold ? 'ok' : 'fail';
  const e = v.entry;
  const verdicts = [...new Set(e.runs.map((r) => (r.status === 'errored' ? 'errored' : (r.verdict?.category ?? 'fail'))))];
  const text = [v.caseId, v.reason, v.tool, v.command, v.host, ...e.tags].join(' ').toLowerCase();
  const errors = e.runs.reduce((n, r) => n + toolErrorsOf(r).length, 0);
  const detailId = `${p}-d${i}`;
  return (
    `<tr class="case ${cls}" data-case="${esc(v.caseId)}" data-verdict="${esc(verdicts.join(' '))}" data-tags="${esc(e.tags.join(' '))}" data-text="${esc(text)}">` +
    `<td data-label="Case"><code>${esc(v.caseId)}</code>${e.tags.length ? `<div class="tags">${e.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join('')}</div>` : ''}</td>` +
    `<td data-label="Verdict">${badge(v.verdict)}</td>` +
    `<td data-label="Tool"><code>${esc(v.tool || '–')}</code></td>` +
    (ops.command ? `<td data-label="Command">${esc(v.command || '–')}</td>` : '') +
    (ops.autonomy ? `<td data-label="Autonomy">${esc(v.autonomy || '–')}</td>` : '') +
    (ops.host ? `<td data-label="Host">${esc(v.host || '–')}</td>` : '') +
    `<td data-label="Pass rate" class="rate">${esc(v.passRate)}<small>${esc(`95% ${percent(e.pass_rate_low)}–${percent(e.pass_rate_high)}`)}</small>${passKHtml(e)}</td>` +
    `<td data-label="Reason" class="reason">${esc(v.reason)}${errors ? ` <span class="badge fail">${errors} tool error${errors === 1 ? '' : 's'}</span>` : ''}` +
    `<div><button type="button" class="expand" aria-expanded="false" aria-controls="${detailId}">${e.runs.length} sample${e.runs.length === 1 ? '' : 's'} · trace</button></div></td>` +
    `</tr>` +
    `<tr class="detail" id="${detailId}" data-for="${esc(v.caseId)}" hidden><td colspan="${5 + Number(ops.command) + Number(ops.autonomy) + Number(ops.host)}">${e.runs.map((r) => sampleHtml(r, opts)).join('')}</td></tr>`
  );
}

function byTagHtml(doc: ResultsDocument): string {
  const agg = lastIteration(doc)?.aggregate;
  const tags = Object.entries(agg?.by_tag ?? {});
  if (tags.length === 0) return '';
  const rows = tags.map(([tag, g]) => {
    const { low, high } = wilsonInterval(g.passed_runs, g.runs);
    return `<tr><td data-label="Tag"><button type="button" class="chip" data-filter-tag="${esc(tag)}">${esc(tag)}</button></td><td data-label="Cases">${g.cases_meeting_threshold}/${g.cases} meet</td><td data-label="Pass rate">${esc(percent(g.runs ? g.passed_runs / g.runs : 0))} <small>${esc(`${g.passed_runs}/${g.runs} · 95% ${percent(low)}–${percent(high)}`)}</small></td></tr>`;
  });
  return `<table class="bytag"><caption>By tag</caption><thead><tr><th>Tag</th><th>Cases</th><th>Pass rate (samples)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function chartsHtml(doc: ResultsDocument, views: CaseView[]): string {
  const agg = lastIteration(doc)?.aggregate;
  const charts: string[] = [];
  const tagItems: BarItem[] = Object.entries(agg?.by_tag ?? {}).map(([tag, g]) => {
    const { low, high } = wilsonInterval(g.passed_runs, g.runs);
    return { label: tag, value: g.runs ? g.passed_runs / g.runs : 0, low, high, cls: g.cases_meeting_threshold === g.cases ? 'pass' : 'fail' };
  });
  if (tagItems.length) charts.push(barChart('Pass rate by tag (95% interval)', tagItems, { max: 1, format: (v) => percent(v), id: 'chart-tags' }));
  const cats = categoryCounts(agg?.by_category ?? {});
  if (cats.length)
    charts.push(
      barChart(
        'Samples by verdict',
        cats.map(([c, n]) => ({ label: c, value: n, cls: c === 'pass' ? 'pass' : 'fail' })),
        { format: (v) => String(v), id: 'chart-verdicts' },
      ),
    );
  const top = <T>(xs: T[], key: (x: T) => number): T[] => [...xs].sort((a, b) => key(b) - key(a)).slice(0, 25);
  const perCase = views.map((v) => ({
    id: v.caseId,
    tokens: v.entry.runs.reduce((n, r) => n + r.tokens, 0),
    latency: v.entry.runs.length ? v.entry.runs.reduce((n, r) => n + r.elapsed_ms, 0) / v.entry.runs.length : 0,
  }));
  if (perCase.some((c) => c.tokens > 0))
    charts.push(
      barChart(
        'Tokens per case',
        top(perCase, (c) => c.tokens).map((c) => ({ label: c.id, value: c.tokens })),
        { format: formatInt, id: 'chart-tokens' },
      ),
    );
  if (perCase.some((c) => c.latency > 0))
    charts.push(
      barChart(
        'Mean latency per sample, by case',
        top(perCase, (c) => c.latency).map((c) => ({ label: c.id, value: c.latency })),
        { format: ms, id: 'chart-latency' },
      ),
    );
  return charts.length ? `<div class="charts">${charts.join('')}</div>` : '';
}

function filtersHtml(views: CaseView[], p: string): string {
  const verdicts = [...new Set(views.flatMap((v) => v.entry.runs.map((r) => (r.status === 'errored' ? 'errored' : (r.verdict?.category ?? 'fail')))))].sort();
  const tags = [...new Set(views.flatMap((v) => v.entry.tags))].sort();
  return (
    `<div class="filters" role="search">` +
    `<label>Verdict <select class="f-verdict" id="${p}-f-verdict"><option value="">all</option><option value="!pass">not pass</option>${verdicts.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join('')}</select></label>` +
    `<label>Tag <select class="f-tag" id="${p}-f-tag"><option value="">all</option>${tags.map((t) => `<option value="${esc(t)}">${esc(t)}</option>`).join('')}</select></label>` +
    `<label>Text <input type="search" class="f-text" id="${p}-f-text" placeholder="case, reason, tool…" autocomplete="off"></label>` +
    `<span class="f-count" aria-live="polite">${views.length} of ${views.length} cases</span></div>`
  );
}

/**
 * The report view of one results document as an HTML fragment (a `<section>`), for the HTML file and
 * the console alike.
 *
 * @example container.innerHTML = renderReportView(doc, { traceUrl: 'http://localhost:6006/.../{trace_id}' })
 */
export function renderReportView(doc: ResultsDocument, opts: ReportViewOptions = {}): string {
  const p = opts.idPrefix ?? 'rv';
  const views = caseViews(doc);
  const ops = opsColumns(views);
  const stats = statsOf(doc);
  const title = titleOf(doc);
  const meta = [
    doc.meta.started ? `started ${doc.meta.started}` : '',
    doc.meta.run_id ? `run ${doc.meta.run_id}` : '',
    doc.meta.base_url ? `endpoint ${doc.meta.base_url}` : '',
    doc.meta.tool_mode ? `tool mode ${doc.meta.tool_mode}` : '',
    doc.meta.validate_args ? 'args validated' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const cats = categoryCounts(lastIteration(doc)?.aggregate.by_category ?? {});
  const byVerdict = cats.length
    ? `<div class="byverdict" aria-label="samples by verdict">${cats.map(([c, n]) => `<button type="button" class="chip" data-filter-verdict="${esc(c)}" title="${esc(meaningOf(c))}">${badge(c)} ${n}</button>`).join('')}</div>`
    : '';
  return (
    `<section class="rv" data-view="report" aria-label="${esc(title)}">` +
    `<header class="rv-head"><h1>${esc(title)}</h1><button type="button" class="theme-toggle" aria-label="switch light/dark">Light/dark</button></header>` +
    `<p class="meta">${esc(meta)}</p>` +
    cardsHtml(stats, p) +
    byVerdict +
    chartsHtml(doc, views) +
    byTagHtml(doc) +
    filtersHtml(views, p) +
    `<div class="table-wrap"><table class="cases"><thead><tr><th>Case</th><th>Verdict</th><th>Tool</th>${ops.command ? '<th>Command</th>' : ''}${ops.autonomy ? '<th>Autonomy</th>' : ''}${ops.host ? '<th>Host</th>' : ''}<th>Pass rate</th><th>Reason</th></tr></thead>` +
    `<tbody>${views.map((v, i) => rowHtml(v, i, p, opts, ops)).join('')}</tbody></table></div>` +
    `</section>`
  );
}

function labelOf(doc: ResultsDocument, fallback: string): string {
  return String(doc.meta.label ?? doc.meta.model ?? doc.meta.provider ?? fallback);
}

function delta(a: number, b: number, fmt: (v: number) => string, better: 'up' | 'down'): string {
  const d = b - a;
  if (d === 0 || !Number.isFinite(d)) return '<span class="delta">±0</span>';
  const good = better === 'up' ? d > 0 : d < 0;
  return `<span class="delta ${good ? 'up' : 'down'}">${d > 0 ? '+' : '−'}${esc(fmt(Math.abs(d)))}</span>`;
}

/**
 * Two results documents side by side: summary deltas and per-case pass rates, marking the cases whose
 * 95% intervals do not overlap.
 */
export function renderCompareView(a: { label?: string; doc: ResultsDocument }, b: { label?: string; doc: ResultsDocument }): string {
  let la = a.label ?? labelOf(a.doc, 'A');
  let lb = b.label ?? labelOf(b.doc, 'B');
  if (la === lb) [la, lb] = [`${la} (A)`, `${lb} (B)`];
  const c = compareResults([
    { label: la, doc: a.doc },
    { label: lb, doc: b.doc },
  ]);
  const sa = statsOf(a.doc);
  const sb = statsOf(b.doc);
  const pts = (v: number): string => `${Math.round(v * 100)} pts`;
  const summary =
    `<div class="table-wrap"><table class="cmp-summary"><thead><tr><th></th><th>${esc(la)}</th><th>${esc(lb)}</th><th>Δ</th></tr></thead><tbody>` +
    `<tr><th>pass rate</th><td>${esc(percent(sa.rate, 1))} <small>${esc(`${percent(sa.low)}–${percent(sa.high)}`)}</small></td><td>${esc(percent(sb.rate, 1))} <small>${esc(`${percent(sb.low)}–${percent(sb.high)}`)}</small></td><td>${delta(sa.rate, sb.rate, pts, 'up')}</td></tr>` +
    `<tr><th>cases meeting threshold</th><td>${sa.meeting}/${sa.cases}</td><td>${sb.meeting}/${sb.cases}</td><td>${delta(sa.meeting, sb.meeting, String, 'up')}</td></tr>` +
    `<tr><th>tokens</th><td>${formatInt(sa.tokens)}</td><td>${formatInt(sb.tokens)}</td><td>${delta(sa.tokens, sb.tokens, formatInt, 'down')}</td></tr>` +
    `<tr><th>median latency</th><td>${esc(ms(quantile(sa.latencies, 0.5)))}</td><td>${esc(ms(quantile(sb.latencies, 0.5)))}</td><td>${delta(quantile(sa.latencies, 0.5), quantile(sb.latencies, 0.5), ms, 'down')}</td></tr>` +
    `</tbody></table></div>`;
  const cell = (x: (typeof c.rows)[number]['cells'][number]): string =>
    x
      ? `${badge(x.category)} ${esc(percent(x.passRate))} <small>${esc(`${percent(x.passRateLow)}–${percent(x.passRateHigh)} · k=${x.k}`)}</small>`
      : '<span class="muted">absent</span>';
  const rows = c.rows.map((r) => {
    const d = r.deltas[1] ?? null;
    const sig = r.significant.length > 0;
    return (
      `<tr class="cmp-row${sig ? ' sig' : ''}" data-case="${esc(r.caseId)}"><td data-label="Case"><code>${esc(r.caseId)}</code></td><td data-label="${esc(la)}">${cell(r.cells[0] ?? null)}</td><td data-label="${esc(lb)}">${cell(r.cells[1] ?? null)}</td>` +
      `<td data-label="Δ">${d === null ? '–' : delta(0, d, pts, 'up')}${sig ? ' <span class="sig-mark" title="95% intervals do not overlap">≠ intervals apart</span>' : ''}</td></tr>`
    );
  });
  const flagged = c.rows.filter((r) => r.significant.length > 0).length;
  const chart = barChart(
    'Pass rate per case (A above B, 95% interval)',
    c.rows
      .slice(0, 25)
      .flatMap((r) =>
        r.cells.flatMap((x, i) =>
          x ? [{ label: `${i === 0 ? 'A' : 'B'} ${r.caseId}`, value: x.passRate, low: x.passRateLow, high: x.passRateHigh, cls: i === 0 ? 'a' : 'b' }] : [],
        ),
      ),
    { max: 1, format: (v) => percent(v), id: 'chart-compare' },
  );
  return (
    `<section class="rv" data-view="compare" aria-label="comparison">` +
    `<header class="rv-head"><h1>${esc(`${la} vs ${lb}`)}</h1><button type="button" class="theme-toggle" aria-label="switch light/dark">Light/dark</button></header>` +
    `<p class="meta">${esc(`A: ${titleOf(a.doc)} · B: ${titleOf(b.doc)}`)}</p>` +
    summary +
    `<p class="meta">${flagged} case${flagged === 1 ? '' : 's'} with non-overlapping 95% intervals (marked ≠): a difference the samples can tell apart.</p>` +
    `<div class="charts">${chart}</div>` +
    `<div class="table-wrap"><table class="cases compare"><thead><tr><th>Case</th><th>${esc(la)}</th><th>${esc(lb)}</th><th>Δ pass rate</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>` +
    `</section>`
  );
}

/** Every case entry of the document's last iteration (the console lists them). */
export function caseEntries(doc: ResultsDocument): Array<[string, CaseEntry]> {
  return Object.entries(lastIteration(doc)?.cases ?? {});
}

/** The case's requested pass@k / pass^k values and its gate (`--pass-k`, `gate = "pass@3 >= 0.9"`), if any. */
function passKHtml(entry: CaseEntry): string {
  const bits = [passKText(entry), gateText(entry) && `gate ${gateText(entry)}`].filter(Boolean);
  return bits.length ? `<div class="meta passk">${esc(bits.join(' · '))}</div>` : '';
}
