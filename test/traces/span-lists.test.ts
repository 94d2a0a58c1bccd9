import { describe, expect, it } from 'vitest';
import { spansFromRequest } from '../../src/traces/spans.js';

const TRACE = 'ab'.repeat(16);
const request = (spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
const span = (spanId: string, extra: Record<string, unknown> = {}) => ({ traceId: TRACE, spanId, name: 's', startTimeUnixNano: '5000000', ...extra });

// Events and links are read in a loop (no filter + map per span); what they hold is unchanged.
describe('span events and links from OTLP/JSON', () => {
  it('keeps object events in order, with exact nanoseconds when the time is one, and drops the rest', () => {
    const { spans } = spansFromRequest(
      request([
        span('cd'.repeat(8), {
          events: [
            { name: 'a', timeUnixNano: '7000001', attributes: [{ key: 'k', value: { intValue: '3' } }] },
            'not an event',
            { timeUnixNano: 'soon' },
            null,
          ],
        }),
      ]),
      'f.jsonl:1',
    );
    expect(spans[0]!.events).toEqual([
      { name: 'a', timeMs: 7.000001, timeUnixNano: '7000001', attributes: { k: 3 } },
      { name: '', timeMs: 5, attributes: {} },
    ]);
    expect(Object.keys(spans[0]!.events[1]!)).toEqual(['name', 'timeMs', 'attributes']);
  });

  it('keeps links with a valid trace and span id only', () => {
    const { spans } = spansFromRequest(
      request([
        span('cd'.repeat(8), {
          links: [{ traceId: 'EF'.repeat(16), spanId: '12'.repeat(8) }, { traceId: TRACE }, 7, { traceId: '0'.repeat(32), spanId: '12'.repeat(8) }],
        }),
      ]),
      'f.jsonl:1',
    );
    expect(spans[0]!.links).toEqual([{ traceId: 'ef'.repeat(16), spanId: '12'.repeat(8) }]);
  });

  it("gives each span its own empty lists, so a caller's change to one span stays in it", () => {
    const { spans } = spansFromRequest(request([span('cd'.repeat(8)), span('ce'.repeat(8), { events: 'x', links: {} })]), 'f.jsonl:1');
    spans[0]!.events.push({ name: 'added', timeMs: 1, attributes: {} });
    spans[0]!.links.push({ traceId: TRACE, spanId: '99'.repeat(8) });
    expect(spans[1]!.events).toEqual([]);
    expect(spans[1]!.links).toEqual([]);
  });
});
