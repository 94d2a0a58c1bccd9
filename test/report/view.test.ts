import { describe, expect, it } from 'vitest';
import { renderReportView, traceLink } from '../../src/report/view.js';
import { viewDocument } from './_view-doc.js';

describe('report view (markup)', () => {
  it('leaves unscorable samples out of the pass rate and says so on the samples card', () => {
    const doc = viewDocument();
    const run = Object.values(doc.iterations[0]!.cases)[1]!.runs[1]!; // restart-nginx, the failing sample
    run.verdict!.category = 'unscorable';
    const html = renderReportView(doc);
    expect(html).toContain('<b>100.0%</b><span>pass rate (4/4 judged samples)</span>');
    expect(html).toMatch(
      /id="rv-samples"><b>4<\/b><span>samples judged<\/span><small>1 errored \(infrastructure\), 1 unscorable or incomplete: not counted<\/small>/,
    );
  });

  it.each([
    {
      name: 'a URL the file holds wins',
      template: 'http://p/{trace_id}',
      ref: { traceId: 'abcdef12', url: 'https://smith.langchain.com/r/1' },
      want: 'https://smith.langchain.com/r/1',
    },
    {
      name: 'the template is filled in',
      template: 'http://p/t/{trace_id}?s={span_id}',
      ref: { traceId: 'abcdef12', spanId: '0011aabb' },
      want: 'http://p/t/abcdef12?s=0011aabb',
    },
    { name: 'an unfilled placeholder gives no link', template: 'http://p/{project}/{trace_id}', ref: { traceId: 'abcdef12' }, want: '' },
    { name: 'a javascript: URL gives no link', template: undefined, ref: { traceId: 'abcdef12', url: 'javascript:alert(1)' }, want: '' },
    { name: 'no trace id, no link', template: 'http://p/{trace_id}', ref: {}, want: '' },
  ])('trace link: $name', ({ template, ref, want }) => {
    expect(traceLink(template, ref)).toBe(want);
  });
});
