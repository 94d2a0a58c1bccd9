import { describe, expect, it } from 'vitest';
import { loadFixtureText } from '../../src/fixtures/load.js';
import { scoreRun } from '../../src/scoring/verdict.js';
import type { Run, ToolCallRecord } from '../../src/types/run.js';

// max_redundant and allow_tool_errors: opt-in per case; without them replio and turnstone keep the
// seed semantics (redundant calls and tool errors are counted, never a failing verdict).

const rec = (name: string, args: Record<string, unknown>, result: string, isError = false): ToolCallRecord => ({
  turn: 0,
  modelCallIndex: 0,
  call: { id: name, name, arguments: args },
  startTimeMs: 0,
  endTimeMs: 0,
  executed: true,
  result,
  isError,
});
const run = (calls: ToolCallRecord[]): Run => ({
  caseId: 'c',
  sample: 0,
  mode: 'trajectory',
  provider: 'p',
  startTimeMs: 0,
  endTimeMs: 0,
  modelCalls: [],
  toolCalls: calls,
  status: 'ok',
  usage: {},
});
const replio = (extra: Record<string, unknown>) =>
  loadFixtureText(JSON.stringify({ id: 'c', task: 't', expected: ['file_read', 'file_read'], ...extra }), { file: 'c.json' })[0]!.cases[0]!;
const turnstone = (extra: Record<string, unknown>) =>
  loadFixtureText(JSON.stringify({ cases: [{ id: 'c', user_prompt: 't', expected_actions: [{ tool: 'read_file' }], ...extra }] }), { file: 's.json' })[0]!
    .cases[0]!;

const twice = run([rec('file_read', { path: 'a' }, 'x'), rec('file_read', { path: 'a' }, 'x')]);
const failing = run([rec('read_file', { path: 'a' }, 'Error: no such file', true)]);

describe('opt-in checks', () => {
  it('leave the seed semantics alone by default', () => {
    expect(scoreRun(replio({}), twice)).toMatchObject({ pass: true, replio: { redundant: 1 } });
    expect(scoreRun(turnstone({}), failing)).toMatchObject({ pass: true, replio: { errors: 1 } });
  });

  it('max_redundant fails a run with more repeated calls than allowed (redundant_call)', () => {
    expect(scoreRun(replio({ max_redundant: 0 }), twice)).toMatchObject({
      pass: false,
      category: 'redundant_call',
      reason: '1 redundant call (same tool, same arguments), at most 0 allowed',
    });
    expect(scoreRun(replio({ max_redundant: 1 }), twice).pass).toBe(true);
  });

  it('allow_tool_errors = false fails a run with a failed tool call (tool_error)', () => {
    expect(scoreRun(turnstone({ allow_tool_errors: false }), failing)).toMatchObject({ pass: false, category: 'tool_error' });
    expect(scoreRun(turnstone({ allow_tool_errors: true }), failing).pass).toBe(true);
  });
});
