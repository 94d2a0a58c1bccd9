// String attributes over 1,000,000 characters used to be cut silently: a large gen_ai.input.messages lost
// its prompt and the trace no longer matched its case, with nothing said. Now the cut is an input problem
// naming trace, span and attribute, and the verdict names the checks it affected.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreTraceFiles } from '../../src/traces/pipeline.js';
import { parseRulesText } from '../../src/traces/rules.js';
import type { TraceOutcome } from '../../src/traces/score-traces.js';
import { MAX_ATTRIBUTE_CHARS } from '../../src/traces/spans.js';
import { request, span, spanId, traceId } from './_otlp.js';

describe('attributes over the size limit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-oversize-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the cut attribute as an input problem and names the affected checks on the verdict', async () => {
    const huge = JSON.stringify({ path: 'x'.repeat(MAX_ATTRIBUTE_CHARS + 10) });
    writeFileSync(
      join(dir, 't.jsonl'),
      JSON.stringify(
        request([
          span({ trace: 1, id: 1, name: 'invoke_agent ops', start: 0, end: 50, attrs: { 'gen_ai.operation.name': 'invoke_agent' } }),
          span({
            trace: 1,
            id: 2,
            parent: 1,
            name: 'execute_tool file_write',
            start: 1,
            end: 2,
            attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'file_write', 'gen_ai.tool.call.arguments': huge },
          }),
        ]),
      ) + '\n',
    );
    const outcomes: TraceOutcome[] = [];
    const rules = parseRulesText('[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n', 'rules.toml');
    const summary = await scoreTraceFiles([join(dir, 't.jsonl')], { cwd: dir, rules, onOutcome: (o) => outcomes.push(o) });
    expect(summary.inputProblems).toBe(1);
    expect(summary.inputProblemExamples[0]!.reason).toBe(
      `trace ${traceId(1)} span ${spanId(2)}: attribute gen_ai.tool.call.arguments cut at ${MAX_ATTRIBUTE_CHARS} characters (it had ${huge.length}); the verdict names the checks it affects`,
    );
    const line = outcomes[0]?.kind === 'scored' ? outcomes[0].lines[0] : undefined;
    expect(line?.reason).toContain(`input problem: attribute gen_ai.tool.call.arguments of span ${spanId(2)} was cut at ${MAX_ATTRIBUTE_CHARS} characters`);
    expect(line?.reason).toContain('affecting the tool calls and their arguments');
  });
});
