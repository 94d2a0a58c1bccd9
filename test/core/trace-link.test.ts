import { describe, expect, it } from 'vitest';
import { langsmithRunId, traceLink } from '../../src/core/trace-link.js';

describe('trace_url templates', () => {
  it('fills every placeholder, URL-encoded, and leaves a template without a span to no link', () => {
    const t = '0AF7651916CD43DD8448EB211C80319C';
    expect(
      traceLink('https://p.test/projects/{project}/traces/{trace_id}?span={span_id}&run={langsmith_run_id}', {
        traceId: t,
        spanId: '1a2b3c4d5e6f7a8b',
        project: 'my evals',
      }),
    ).toBe('https://p.test/projects/my%20evals/traces/0af7651916cd43dd8448eb211c80319c?span=1a2b3c4d5e6f7a8b&run=00000000-0000-0000-1a2b-3c4d5e6f7a8b');
    expect(traceLink('https://p.test/{span_id}', { traceId: t })).toBeUndefined();
    expect(traceLink(undefined, { traceId: t })).toBeUndefined();
  });

  it('derives LangSmith run ids as langsmith-sdk does (span id right-aligned in 16 zero bytes)', () => {
    expect(langsmithRunId('1a2b3c4d5e6f7a8b')).toBe('00000000-0000-0000-1a2b-3c4d5e6f7a8b');
  });
});
