// What every renderer shows for a case: the verdict of its representative sample (the first failing
// scored sample, else the first scored one), its observed tool/command/autonomy/host, and the pass rate.
import type { CaseEntry, ResultsDocument, ResultsInputs, ResultsIteration, RunEntry } from './results-schema.js';
import { runEntryTrace } from './results-decode.js';
import type { VerdictCategory } from '../types/verdict.js';
import { isUnjudgedCategory, wilsonInterval } from '../scoring/samples.js';

export interface CaseView {
  caseId: string;
  suite: string | null;
  entry: CaseEntry;
  /** The representative sample; undefined when every sample errored. */
  sample: RunEntry | undefined;
  /** A verdict category, or `errored` when nothing was scored. */
  verdict: string;
  tool: string;
  command: string;
  autonomy: string;
  host: string;
  /** "2/3 67%". */
  passRate: string;
  reason: string;
  meetsThreshold: boolean;
  /** No sample was scored (infrastructure failure only). */
  errored: boolean;
  /** The representative sample's trace, and its link when `[telemetry] trace_url` is set. */
  traceId?: string;
  traceUrl?: string;
}

/** A sample that counts in the pass rate (scored, and neither unscorable nor incomplete). */
export function isJudgedRun(r: RunEntry): boolean {
  // The document's verdict is nullable: a scored entry without one counts on its pass field.
  return r.status === 'scored' && (!r.verdict || !isUnjudgedCategory(r.verdict.category));
}

/** The headline pass rate every report shows: judged samples pooled over all cases, with its 95% Wilson interval. */
export interface PooledPassRate {
  passed: number;
  judged: number;
  /** passed / judged; 0 when nothing was judged. */
  rate: number;
  low: number;
  high: number;
}

/**
 * The headline pass rate of the last iteration: passed / judged samples over every case (errored,
 * unscorable and incomplete samples left out), not the mean of the case pass rates, so a case with many
 * samples weighs as many samples. Terminal, Markdown and HTML all show this one number.
 */
export function pooledPassRate(doc: ResultsDocument): PooledPassRate {
  const runs = Object.values(lastIteration(doc)?.cases ?? {}).flatMap((e) => e.runs);
  const judged = runs.filter(isJudgedRun);
  const passed = judged.filter((r) => r.pass).length;
  const { low, high } = wilsonInterval(passed, judged.length);
  return { passed, judged: judged.length, rate: judged.length ? passed / judged.length : 0, low, high };
}

/** The headline pass rate as text: `pass rate 80.6% (25/31 judged samples, 95% interval 63%–91%)`. */
export function pooledPassRateText(p: PooledPassRate): string {
  return `pass rate ${percent(p.rate, 1)} (${p.passed}/${p.judged} judged samples, 95% interval ${percent(p.low)}–${percent(p.high)})`;
}

/** The iteration reports show: the last one. */
export function lastIteration(doc: ResultsDocument): ResultsIteration | undefined {
  return doc.iterations[doc.iterations.length - 1];
}

export function percent(rate: number, digits = 0): string {
  return `${(rate * 100).toFixed(digits)}%`;
}

export function passRateText(entry: CaseEntry): string {
  const scored = entry.runs.filter(isJudgedRun);
  const passed = scored.filter((r) => r.pass).length;
  if (scored.length === 0) return `0/0`;
  return `${passed}/${scored.length} ${percent(entry.pass_rate)}`;
}

/** The trace id and link of the sample a case row shows (an errored sample's exported trace too). */
function traceOfView(r: RunEntry | undefined): { traceId?: string; traceUrl?: string } {
  const ref = r ? runEntryTrace(r) : undefined;
  if (!ref) return {};
  return { traceId: ref.traceId, ...(ref.url ? { traceUrl: ref.url } : {}) };
}

export function caseViews(doc: ResultsDocument): CaseView[] {
  const it = lastIteration(doc);
  if (!it) return [];
  return Object.entries(it.cases).map(([caseId, entry]) => {
    const scored = entry.runs.filter((r) => r.status === 'scored' && r.verdict);
    const sample = scored.find((r) => !r.pass) ?? scored[0];
    const errored = scored.length === 0;
    const firstError = entry.runs.find((r) => r.status === 'errored');
    const observed = sample?.verdict?.observed ?? {};
    let reason = sample?.verdict?.reason ?? (firstError?.error ? `${firstError.error.code}: ${firstError.error.message}` : 'no samples');
    if (!errored && entry.errored_runs > 0) reason += ` (${entry.errored_runs} sample${entry.errored_runs === 1 ? '' : 's'} errored)`;
    // The row shows a failing sample's verdict; say why the case still meets its threshold beside it.
    if (!errored && entry.meets_threshold && sample && !sample.pass) {
      reason = `meets threshold ${entry.threshold.toFixed(2)} at ${percent(entry.pass_rate)}; a failing sample: ${reason}`;
    }
    return {
      caseId,
      suite: entry.suite,
      entry,
      sample,
      verdict: errored ? 'errored' : sample!.verdict!.category,
      tool: observed.tool ?? '',
      command: observed.command ?? '',
      autonomy: observed.autonomy ?? '',
      host: observed.host ?? '',
      passRate: passRateText(entry),
      reason,
      meetsThreshold: entry.meets_threshold,
      errored,
      ...traceOfView(sample ?? firstError),
    };
  });
}

/** A pass@k / pass^k value with three decimals, or "n/a" where k exceeds the scored samples. */
export function kValue(v: number | null): string {
  return v === null ? 'n/a' : v.toFixed(3);
}

/** Whether any case reports pass@k values or a gate (the renderers add their columns only then). */
export function hasPassK(views: readonly CaseView[]): boolean {
  return views.some((v) => (v.entry.pass_k?.length ?? 0) > 0 || !!v.entry.gate);
}

/** "pass@1 0.400 · pass@3 0.900 · pass^3 0.000" for one case ("" when none was asked for). */
export function passKText(entry: CaseEntry): string {
  const ks = entry.pass_k ?? [];
  return [...ks.map((p) => `pass@${p.k} ${kValue(p.pass_at)}`), ...ks.map((p) => `pass^${p.k} ${kValue(p.pass_hat)}`)].join(' · ');
}

/** "pass@3 >= 0.9: 0.900 met" for a case with a gate, else "". */
export function gateText(entry: CaseEntry): string {
  const g = entry.gate;
  if (!g) return '';
  return `${g.text}: ${kValue(g.value)} ${g.met ? 'met' : 'not met'}`;
}

/** The threshold line: one value when all cases share it, else a range. */
export function thresholdText(views: readonly CaseView[]): string {
  const values = [...new Set(views.map((v) => v.entry.threshold))].sort((a, b) => a - b);
  if (values.length === 0) return 'n/a';
  if (values.length === 1) return values[0]!.toFixed(2);
  return `${values[0]!.toFixed(2)}–${values[values.length - 1]!.toFixed(2)}`;
}

/** Non-zero categories, most frequent first, then by name. */
export function categoryCounts(byCategory: Record<string, number>): Array<[string, number]> {
  return Object.entries(byCategory)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
}

export function formatInt(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Which of the operations columns (command, autonomy, host) a report shows: only those some case uses,
 * so a generic toolset's report is not padded with empty ops columns.
 */
export function opsColumns(views: readonly CaseView[]): { command: boolean; autonomy: boolean; host: boolean } {
  return { command: views.some((v) => v.command !== ''), autonomy: views.some((v) => v.autonomy !== ''), host: views.some((v) => v.host !== '') };
}

/** A one-line title: suite and model when the meta says them. */
export function titleOf(doc: ResultsDocument): string {
  const parts = ['runspec-eval'];
  if (doc.meta.label) parts.push(String(doc.meta.label));
  if (doc.meta.test_suite) parts.push(String(doc.meta.test_suite));
  const target = doc.meta.target;
  // An agent target has no model of ours: the target is what was tested.
  if (target && target.kind !== 'model') {
    parts.push(`target ${target.name} (${target.kind})`);
    return parts.join(' · ');
  }
  const model = doc.meta.model ? `${doc.meta.model}${doc.meta.provider ? ` (${doc.meta.provider})` : ''}` : doc.meta.provider;
  if (model) parts.push(model);
  if (target && target.name !== doc.meta.provider) parts.push(`target ${target.name} (model)`);
  return parts.join(' · ');
}

/** What each verdict means (docs/verdicts.md), shown as tooltips and legends. A new category fails the build here. */
export const VERDICT_MEANINGS: Record<VerdictCategory, string> = {
  pass: 'The expected tool, with the expected args (and, if enabled, no preflight bounce).',
  wrong_tool: 'The model ran a different runnable than expected.',
  wrong_command: 'Right runnable, wrong subcommand/verb.',
  wrong_host: 'Right runnable, wrong host or host group.',
  wrong_args: 'An expected arg was missing or had the wrong value.',
  wrong_autonomy: 'The call would gate at a different level than expected.',
  no_run: 'Expected a runnable call, but the model produced none.',
  unexpected_run: 'A negative case: the model acted instead of asking.',
  forbidden_tool: 'The model ran a tool the case forbids.',
  missing_required: 'The preflight validator would bounce the call: a required arg is missing.',
  unknown_arg: 'The preflight validator would bounce the call: an arg the runnable does not take.',
  bad_choice: 'The preflight validator would bounce the call: a value outside the choices or of the wrong type.',
  out_of_range: 'The preflight validator would bounce the call: a value outside its range.',
  bad_command: 'The preflight validator would bounce the call: no such subcommand, or one is required.',
  wrong_sequence: 'The tool-call sequence differs from the expected one, or expected actions are unmatched.',
  missing_tool: 'A tool the verifier requires was never called.',
  too_many_calls: 'More tool calls than the verifier allows.',
  too_few_calls: 'Fewer tool calls than the verifier requires.',
  redundant_call: 'The same call (name and arguments) was repeated.',
  json_dump: 'The model wrote a tool call as JSON text instead of calling the tool.',
  tool_error: 'A tool call failed.',
  error: 'The run itself failed or was cancelled.',
  unscorable:
    'A check the case needs could not be judged: the data it needs (arguments, an attribute) is not on the trace. Not a failure; left out of pass rates.',
  incomplete: 'The trace never became whole (parents of some spans never arrived); judged on what arrived.',
};

/** The meaning of a category, or of `errored` (no scored sample). */
export function meaningOf(category: string): string {
  if (category === 'errored') return 'Every sample failed for infrastructure reasons (provider, network); not counted as a failure.';
  return (VERDICT_MEANINGS as Record<string, string>)[category] ?? category;
}

/** Examples of each kind of input listed before the rest is summarised as a count. */
export const MAX_INPUT_EXAMPLES = 10;

/** The inputs section's headline: `traces 5 · unmatched 1 · uninterpretable 1 · input problems 2 …`. */
export function inputsHeadline(i: ResultsInputs): string {
  const bits = [`traces ${i.traces}`, `unmatched ${i.unmatched}`, `uninterpretable ${i.uninterpretable}`, `input problems ${i.problems}`];
  if (i.superseded) bits.push(`superseded ${i.superseded}`);
  if (i.evicted_traces || i.dropped_spans || i.late_records)
    bits.push(`evicted traces ${i.evicted_traces ?? 0}`, `dropped spans ${i.dropped_spans ?? 0}`, `late spans/records ${i.late_records ?? 0}`);
  if (i.bad_files?.length) bits.push(`unreadable files ${i.bad_files.length}`);
  return bits.join(' · ');
}

/** Uninterpretable reasons, most frequent first. */
export function inputReasons(i: ResultsInputs): Array<[string, number]> {
  return Object.entries(i.uninterpretable_reasons ?? {}).sort((a, b) => b[1] - a[1]);
}
