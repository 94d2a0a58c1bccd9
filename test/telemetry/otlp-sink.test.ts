import { describe, expect, it } from 'vitest';
import { startOtlpSink } from '../helpers/otlp-sink.js';

// The tests' OTLP receiver answers as the Collector's does: a malformed body is 400, a valid one 200.
describe('the test OTLP receiver', () => {
  it.each([
    { name: 'truncated protobuf', type: 'application/x-protobuf', body: Buffer.from([0x0a, 0xff, 0xff]) },
    { name: 'JSON that is not JSON', type: 'application/json', body: Buffer.from('{"resourceSpans": [') },
  ])('answers 400 to $name', async ({ type, body }) => {
    const sink = await startOtlpSink();
    try {
      const res = await fetch(`${sink.url}/v1/traces`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status).toBe(400);
      const ok = await fetch(`${sink.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
      expect(ok.status).toBe(200);
    } finally {
      await sink.close();
    }
  });
});
