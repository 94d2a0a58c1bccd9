import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

// A transport wrapper that refuses an MCP message larger or deeper than our limits before the client
// sees it (streamable HTTP servers): the call gets a JSON-RPC error for its own id and the connection
// stays up for the next call. Streamable HTTP answers are first checked while they arrive, before the SDK
// reads them (_mcp-http-limits.ts, the transport's fetch); this is the second guard, on parsed messages.
// (stdio servers go through _mcp-stdio.ts, which applies the same limits while reading a line.)

/** Limits of one message from an MCP server. */
export interface McpMessageLimits {
  /** @default 8 MiB */
  maxBytes?: number;
  /** @default 64 */
  maxDepth?: number;
}

export const DEFAULT_MCP_MAX_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MCP_MAX_DEPTH = 64;
/** JSON-RPC "internal error": the result exists but is refused here. */
const REFUSED_CODE = -32603;

/**
 * Why `value` is over the limits (its JSON size estimated from its strings, keys and scalars), or
 * undefined. Iterative, and it stops at the first limit passed.
 */
export function overLimits(value: unknown, maxBytes: number, maxDepth: number): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let bytes = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') bytes += v.length + 2;
    else if (v === null || typeof v !== 'object') bytes += 8;
    else {
      if (depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
      for (const [k, child] of Object.entries(v)) {
        bytes += k.length + 4;
        stack.push([child, depth + 1]);
      }
    }
    if (bytes > maxBytes) return `larger than ${maxBytes} bytes`;
  }
  return undefined;
}

/**
 * Wrap `inner` so every message from the server is checked against `limits`; a response over them
 * becomes an error response for the same id, anything else over them is dropped with `onRefused`.
 */
export function sizeCheckedTransport(inner: Transport, limits: McpMessageLimits = {}, onRefused?: (why: string) => void): Transport {
  const maxBytes = limits.maxBytes ?? DEFAULT_MCP_MAX_BYTES;
  const maxDepth = limits.maxDepth ?? DEFAULT_MCP_MAX_DEPTH;
  const waiting: Array<string | number> = [];
  const refuse = (id: string | number, why: string, extra?: Parameters<NonNullable<Transport['onmessage']>>[1]): void => {
    const at = waiting.indexOf(id);
    if (at >= 0) waiting.splice(at, 1);
    onRefused?.(why);
    outer.onmessage?.({ jsonrpc: '2.0', id, error: { code: REFUSED_CODE, message: `the MCP server's answer was refused: ${why}` } }, extra);
  };
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => {
      if ('method' in message && 'id' in message) waiting.push(message.id);
      return inner.send(message, options);
    },
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
  };
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (err) => outer.onerror?.(err);
  inner.onmessage = (message, extra) => {
    const id = (message as { id?: unknown }).id;
    const isResponse = 'result' in message || 'error' in message;
    const why = overLimits(message, maxBytes, maxDepth);
    if (why === undefined) {
      if (isResponse && waiting.includes(id as string | number)) waiting.splice(waiting.indexOf(id as string | number), 1);
      return outer.onmessage?.(message, extra);
    }
    if (isResponse && (typeof id === 'string' || typeof id === 'number')) refuse(id, why, extra);
    else onRefused?.(why);
  };
  return outer;
}
