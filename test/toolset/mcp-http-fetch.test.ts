import { describe, expect, it } from 'vitest';
import { sizeCheckedFetch } from '../../src/toolset/_mcp-http-limits.js';

// The size-checking fetch of streamable HTTP MCP connections, against canned answers: events within the
// limits pass byte for byte (however the bytes are split, CRLF or LF), an event over a limit on a stream
// that belongs to no request (the standalone GET stream) is dropped and the stream goes on, and an error
// status's body is cut at the size limit.

const limits = { maxBytes: 200, maxDepth: 4 };
const fetchOf = (chunks: string[], contentType: string, status = 200) =>
  sizeCheckedFetch(limits, undefined, async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
        c.close();
      },
    });
    return new Response(body, { status, headers: { 'content-type': contentType } });
  });

const ok1 = 'event: message\r\ndata: {"jsonrpc":"2.0","method":"a","params":{"x":"}}}{{{"}}\r\n\r\n';
const deep = `data: ${'{"v":'.repeat(10)}1${'}'.repeat(10)}\n\n`;
const big = `data: {"jsonrpc":"2.0","method":"b","params":{"x":"${'y'.repeat(300)}"}}\n\n`;
const ok2 = 'id: 7\ndata: {"jsonrpc":"2.0","method":"c"}\n\n';

describe('sizeCheckedFetch', () => {
  it.each([
    { name: 'whole', split: (s: string) => [s] },
    { name: 'one byte at a time', split: (s: string) => Array.from({ length: s.length }, (_, i) => s.charAt(i)) },
  ])('passes events within the limits and drops the ones over them on a stream of no request ($name)', async ({ split }) => {
    const refused: string[] = [];
    const f = sizeCheckedFetch(
      limits,
      (why) => refused.push(why),
      async () => {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            for (const ch of split(ok1 + deep + big + ok2)) c.enqueue(new TextEncoder().encode(ch));
            c.close();
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
    );
    const res = await f('http://x/mcp', { method: 'GET' });
    expect(await res.text()).toBe(ok1 + ok2);
    expect(refused).toEqual(['nested deeper than 4 levels', 'larger than 200 bytes']);
  });

  it('answers a POST whose JSON answer is too big with an error for its request id', async () => {
    const f = fetchOf([`{"jsonrpc":"2.0","id":5,"result":{"t":"${'z'.repeat(500)}"}}`], 'application/json');
    const res = await f('http://x/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call' }) });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32603, message: "the MCP server's answer was refused: larger than 200 bytes" } });
  });

  it('cuts the body of an error status at the size limit', async () => {
    const res = await fetchOf(['x'.repeat(150), 'x'.repeat(150)], 'text/html', 500)('http://x/mcp', { method: 'POST', body: '{}' });
    expect(res.status).toBe(500);
    expect((await res.text()).length).toBe(200);
  });
});
