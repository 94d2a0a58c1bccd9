import { describe, expect, it } from 'vitest';
import { spansFromRequest } from '../../src/traces/spans.js';

// OTLP/JSON enum names are looked up as own keys only: "constructor" or "toString" is no SpanKind or
// StatusCode name (they reached the span record as functions), and a number outside the enum is unset.
describe('span kind and status code from OTLP/JSON', () => {
  const request = (kind: unknown, code: unknown) => ({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 's', kind, status: { code }, startTimeUnixNano: '1', endTimeUnixNano: '2' }],
          },
        ],
      },
    ],
  });

  it.each([
    ['constructor', 'toString', 0, 0],
    ['__proto__', 'hasOwnProperty', 0, 0],
    ['SPAN_KIND_CLIENT', 'STATUS_CODE_ERROR', 3, 2],
    [2, 1, 2, 1],
    [7, 9, 0, 0],
  ])('kind %j, status %j', (kind, code, wantKind, wantCode) => {
    const { spans } = spansFromRequest(request(kind, code), 'f.jsonl:1');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.kind).toBe(wantKind);
    expect(spans[0]!.statusCode).toBe(wantCode);
  });
});
