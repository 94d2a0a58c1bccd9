// Markdown for CI step summaries (GitHub's $GITHUB_STEP_SUMMARY, GitLab MR notes).
import { runEntryTrace, type ResultsDocument, type ResultsInputs, type RunEntry } from './results.js';
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
import { escapeCell, mdCode } from '../core/escape.js';

/** Failing-sample lines listed before the rest is summarised as a count. */
const MAX_FAILING_LINES = 200;

/** ` · trace [0af76519…](url)`, or the bare id without a `trace_url` template. */
function traceRef(r: RunEntry): string {
  const ref = runEntryTrace(r);
  if (!ref) return '';
  const id = ref.traceId;
  const url = ref.url;
  return url ? ` · trace [\`${id.slice(0, 16)}\`](${url.replace(/[()\s]/g, encodeURIComponent)})` : ` · trace ${mdCode(id)}`;
}

function icon(v: CaseView): string {
  return v.errored ? '⚠️' : v.meetsThreshold ? '✅' : '❌';
}

/**
 * Render the results as GitHub-flavoured Markdown: a headline, a per-case table, roll-ups, and
 * every failing sample's reason under a collapsed section.
 *
 * @example appendFileSync(process.env.GITHUB_STEP_SUMMARY, renderMarkdown(doc))
 */
export function renderMarkdown(doc: ResultsDocument): string {
  const views = caseViews(doc);
  const agg = lastIteration(doc)?.aggregate;
  const out: string[] = [`## ${escapeCell(titleOf(doc))}`, ''];
  if (agg) {
    const head = agg.all_meet_threshold ? '✅' : '❌';
    const bits = [
      `${head} **${agg.cases_meeting_threshold}/${agg.total_cases} cases meet the threshold** (${thresholdText(views)})`,
      pooledPassRateText(pooledPassRate(doc)),
    ];
    if (agg.avg_accuracy !== null) bits.push(`expected-sequence accuracy ${percent(agg.avg_accuracy, 1)}`);
    bits.push(`${agg.scored_runs} samples`);
    if (agg.errored_runs > 0) bits.push(`⚠️ ${agg.errored_runs} errored`);
    if (agg.unscorable_runs) bits.push(`${agg.unscorable_runs} unscorable`);
    bits.push(`${formatInt(agg.tokens)} tokens`);
    out.push(bits.join(' · '), '');
  }
  const withK = hasPassK(views);
  // The command, autonomy and host columns appear only when some case uses them.
  const ops = opsColumns(views);
  const opsHead = `${ops.command ? ' Command |' : ''}${ops.autonomy ? ' Autonomy |' : ''}${ops.host ? ' Host |' : ''}`;
  const opsRule = ' --- |'.repeat(Number(ops.command) + Number(ops.autonomy) + Number(ops.host));
  out.push(`| | Case | Verdict | Tool |${opsHead} Pass rate |${withK ? ' pass@k / pass^k | Gate |' : ''} Reason |`);
  out.push(`| --- | --- | --- | --- |${opsRule} --- |${withK ? ' --- | --- |' : ''} --- |`);
  for (const v of views) {
    const k = withK ? ` ${escapeCell(passKText(v.entry))} | ${escapeCell(gateText(v.entry))} |` : '';
    const opsCells = `${ops.command ? ` ${escapeCell(v.command)} |` : ''}${ops.autonomy ? ` ${escapeCell(v.autonomy)} |` : ''}${ops.host ? ` ${escapeCell(v.host)} |` : ''}`;
    out.push(
      `| ${icon(v)} | ${mdCode(v.caseId)} | ${escapeCell(v.verdict)} | ${mdCode(v.tool)} |${opsCells} ${escapeCell(v.passRate)} |${k} ${escapeCell(v.reason)} |`,
    );
  }
  out.push('');
  if (agg) {
    const categories = categoryCounts(agg.by_category);
    if (categories.length) out.push(`**By verdict:** ${categories.map(([c, n]) => `${escapeCell(c)} ${n}`).join(' · ')}`, '');
    const tags = Object.entries(agg.by_tag);
    if (tags.length) {
      out.push(
        `**By tag:** ${tags.map(([t, g]) => `${mdCode(t)} ${g.cases_meeting_threshold}/${g.cases} (${percent(g.runs ? g.passed_runs / g.runs : 0)})`).join(' · ')}`,
        '',
      );
    }
  }
  const failing = views.flatMap((v) =>
    v.entry.runs
      .filter((r) => !r.pass)
      .map(
        (r) =>
          `- ${mdCode(v.caseId)} sample ${r.sample}: ${r.status === 'errored' ? `errored: ${escapeCell(r.error?.message ?? r.detail)}` : `**${escapeCell(r.verdict?.category ?? 'fail')}**: ${escapeCell(r.verdict?.reason ?? r.detail)}`}${traceRef(r)}`,
      ),
  );
  if (failing.length) {
    // GitHub caps a step summary at 1 MiB; a long tail of failures says no more than its count.
    const shown = failing.slice(0, MAX_FAILING_LINES);
    if (failing.length > shown.length) shown.push(`- … and ${failing.length - shown.length} more`);
    out.push(`<details><summary>Failing samples (${failing.length})</summary>`, '', ...shown, '', '</details>', '');
  }
  if (doc.inputs) out.push(...inputsMarkdown(doc.inputs));
  return `${out.join('\n')}`;
}

/** Scored traces only: what was read besides verdicts. */
function inputsMarkdown(i: ResultsInputs): string[] {
  const out = [`**Inputs:** ${escapeCell(inputsHeadline(i))}`, ''];
  const reasons = inputReasons(i);
  if (reasons.length) {
    out.push('**Uninterpretable traces**', '');
    for (const [r, n] of reasons) out.push(`- ${n} × ${escapeCell(r)}`);
    for (const u of (i.uninterpretable_traces ?? []).slice(0, MAX_INPUT_EXAMPLES)) out.push(`- trace ${mdCode(u.trace_id)}: ${escapeCell(u.reason)}`);
    out.push('');
  }
  const unmatched = i.unmatched_traces ?? [];
  if (unmatched.length) {
    out.push(
      `**Unmatched traces** (no case or rule applied): ${unmatched
        .slice(0, MAX_INPUT_EXAMPLES)
        .map((u) => mdCode(u.trace_id))
        .join(' ')}${i.unmatched > MAX_INPUT_EXAMPLES ? ` … and ${i.unmatched - MAX_INPUT_EXAMPLES} more` : ''}`,
      '',
    );
  }
  if (i.problems) {
    out.push(`**Input problems:** ${i.problems}`, '');
    for (const p of (i.problem_examples ?? []).slice(0, MAX_INPUT_EXAMPLES)) out.push(`- ${escapeCell(p.place)}: ${escapeCell(p.reason)}`);
    if (i.problems > MAX_INPUT_EXAMPLES) out.push(`- … and ${i.problems - MAX_INPUT_EXAMPLES} more`);
    out.push('');
  }
  for (const f of i.bad_files ?? []) out.push(`- unreadable: ${escapeCell(f)}`);
  return out;
}
