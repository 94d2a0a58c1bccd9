import { describe, expect, it } from 'vitest';
import { detectJsonDump, replioMetrics } from '../../src/scoring/index.js';
import { makeCase, makeRun } from './_build.js';

describe('replioMetrics', () => {
  const c = makeCase({
    dialect: 'replio',
    mode: 'trajectory',
    replio: { expected: ['glob', 'file_read'], verifier: { mustInclude: ['file_read'], maxCalls: 3 } },
  });

  it('computes trace, names, accuracy, pass, calls, status', () => {
    const m = replioMetrics(
      c,
      makeRun({
        calls: [
          { name: 'glob', arguments: { pattern: '*.py' } },
          { name: 'file_read', arguments: { path: 'a.py' } },
        ],
      }),
    );
    expect(m).toMatchObject({
      trace: [
        { name: 'glob', arguments: { pattern: '*.py' } },
        { name: 'file_read', arguments: { path: 'a.py' } },
      ],
      names: ['glob', 'file_read'],
      accuracy: 1,
      pass: true,
      calls: 2,
      redundant: 0,
      status: 'ok',
    });
  });

  it('gives accuracy 0 when the names differ from expected in any way, and null without expected', () => {
    expect(replioMetrics(c, makeRun({ calls: [{ name: 'file_read' }, { name: 'glob' }] })).accuracy).toBe(0);
    expect(replioMetrics(c, makeRun({ calls: [{ name: 'glob' }, { name: 'file_read' }, { name: 'grep' }] })).accuracy).toBe(0);
    const bare = makeCase({ dialect: 'replio', mode: 'trajectory' });
    expect(replioMetrics(bare, makeRun({ calls: [] }))).toMatchObject({ accuracy: null, pass: null });
  });

  it('counts duplicate calls with canonically equal arguments as redundant', () => {
    const m = replioMetrics(
      c,
      makeRun({
        calls: [
          { name: 'file_read', arguments: { path: 'a', limit: 10 } },
          { name: 'file_read', arguments: { limit: 10, path: 'a' } },
          { name: 'file_read', arguments: { path: 'a', limit: 10 } },
          { name: 'file_read', arguments: { path: 'b', limit: 10 } },
          { name: 'grep', arguments: { path: 'a', limit: 10 } },
        ],
      }),
    );
    expect(m.redundant).toBe(2);
  });

  it('counts engine errors and tool results starting with "Error"', () => {
    const run = makeRun({
      calls: [
        { name: 'file_read', result: 'Error: no such file' },
        { name: 'run_command', result: 'denied', isError: true },
        { name: 'glob', result: 'a.py\nb.py' },
        { name: 'grep', result: 'no Error here' },
      ],
      status: 'error',
      error: { code: 'PROVIDER', message: 'HTTP 500' },
    });
    expect(replioMetrics(c, run).errors).toBe(3);
  });

  it('takes total tokens from usage, else prompt + completion, else the model calls', () => {
    expect(replioMetrics(c, makeRun({ usage: { totalTokens: 120, promptTokens: 1, completionTokens: 1 } })).tokens).toBe(120);
    expect(replioMetrics(c, makeRun({ usage: { promptTokens: 100, completionTokens: 20 } })).tokens).toBe(120);
    const run = makeRun({});
    run.modelCalls = [0, 1].map((index) => ({
      index,
      turn: index,
      startTimeMs: 0,
      endTimeMs: 0,
      provider: 'mock',
      request: { messages: [], tools: [], params: {} },
      usage: { promptTokens: 50, completionTokens: 10 },
    }));
    expect(replioMetrics(c, run).tokens).toBe(120);
  });
});

describe('detectJsonDump', () => {
  it.each([
    { name: 'a bare tool object', text: '{"tool": "bash", "command": "ls"}', dump: true },
    { name: 'an object inside prose', text: 'I would call {"path": "src/app.py"} now.', dump: true },
    { name: 'an OpenAI-style call in a code fence', text: '```json\n{"name": "file_read", "arguments": {"path": "a"}}\n```', dump: true },
    { name: 'a list of calls', text: '[{"tool_name": "grep"}]', dump: true },
    { name: 'braces inside strings', text: '{"note": "a } brace", "command": "x"}', dump: true },
    { name: 'plain prose', text: 'The file has 4 lines.', dump: false },
    { name: 'JSON without call keys', text: '{"lines": 4, "ok": true}', dump: false },
    { name: 'a name without arguments', text: '{"name": "Alice"}', dump: false },
    { name: 'broken JSON', text: '{"tool": "bash", ', dump: false },
    { name: 'nothing', text: undefined, dump: false },
  ])('$name', ({ text, dump }) => {
    expect(detectJsonDump(text)).toBe(dump);
  });

  it('stays bounded on huge brace soup', () => {
    expect(detectJsonDump('{'.repeat(300_000))).toBe(false);
  });
});
