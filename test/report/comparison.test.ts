import { describe, expect, it } from 'vitest';
import { renderComparison } from '../../src/report/index.js';
import { buildResultsDocument, compareResults } from '../../src/report/index.js';
import { sampleCaseResults } from '../scoring/_results.js';

function comparison() {
  const meta = { started: '<started>' };
  const base = sampleCaseResults();
  const other = sampleCaseResults()
    .filter((r) => r.caseId !== 'cron-add-is-confirm')
    .map((r) => (r.caseId === 'read-file-lines' ? { ...r, passRate: 0, passRateLow: 0, passRateHigh: 0.05 } : r));
  return compareResults([
    { label: 'openai/gpt-test', doc: buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: 't', caseResults: base }] }) },
    { label: 'anthropic/claude-test', doc: buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: 't', caseResults: other }] }) },
  ]);
}

describe('renderComparison', () => {
  it.each([
    { format: 'table' as const, file: 'comparison.txt' },
    { format: 'md' as const, file: 'comparison.md' },
  ])('renders the $format golden', async ({ format, file }) => {
    await expect(renderComparison(comparison(), format)).toMatchFileSnapshot(`golden/${file}`);
  });

  it('marks a case whose intervals do not overlap, and a case missing from a run', () => {
    const text = renderComparison(comparison(), 'table');
    const read = text.split('\n').find((l) => l.startsWith('read-file-lines'))!;
    expect(read).toMatch(/−50 \*\)/);
    const cron = text.split('\n').find((l) => l.startsWith('cron-add-is-confirm'))!;
    expect(cron).toContain('—');
  });

  it('renders JSON that parses back to the comparison', () => {
    const c = comparison();
    const json = JSON.parse(renderComparison(c, 'json'));
    expect(json).toEqual(JSON.parse(JSON.stringify({ ...c, summary_rows: json.summary_rows })));
    expect(json.summary_rows.map((r: { metric: string }) => r.metric)).toEqual([
      'pass rate (judged samples)',
      'expected-sequence accuracy',
      'cases meeting threshold',
      'calls',
      'redundant',
      'errors',
      'tokens',
    ]);
    expect(json.summary_rows.find((r: { metric: string }) => r.metric === 'calls')).toEqual({
      metric: 'calls',
      percent: false,
      values: [8, 7],
      deltas: [null, -1],
    });
  });
});
