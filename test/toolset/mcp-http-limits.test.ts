import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpToolHost } from '../../src/engine/mcp-tools.js';
import type { Toolset } from '../../src/types/toolset.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

// A streamable HTTP MCP server's answer used to be checked against the size (8 MiB) and depth (64) limits
// only after the MCP SDK had read it whole and parsed it: a 50 MB answer was buffered and parsed, and one
// that never ended held the call until its time limit. Now the transport's fetch counts the bytes and the
// nesting as they arrive, cuts the answer at the limit and refuses it; the session stays up.
// The server here is hand-written so it can send what an SDK server would not.

let initializes = 0;
/** How each big answer ended: true when the server wrote it all, false when the client cut it. */
const finished: Record<string, boolean> = {};
const BIG = 50 * 1024 * 1024;

async function writeAll(res: ServerResponse, head: string, fill: number, tail: string, key: string): Promise<void> {
  res.on('close', () => (finished[key] = res.writableFinished));
  res.write(head);
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  for (let sent = 0; sent < fill && !res.destroyed; sent += chunk.length) {
    // Wait for 'drain' or 'close', and take both listeners off whichever came: left on, the 'close' ones
    // piled up (one per full buffer) past the emitter's limit of 10.
    if (!res.write(chunk)) {
      await new Promise<void>((r) => {
        const done = (): void => {
          res.off('drain', done).off('close', done);
          r();
        };
        res.once('drain', done).once('close', done);
      });
    }
  }
  if (!res.destroyed) res.end(tail);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  for await (const c of req) body += c;
  const msg = JSON.parse(body);
  if (msg.id === undefined) return void res.writeHead(202).end();
  const json = (result: unknown): void =>
    void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'one' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  if (msg.method === 'initialize') {
    initializes++;
    return json({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'big', version: '1.0.0' } });
  }
  if (msg.method === 'tools/list')
    return json({
      tools: ['echo', 'huge_json', 'huge_sse', 'deep_sse'].map((name) => ({
        name,
        description: name,
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
      })),
    });
  const name = msg.params.name as string;
  const id = JSON.stringify(msg.id);
  if (name === 'echo') return json({ content: [{ type: 'text', text: `echo: ${msg.params.arguments.message}` }] });
  if (name === 'huge_json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return writeAll(res, `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`, BIG, '"}]}}', name);
  }
  if (name === 'huge_sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return writeAll(res, `event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`, BIG, '"}]}}\n\n', name);
  }
  // 5,000 levels and then nothing: the answer never ends, so only a check while it arrives can refuse it.
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.on('close', () => (finished[name] = res.writableFinished));
  res.write(`event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{"content":[],"structuredContent":${'{"v":'.repeat(5000)}`);
}

const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('answers of a streamable HTTP MCP server over the limits', { timeout: 60_000 }, () => {
  it.each([
    { tool: 'huge_json', why: /larger than 8388608 bytes/ },
    { tool: 'huge_sse', why: /larger than 8388608 bytes/ },
    { tool: 'deep_sse', why: /nested deeper than 64 levels/ },
  ])('refuses $tool while it arrives and keeps the session for the next call', async ({ tool, why }) => {
    const warnings: string[] = [];
    // The call's time limit is far longer than a refusal takes: an answer read to its end would hit it (deep_sse).
    const host = createMcpToolHost({ projectDir: REPO_ROOT, env: {}, callTimeoutMs: 20_000, onWarning: (w) => warnings.push(w) });
    const ts: Toolset = { name: 'big', runnables: [], hosts: [], groups: {}, source: `mcp:${url}` };
    initializes = 0;
    try {
      const r = await host.call(ts, tool, {});
      expect(r.result).toMatch(why);
      expect(r.isError).toBe(true);
      expect(r.stop).toBeUndefined();
      // The server's answer was cut off by the client, not read to its end.
      await expect.poll(() => finished[tool]).toBe(false);
      expect((await host.call(ts, 'echo', { message: 'still up' })).result).toBe('echo: still up');
      expect(initializes).toBe(1);
      expect(warnings).toEqual([]);
    } finally {
      await host.close();
    }
  });
});
