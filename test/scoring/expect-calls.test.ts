import { describe, expect, it } from 'vitest';
import { scoreRun } from '../../src/scoring/index.js';
import type { Case } from '../../src/types/index.js';
import { makeCase, makeRun } from './_build.js';

const weather = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
};

function caseWith(equality: 'tolerant' | 'bfcl'): Case {
  return makeCase({
    runspec: {
      calls: [
        { tool: 'get_weather', args: { city: ['Paris'], days: [2, ''] } },
        { tool: 'get_weather', args: { city: ['Oslo'], days: [''] } },
      ],
      equality,
    },
    tools: [weather],
  });
}

describe('expect_calls', () => {
  it('tolerant mode: "2" equals 2, case-insensitive strings, any order', () => {
    const run = makeRun({
      terminal: true,
      calls: [
        { name: 'get_weather', arguments: { city: 'oslo' } },
        { name: 'get_weather', arguments: { city: ' PARIS ', days: '2' } },
      ],
    });
    expect(scoreRun(caseWith('tolerant'), run)).toMatchObject({ pass: true, category: 'pass' });
    // BFCL: "2" for an integer is a type error; "PARIS " normalises to "paris" (spaces dropped).
    expect(scoreRun(caseWith('bfcl'), run)).toMatchObject({ pass: false, category: 'wrong_args' });
  });

  it('a trace without captured arguments is not checkable, never a failure', () => {
    const run = makeRun({
      terminal: true,
      calls: [
        { name: 'get_weather', arguments: {} },
        { name: 'get_weather', arguments: {} },
      ],
    });
    for (const r of run.toolCalls) r.call.argumentsAbsent = true;
    const v = scoreRun(caseWith('bfcl'), run);
    expect(v.category).toBe('unscorable');
    expect(v.reason).toMatch(/arguments not captured/);
  });

  it('counts the calls of the first tool-calling response only', () => {
    const run = makeRun({
      terminal: true,
      calls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Oslo' } },
      ],
    });
    run.toolCalls[1]!.modelCallIndex = 1;
    expect(scoreRun(caseWith('bfcl'), run)).toMatchObject({ category: 'too_few_calls' });
  });
});
