// The completion rule of `score` over files: a trace is judged as soon as it is whole, whatever the batching
// of spans into lines; children that come later re-open it for a superseding verdict, and only the final
// verdict counts. (It used to be judged after 1,000 quiet lines, so verdicts depended on file layout.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreTraceFiles } from '../../src/traces/pipeline.js';
import { parseRulesText } from '../../src/traces/rules.js';
import type { TraceOutcome } from '../../src/traces/score-traces.js';
import type { OtlpSpan } from '../../src/traces/otlp-types.js';
import { request, span } from './_otlp.js';

const rules = parseRulesText('[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n', 'rules.toml');
const tool = (t: number, id: number, name: string, start: number): OtlpSpan =>
  span({
    trace: t,
    id,
    parent: 1,
    name: `execute_tool ${name}`,
    start,
    end: start + 1,
    attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name },
  });
const root = (t: number): OtlpSpan =>
  span({ trace: t, id: 1, name: 'invoke_agent ops', start: 0, end: 50, attrs: { 'gen_ai.operation.name': 'invoke_agent' } });

async function score(lines: OtlpSpan[][]) {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-completion-'));
  writeFileSync(join(dir, 't.jsonl'), lines.map((spans) => JSON.stringify(request(spans))).join('\n') + '\n');
  const outcomes: TraceOutcome[] = [];
  const summary = await scoreTraceFiles([join(dir, 't.jsonl')], { cwd: dir, rules, onOutcome: (o) => outcomes.push(o) });
  const verdicts = outcomes.map((o) => (o.kind === 'scored' ? [o.traceId.slice(-2), o.lines[0]!.category, o.supersedes === true] : [o.traceId, o.kind]));
  return { verdicts, summary };
}

describe('completion rule over files', () => {
  const spans = [tool(1, 2, 'service_status', 1), tool(2, 2, 'service_restart', 1), root(1), root(2)];

  it('gives the same final verdicts whether spans share a line or not', async () => {
    const together = await score([spans]);
    const apart = await score(spans.map((s) => [s]));
    expect(together.verdicts).toEqual([
      ['01', 'pass', false],
      ['02', 'forbidden_tool', false],
    ]);
    expect(apart.verdicts).toEqual(together.verdicts);
    expect([apart.summary.passed, apart.summary.failed]).toEqual([1, 1]);
  });

  // Files used to give a pass, then a superseding forbidden_tool line: two lines, the first one wrong.
  it('joins a late child within the window before judging: one final verdict per trace flags the forbidden call', async () => {
    const { verdicts, summary } = await score([
      [tool(1, 2, 'service_status', 1), root(1)],
      [tool(2, 2, 'service_status', 1), root(2)],
      [tool(1, 3, 'service_restart', 5)],
    ]);
    expect(verdicts).toEqual([
      ['02', 'pass', false],
      ['01', 'forbidden_tool', false],
    ]);
    expect(summary).toMatchObject({ traces: 2, passed: 1, failed: 1, reopenedTraces: 0 });
  });

  it('judges a trace whose parent never arrives as incomplete at the end of input', async () => {
    const orphan = span({ trace: 3, id: 3, parent: 2, name: 'execute_tool service_status', start: 1, end: 2, attrs: { 'gen_ai.tool.name': 'service_status' } });
    const { verdicts, summary } = await score([[root(3), orphan]]);
    expect(verdicts).toEqual([['03', 'incomplete', false]]);
    expect(summary).toMatchObject({ traces: 1, unscorable: 1, failed: 0, passed: 0 });
  });

  it('says what a rule on an incomplete trace could and could not check, never that it holds', async () => {
    const orphan = span({ trace: 4, id: 3, parent: 2, name: 'execute_tool service_status', start: 1, end: 2, attrs: { 'gen_ai.tool.name': 'service_status' } });
    const dir = mkdtempSync(join(tmpdir(), 'runspec-completion-'));
    writeFileSync(join(dir, 't.jsonl'), JSON.stringify(request([root(4), orphan])) + '\n');
    const mixed = parseRulesText('[[rule]]\nname = "lean"\nforbid_tools = ["service_restart"]\nmax_redundant = 0\n', 'rules.toml');
    const outcomes: TraceOutcome[] = [];
    await scoreTraceFiles([join(dir, 't.jsonl')], { cwd: dir, rules: mixed, onOutcome: (o) => outcomes.push(o) });
    const line = outcomes[0]?.kind === 'scored' ? outcomes[0].lines[0] : undefined;
    expect(line?.category).toBe('incomplete');
    expect(line?.reason).not.toMatch(/holds/);
    expect(line?.reason).toMatch(/no fault found on what arrived by forbid_tools, max_redundant/);
    expect(line?.reason).toMatch(/the spans that never arrived could not be checked/);
  });
});
