import { describe, expect, it } from 'vitest';
import { buildResultsDocument, renderMarkdown, renderTable } from '../../src/report/index.js';
import { aggregateCase, scoreRun } from '../../src/scoring/index.js';
import { renderMarkdown as renderScoreMarkdown, renderTable as renderScoreTable } from '../../src/traces/format.js';
import { makeCase, makeRun } from '../scoring/_build.js';

// Case ids, model text and trace attributes are untrusted: in the terminal table and in Markdown no
// escape sequence may act, no newline may split a row, and `&` cannot start an entity.

const HOSTILE_ID = 'evil\u001b[2J\u001b]0;pwned\u0007\nsecond|row & <b>x</b>\u202egnp.exe';

function hostileDoc() {
  const c = makeCase({ id: HOSTILE_ID, suite: 'x', runspec: { tool: ['restart-service'] } });
  const run = makeRun({ calls: [{ name: 'wipe\u001b[31m\nall & more', arguments: {} }], terminal: true });
  const result = aggregateCase(c, [{ status: 'scored', sample: 0, verdict: scoreRun(c, run, {}), elapsedMs: 1, tokens: 0 }], { threshold: 1 });
  return buildResultsDocument({ meta: { tool: 'runspec-eval' }, iterations: [{ iteration: 0, timestamp: '2026-01-01T00:00:00Z', caseResults: [result] }] });
}

const inert = (out: string): void => {
  expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  expect(out).toContain('\\x1b[2J');
};

describe('output safety', () => {
  it('the terminal table shows escape sequences as text and keeps one row per case', () => {
    const out = renderTable(hostileDoc());
    inert(out);
    expect(out.split('\n').filter((l) => l.includes('evil'))).toHaveLength(1);
  });

  it('Markdown neutralises controls, keeps the row whole and escapes &', () => {
    const out = renderMarkdown(hostileDoc());
    inert(out);
    const rows = out.split('\n').filter((l) => l.startsWith('|') && l.includes('evil'));
    expect(rows).toHaveLength(1);
    // Outside code spans `&` is escaped (inside them it is literal and cannot start an entity).
    expect(rows[0]).toContain('got wipe\\\\x1b[31m all &amp; more |');
  });

  it('score reports neutralise trace text too', () => {
    const line = { traceId: 'abc', case: HOSTILE_ID, category: 'wrong_tool', pass: false, reason: 'got \u001b[31mred\nline & more', calls: [{ name: 'x\u001b[0m' }] };
    const summary = { traces: 1, verdicts: 1, passed: 0, failed: 1, unmatched: 0, byCategory: {}, uninterpretable: 0, uninterpretableReasons: {}, uninterpretableExamples: [], inputProblems: 0, inputProblemExamples: [], evictedTraces: 0, droppedSpans: 0, lateRecords: 0, badFiles: [] };
    for (const out of [renderScoreTable([line] as never, summary as never), renderScoreMarkdown([line] as never, summary as never)]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(out.split('\n').filter((l) => l.includes('abc'))).toHaveLength(1);
    }
    expect(renderScoreMarkdown([line] as never, summary as never)).toContain('line &amp; more');
  });
});
