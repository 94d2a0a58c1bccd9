// The OpenInference OpenAI instrumentation merges streamed parallel tool calls into one call with the names
// and the arguments concatenated. Scored as recorded, the trace showed one unknown tool with unparseable
// arguments (wrong_sequence, and a forbidden read_file went unflagged).
import { describe, expect, it } from 'vitest';
import { createTraceScorer } from '../../src/traces/score-traces.js';
import { parseRulesText } from '../../src/traces/rules.js';
import { recoverMergedCalls, splitConcatenatedJson } from '../../src/traces/producers/openinference.js';
import type { ArgExpectation } from '../../src/types/index.js';
import { makeCase } from '../scoring/_build.js';
import { one, request, span } from './_otlp.js';

const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });
const tools = (names: string[]) =>
  Object.fromEntries(
    names.map((n, i) => [`llm.tools.${i}.tool.json_schema`, JSON.stringify({ type: 'function', function: { name: n, parameters: { type: 'object' } } })]),
  );

function merged(name: string, args: string) {
  return request([
    span({ trace: 60, id: 1, name: 'agent', start: 0, end: 50, attrs: { 'openinference.span.kind': 'AGENT' } }),
    span({
      trace: 60,
      id: 2,
      parent: 1,
      name: 'ChatCompletion',
      start: 1,
      end: 10,
      attrs: {
        'openinference.span.kind': 'LLM',
        ...tools(['search_files', 'read_file', 'search']),
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'find the entry point and read it',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': name,
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': args,
      },
    }),
  ]);
}

describe('garbled OpenInference parallel calls', () => {
  const c = makeCase({
    id: 'find-and-read',
    dialect: 'turnstone',
    mode: 'trajectory',
    match: { prompt: 'entry point' },
    turnstone: {
      actions: [
        { tool: 'search_files', args: { pattern: eq('*.ts') } },
        { tool: 'read_file', args: { path: eq('src/index.ts') } },
      ],
      matchMode: 'ordered_subset',
    },
  });
  const rules = parseRulesText('[[rule]]\nname = "no-reads"\nforbid_tools = ["read_file"]\n', 'rules.toml');
  const scorer = createTraceScorer({ cases: [c], rules });

  it('splits the merged call back by offered tool names and JSON boundaries, and says so', () => {
    const out = scorer.score(one(merged('search_filesread_file', '{"pattern":"*.ts"}{"path":"src/index.ts"}')));
    if (out.kind !== 'scored') throw new Error(out.reason);
    // Requested only: no tool span and no result in a later history, so not claimed to have run.
    expect(out.lines[0]!.calls).toEqual([
      { id: 'call_1', name: 'search_files', arguments: { pattern: '*.ts' }, executed: false, reconstructed: true },
      { id: 'call_1#1', name: 'read_file', arguments: { path: 'src/index.ts' }, executed: false, reconstructed: true },
    ]);
    expect(out.lines.map((l) => [l.case ?? l.rule, l.category])).toEqual([
      ['find-and-read', 'pass'],
      ['no-reads', 'forbidden_tool'],
    ]);
    for (const l of out.lines) expect(l.reason).toContain('2 tool calls reconstructed from one merged call');
  });

  it('leaves a call alone when it does not split cleanly', () => {
    expect(recoverMergedCalls([{ name: 'search_filesxyz', arguments: { _raw: '{"a":1}{"b":2}' } }], ['search_files', 'read_file'])).toEqual([
      { name: 'search_filesxyz', arguments: { _raw: '{"a":1}{"b":2}' } },
    ]);
    expect(recoverMergedCalls([{ name: 'search_filesread_file', arguments: { _raw: '{"a":1}' } }], ['search_files', 'read_file'])[0]!.name).toBe(
      'search_filesread_file',
    );
    expect(splitConcatenatedJson('{"a":"}{"}{"b":[1,{"c":2}]}')).toEqual([{ a: '}{' }, { b: [1, { c: 2 }] }]);
    expect(splitConcatenatedJson('{"a":1} x {"b":2}')).toBeUndefined();
  });
});
