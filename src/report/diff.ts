// A run against a baseline: which cases flipped, which are new or gone, how verdict categories and pass
// rates moved, and whether the head regressed. Pure over two results documents (the last iteration of each);
// `app/diff.ts` reads the files, `cli/commands/diff.ts` prints. Rendered as a terminal table, Markdown (the
// PR comment's body) or JSON.
import type { CaseEntry, ResultsDocument } from './results.js';
import { escapeCell } from '../core/escape.js';
import { percent } from './_present.js';

import type { DiffFailOn } from './fail-on.js';

export { DIFF_FAIL_ON, type DiffFailOn } from './fail-on.js';

/** What happened to one case between the baseline and the head. */
export type CaseChange = 'regressed' | 'fixed' | 'new' | 'removed' | 'unchanged';

/** One side of a case: what its entry says, reduced to what the diff compares. */
export interface CaseSide {
  passRate: number;
  passRateLow: number;
  passRateHigh: number;
  meetsThreshold: boolean;
  errored: boolean;
  /** Samples per verdict category (`errored` for samples with no verdict). */
  categories: Record<string, number>;
  /** Mean tokens and latency per sample (0 when it ran no sample). */
  tokens: number;
  latencyMs: number;
}

export interface CaseDiff {
  caseId: string;
  change: CaseChange;
  base?: CaseSide;
  head?: CaseSide;
  /** head − base pass rate; null unless both sides exist. */
  passRateDelta: number | null;
  /** Whether the two 95% Wilson intervals overlap (a change inside them may be noise); null unless both sides exist. */
  intervalsOverlap: boolean | null;
  /** The verdict categories whose sample counts differ, e.g. `pass 3→1`, `wrong_tool 0→2`. */
  categoryChanges: Array<{ category: string; base: number; head: number }>;
  tokensDelta: number | null;
  latencyDeltaMs: number | null;
}

export interface ResultsDiff {
  base: { label: string; runId?: string; model?: string | null };
  head: { label: string; runId?: string; model?: string | null };
  cases: CaseDiff[];
  counts: Record<CaseChange, number>;
  /** Cases that count as regressions under `failOn`. */
  regressions: string[];
  failOn: DiffFailOn;
  /** Overall pass rate (judged samples pooled), each side. */
  passRate: { base: number | null; head: number | null };
}

function sideOf(entry: CaseEntry): CaseSide {
  const categories: Record<string, number> = {};
  let tokens = 0;
  let latencyMs = 0;
  for (const run of entry.runs) {
    const cat = run.verdict?.category ?? 'errored';
    categories[cat] = (categories[cat] ?? 0) + 1;
    tokens += run.tokens;
    latencyMs += run.elapsed_ms;
  }
  const n = entry.runs.length || 1;
  return {
    passRate: entry.pass_rate,
    passRateLow: entry.pass_rate_low,
    passRateHigh: entry.pass_rate_high,
    meetsThreshold: entry.meets_threshold,
    errored: entry.errored,
    categories,
    tokens: tokens / n,
    latencyMs: latencyMs / n,
  };
}

function lastCases(doc: ResultsDocument): Record<string, CaseEntry> {
  return doc.iterations[doc.iterations.length - 1]?.cases ?? {};
}

function categoryChanges(base: CaseSide, head: CaseSide): CaseDiff['categoryChanges'] {
  const names = [...new Set([...Object.keys(base.categories), ...Object.keys(head.categories)])].sort();
  return names.map((category) => ({ category, base: base.categories[category] ?? 0, head: head.categories[category] ?? 0 })).filter((c) => c.base !== c.head);
}

function changeOf(base: CaseSide | undefined, head: CaseSide | undefined): CaseChange {
  if (!base) return 'new';
  if (!head) return 'removed';
  if (base.meetsThreshold && !head.meetsThreshold) return 'regressed';
  if (!base.meetsThreshold && head.meetsThreshold) return 'fixed';
  return 'unchanged';
}

function pooledPassRate(cases: Record<string, CaseEntry>): number | null {
  let judged = 0;
  let passed = 0;
  for (const entry of Object.values(cases)) {
    for (const run of entry.runs) {
      const cat = run.verdict?.category;
      if (cat === undefined || cat === 'unscorable' || cat === 'incomplete') continue;
      judged += 1;
      if (cat === 'pass') passed += 1;
    }
  }
  return judged ? passed / judged : null;
}

/**
 * Compare a head results document against a baseline (the last iteration of each).
 * `failOn: 'any'` counts every pass → fail flip as a regression, `'significant'` only flips whose Wilson
 * intervals do not overlap, `'none'` never fails.
 * @example diffResults(base, head, { baseLabel: 'main.json', headLabel: 'pr.json' }).regressions // ['restart-nginx']
 */
export function diffResults(base: ResultsDocument, head: ResultsDocument, opts: { baseLabel: string; headLabel: string; failOn?: DiffFailOn }): ResultsDiff {
  const failOn = opts.failOn ?? 'any';
  const baseCases = lastCases(base);
  const headCases = lastCases(head);
  const ids = [...new Set([...Object.keys(baseCases), ...Object.keys(headCases)])];
  const counts: Record<CaseChange, number> = { regressed: 0, fixed: 0, new: 0, removed: 0, unchanged: 0 };
  const regressions: string[] = [];
  const cases = ids.map((caseId): CaseDiff => {
    const b = baseCases[caseId] ? sideOf(baseCases[caseId]) : undefined;
    const h = headCases[caseId] ? sideOf(headCases[caseId]) : undefined;
    const change = changeOf(b, h);
    counts[change] += 1;
    const both = b !== undefined && h !== undefined;
    const overlap = both ? b.passRateLow <= h.passRateHigh && h.passRateLow <= b.passRateHigh : null;
    if (change === 'regressed' && (failOn === 'any' || (failOn === 'significant' && overlap === false))) regressions.push(caseId);
    const d: CaseDiff = {
      caseId,
      change,
      passRateDelta: both ? h.passRate - b.passRate : null,
      intervalsOverlap: overlap,
      categoryChanges: both ? categoryChanges(b, h) : [],
      tokensDelta: both ? h.tokens - b.tokens : null,
      latencyDeltaMs: both ? h.latencyMs - b.latencyMs : null,
    };
    if (b) d.base = b;
    if (h) d.head = h;
    return d;
  });
  const order: Record<CaseChange, number> = { regressed: 0, fixed: 1, new: 2, removed: 3, unchanged: 4 };
  cases.sort((x, y) => order[x.change] - order[y.change] || x.caseId.localeCompare(y.caseId));
  const sideMeta = (doc: ResultsDocument, label: string): ResultsDiff['base'] => {
    const m: ResultsDiff['base'] = { label };
    if (doc.meta.run_id !== undefined) m.runId = doc.meta.run_id;
    if (doc.meta.model !== undefined) m.model = doc.meta.model;
    return m;
  };
  return {
    base: sideMeta(base, opts.baseLabel),
    head: sideMeta(head, opts.headLabel),
    cases,
    counts,
    regressions,
    failOn,
    passRate: { base: pooledPassRate(baseCases), head: pooledPassRate(headCases) },
  };
}

/** The output formats of `diff`. */
export const DIFF_FORMATS = ['table', 'md', 'json'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];

function points(delta: number | null): string {
  if (delta === null) return '';
  const p = Math.round(delta * 100);
  return p > 0 ? `+${p} pts` : p < 0 ? `−${Math.abs(p)} pts` : '±0 pts';
}

function signedNumber(n: number | null, unit = ''): string {
  if (n === null) return '';
  const r = Math.round(n);
  return r > 0 ? `+${r}${unit}` : r < 0 ? `−${Math.abs(r)}${unit}` : `±0${unit}`;
}

function sideText(s: CaseSide | undefined): string {
  return s ? `${percent(s.passRate)}${s.meetsThreshold ? '' : ' ✗'}` : '—';
}

const CHANGE_LABEL: Record<CaseChange, string> = {
  regressed: 'pass → fail',
  fixed: 'fail → pass',
  new: 'new',
  removed: 'removed',
  unchanged: 'unchanged',
};

function categoriesText(d: CaseDiff): string {
  return d.categoryChanges.map((c) => `${c.category} ${c.base}→${c.head}`).join(', ');
}

function headline(d: ResultsDiff): string {
  const c = d.counts;
  const rate = d.passRate.base === null || d.passRate.head === null ? '' : `; pass rate ${percent(d.passRate.base)} → ${percent(d.passRate.head)}`;
  return `${c.regressed} regressed, ${c.fixed} fixed, ${c.new} new, ${c.removed} removed, ${c.unchanged} unchanged${rate}`;
}

/** The cases worth a row: everything but unchanged cases whose numbers did not move. */
function shownCases(d: ResultsDiff): CaseDiff[] {
  return d.cases.filter((c) => c.change !== 'unchanged' || c.categoryChanges.length > 0 || (c.passRateDelta ?? 0) !== 0);
}

/**
 * Render a diff. Markdown is the pull-request comment's body (a table of the changed cases under a one-line
 * summary); JSON is the {@link ResultsDiff} itself.
 */
export function renderDiff(d: ResultsDiff, format: DiffFormat): string {
  if (format === 'json') return `${JSON.stringify(d, null, 2)}\n`;
  const rows = shownCases(d).map((c) => [
    c.caseId,
    CHANGE_LABEL[c.change],
    sideText(c.base),
    sideText(c.head),
    `${points(c.passRateDelta)}${c.intervalsOverlap === false ? ' *' : ''}`,
    categoriesText(c),
    signedNumber(c.tokensDelta),
    signedNumber(c.latencyDeltaMs, ' ms'),
  ]);
  const header = ['case', 'change', 'base', 'head', 'Δ pass rate', 'verdicts', 'Δ tokens', 'Δ latency'];
  const verdict = d.regressions.length ? `regressed: ${d.regressions.join(', ')}` : 'no regression';
  if (format === 'md') {
    const lines = [`**${headline(d)}** — ${verdict}`, '', `Base \`${d.base.label}\` → head \`${d.head.label}\`.`, ''];
    if (rows.length) {
      lines.push(`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`);
      for (const r of rows) lines.push(`| ${r.map((cell) => escapeCell(cell)).join(' | ')} |`);
      lines.push('', '`*`: the two 95% intervals do not overlap (unlikely to be noise).');
    } else {
      lines.push('No case changed.');
    }
    return `${lines.join('\n')}\n`;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [`${d.base.label} → ${d.head.label}: ${headline(d)}`];
  if (rows.length) out.push('', line(header), ...rows.map(line));
  out.push('', verdict);
  return `${out.join('\n')}\n`;
}
