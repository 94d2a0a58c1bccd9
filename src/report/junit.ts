// JUnit XML for CI systems: one <testsuite> per suite, one <testcase> per case; a case below its
// threshold is a <failure> whose message is the reason; a case with no scored sample is an <error>.
import { runEntryTrace, type ResultsDocument, type ResultsInputs, type RunEntry } from './results.js';
import { caseViews, inputsHeadline, type CaseView } from './_present.js';
import { escapeAttr, escapeXml } from '../core/escape.js';

function seconds(view: CaseView): number {
  return view.entry.runs.reduce((sum, r) => sum + r.elapsed, 0);
}

/** pass@k / pass^k and the gate as <properties> of the testcase (GitLab and Jenkins show them). */
function properties(view: CaseView): string[] {
  const props: Array<[string, string]> = [
    ['trace_id', view.traceId],
    ['trace_url', view.traceUrl],
  ].filter((p): p is [string, string] => p[1] !== undefined);
  for (const p of view.entry.pass_k ?? []) {
    props.push([`pass@${p.k}`, p.pass_at === null ? 'n/a' : String(p.pass_at)]);
    props.push([`pass^${p.k}`, p.pass_hat === null ? 'n/a' : String(p.pass_hat)]);
  }
  if (view.entry.gate) {
    props.push(['gate', view.entry.gate.text]);
    props.push(['gate.value', view.entry.gate.value === null ? 'n/a' : String(view.entry.gate.value)]);
    props.push(['gate.met', String(view.entry.gate.met)]);
  }
  if (props.length === 0) return [];
  return ['      <properties>', ...props.map(([n, v]) => `        <property name="${escapeAttr(n)}" value="${escapeAttr(v)}"/>`), '      </properties>'];
}

function traceNote(r: RunEntry): string {
  const ref = runEntryTrace(r);
  return ref ? ` (trace ${ref.traceId})` : '';
}

function sampleLines(view: CaseView): string {
  return view.entry.runs
    .map((r) =>
      r.status === 'errored'
        ? `sample ${r.sample}: errored: ${r.error ? `${r.error.code}: ${r.error.message}` : r.detail}${traceNote(r)}`
        : `sample ${r.sample}: ${r.verdict?.category ?? (r.pass ? 'pass' : 'fail')}: ${r.verdict?.reason ?? r.detail}${traceNote(r)}`,
    )
    .join('\n');
}

/**
 * Render the results as JUnit XML (the Ant/Surefire dialect GitHub, GitLab and Jenkins read).
 *
 * @example writeFileSync('junit.xml', renderJUnit(doc))
 */
export function renderJUnit(doc: ResultsDocument): string {
  const views = caseViews(doc);
  const suites = new Map<string, CaseView[]>();
  for (const v of views) {
    const name = v.suite ?? String(doc.meta.test_suite ?? 'runspec-eval');
    suites.set(name, [...(suites.get(name) ?? []), v]);
  }
  const failuresOf = (list: CaseView[]): number => list.filter((v) => !v.errored && !v.meetsThreshold).length;
  const errorsOf = (list: CaseView[]): number => list.filter((v) => v.errored).length;
  const timeOf = (list: CaseView[]): string => list.reduce((s, v) => s + seconds(v), 0).toFixed(3);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const inputs = doc.inputs ? inputsSuite(doc.inputs) : undefined;
  out.push(
    `<testsuites name="runspec-eval" tests="${views.length + (inputs?.tests ?? 0)}" failures="${failuresOf(views)}" errors="${errorsOf(views) + (inputs?.errors ?? 0)}" time="${timeOf(views)}">`,
  );
  for (const [name, list] of suites) {
    out.push(
      `  <testsuite name="${escapeAttr(name)}" tests="${list.length}" failures="${failuresOf(list)}" errors="${errorsOf(list)}" skipped="0" time="${timeOf(list)}">`,
    );
    const target = doc.meta.target;
    if (target && (target.kind !== 'model' || target.name !== doc.meta.provider))
      out.push(
        `    <properties><property name="target" value="${escapeAttr(target.name)}"/><property name="target.kind" value="${escapeAttr(target.kind)}"/></properties>`,
      );
    for (const v of list) {
      const open = `    <testcase classname="${escapeAttr(name)}" name="${escapeAttr(v.caseId)}" time="${seconds(v).toFixed(3)}"`;
      const summary = v.entry.gate
        ? `pass rate ${v.passRate} (gate ${v.entry.gate.text})`
        : `pass rate ${v.passRate} (threshold ${v.entry.threshold.toFixed(2)})`;
      const props = properties(v);
      if (v.errored) {
        out.push(`${open}>`, ...props);
        out.push(`      <error message="${escapeAttr(v.reason)}" type="errored">${escapeXml(sampleLines(v))}</error>`);
        out.push('    </testcase>');
      } else if (!v.meetsThreshold) {
        out.push(`${open}>`, ...props);
        out.push(
          `      <failure message="${escapeAttr(`${v.verdict}: ${v.reason}`)}" type="${escapeAttr(v.verdict)}">${escapeXml(`${summary}\n${sampleLines(v)}`)}</failure>`,
        );
        out.push('    </testcase>');
      } else {
        out.push(`${open}>`, ...props);
        out.push(`      <system-out>${escapeXml(`${summary}\n${sampleLines(v)}`)}</system-out>`);
        out.push('    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  if (inputs) out.push(...inputs.lines);
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * Scored traces only: an `inputs` testsuite. Each uninterpretable trace is an <error> testcase, each
 * unmatched trace a <skipped> one; input problems go to its <system-err>. Nothing of note: no suite.
 */
function inputsSuite(i: ResultsInputs): { tests: number; errors: number; lines: string[] } | undefined {
  const uninterpretable = i.uninterpretable_traces ?? [];
  const unmatched = i.unmatched_traces ?? [];
  const tests = uninterpretable.length + unmatched.length;
  if (tests === 0 && i.problems === 0 && !i.bad_files?.length) return undefined;
  const lines = [`  <testsuite name="inputs" tests="${tests}" failures="0" errors="${uninterpretable.length}" skipped="${unmatched.length}" time="0.000">`];
  for (const u of uninterpretable)
    lines.push(
      `    <testcase classname="uninterpretable" name="trace ${escapeAttr(u.trace_id)}" time="0.000"><error message="${escapeAttr(u.reason)}" type="uninterpretable"/></testcase>`,
    );
  for (const u of unmatched)
    lines.push(
      `    <testcase classname="unmatched" name="trace ${escapeAttr(u.trace_id)}" time="0.000"><skipped message="no case or rule applied"/></testcase>`,
    );
  const problems = (i.problem_examples ?? []).map((p) => `${p.place}: ${p.reason}`);
  if (i.problems > problems.length) problems.push(`… and ${i.problems - problems.length} more`);
  for (const f of i.bad_files ?? []) problems.push(`unreadable: ${f}`);
  lines.push(`    <system-out>${escapeXml(inputsHeadline(i))}</system-out>`);
  if (problems.length) lines.push(`    <system-err>${escapeXml(`input problems: ${i.problems}\n${problems.join('\n')}`)}</system-err>`);
  lines.push('  </testsuite>');
  return { tests, errors: uninterpretable.length, lines };
}
