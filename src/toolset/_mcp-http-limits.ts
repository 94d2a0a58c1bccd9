import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { DEFAULT_MCP_MAX_BYTES, DEFAULT_MCP_MAX_DEPTH, type McpMessageLimits } from './_mcp-limits.js';

// The `fetch` of streamable HTTP MCP connections (the SDK's StreamableHTTPClientTransport `fetch` option):
// every answer is checked against the size and depth limits while its bytes arrive, before the SDK reads
// it, so a 50 MB or 5,000-deep result is never buffered whole nor parsed. A JSON answer over a limit is
// cancelled and replaced by a JSON-RPC error for the request's own id; in an event stream the event over a
// limit is replaced by such an error event. The MCP session stays up for the next call. Bodies of error
// statuses are cut at the size limit.

/** JSON-RPC "internal error": the result exists but is refused here. */
const REFUSED_CODE = -32603;

/** Counts bytes and nesting of JSON text as it arrives (strings and escapes skipped). */
class JsonScan {
  private depth = 0;
  private inString = false;
  private escaped = false;
  bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly maxDepth: number,
  ) {}

  /** Why the text so far is over a limit, or undefined. `scan` false counts the bytes only. */
  push(b: number, scan = true): string | undefined {
    if (++this.bytes > this.maxBytes) return `larger than ${this.maxBytes} bytes`;
    if (!scan) return undefined;
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === 0x5c) this.escaped = true;
      else if (b === 0x22) this.inString = false;
    } else if (b === 0x22) this.inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++this.depth > this.maxDepth) return `nested deeper than ${this.maxDepth} levels`;
    } else if (b === 0x7d || b === 0x5d) this.depth--;
    return undefined;
  }
}

/** Ids of the JSON-RPC requests in a POST body (what an answer on its response belongs to). */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    const all = Array.isArray(parsed) ? parsed : [parsed];
    return all.flatMap((m) => {
      const id = (m as { id?: unknown; method?: unknown })?.id;
      return typeof (m as { method?: unknown })?.method === 'string' && (typeof id === 'string' || typeof id === 'number') ? [id] : [];
    });
  } catch {
    return [];
  }
}

const refusal = (id: string | number, why: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code: REFUSED_CODE, message: `the MCP server's answer was refused: ${why}` },
});
const encoder = new TextEncoder();

/** A JSON answer, read up to the limits: the bytes as they were, or refusals for `ids`. */
async function checkedJson(
  body: ReadableStream<Uint8Array>,
  ids: Array<string | number>,
  limits: Required<McpMessageLimits>,
  onRefused: (why: string) => void,
): Promise<Buffer> {
  const scan = new JsonScan(limits.maxBytes, limits.maxDepth);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (let i = 0; i < value.length; i++) {
      const why = scan.push(value[i]!);
      if (why === undefined) continue;
      await reader.cancel().catch(() => undefined);
      onRefused(why);
      const out = ids.map((id) => refusal(id, why));
      return Buffer.from(JSON.stringify(out.length === 1 ? out[0] : out));
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * An event stream passed through event by event, each held (at most the size limit) until it is complete;
 * an event over a limit is dropped and, on a POST's stream, answered with a refusal for its request (that
 * stream then ends: it carries nothing else the client waits for).
 */
function checkedEvents(
  body: ReadableStream<Uint8Array>,
  ids: Array<string | number>,
  limits: Required<McpMessageLimits>,
  onRefused: (why: string) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let held: Uint8Array[] = [];
  let scan = new JsonScan(limits.maxBytes, limits.maxDepth);
  let skipping = false;
  // Line state: the field name's first bytes, whether it is a `data:` line, a CR just seen, an empty line.
  let field = '';
  let isData = false;
  let lineEmpty = true;
  let afterCR = false;
  // An event ended by CR whose LF may follow: the LF belongs to the event that ended (kept when it was).
  let endedOnCR: 'kept' | 'dropped' | undefined;
  const newEvent = (): void => {
    held = [];
    scan = new JsonScan(limits.maxBytes, limits.maxDepth);
    skipping = false;
  };
  const stream = new ReadableStream<Uint8Array>({
    // One pull reads until it has something to pass on: a pull that enqueues nothing is not called again.
    async pull(controller) {
      for (;;) {
        if (await step(controller)) return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });

  /** Read one chunk; true when something was passed on or the stream ended. */
  async function step(controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
    if (done) {
      if (!skipping && held.length > 0) controller.enqueue(Buffer.concat(held));
      controller.close();
      return true;
    }
    let start = 0;
    const out: Uint8Array[] = [];
    for (let i = 0; i < value.length; i++) {
      const b = value[i]!;
      const lineEnd = b === 0x0a || b === 0x0d;
      if (b === 0x0a && afterCR) {
        afterCR = false;
        if (endedOnCR === 'kept') out.push(value.subarray(i, i + 1));
        if (endedOnCR) start = i + 1;
        endedOnCR = undefined;
        continue;
      }
      afterCR = b === 0x0d;
      endedOnCR = undefined;
      if (lineEnd) {
        if (lineEmpty) {
          // The blank line ending an event: pass it on whole, or drop what was refused.
          if (!skipping) out.push(...held, value.subarray(start, i + 1));
          if (b === 0x0d) endedOnCR = skipping ? 'dropped' : 'kept';
          start = i + 1;
          newEvent();
        }
        field = '';
        isData = false;
        lineEmpty = true;
        continue;
      }
      lineEmpty = false;
      if (skipping) continue;
      let why: string | undefined;
      if (!isData && field.length < 5) {
        field += String.fromCharCode(b);
        isData = field === 'data:';
        why = scan.push(b, false);
      } else why = scan.push(b, isData);
      if (why !== undefined) {
        skipping = true;
        onRefused(why);
        held = [];
        if (ids.length > 0) {
          for (const id of ids) out.push(encoder.encode(`event: message\ndata: ${JSON.stringify(refusal(id, why))}\n\n`));
          for (const o of out) controller.enqueue(o);
          await reader.cancel().catch(() => undefined);
          controller.close();
          return true;
        }
      }
    }
    if (!skipping && start < value.length) held.push(value.subarray(start));
    for (const o of out) controller.enqueue(o);
    return out.length > 0;
  }
  return stream;
}

/** The media type of a content-type header, lower case, without parameters. */
function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * A `fetch` for StreamableHTTPClientTransport that refuses answers over `limits` before the SDK reads them.
 * @example new StreamableHTTPClientTransport(url, { fetch: sizeCheckedFetch({ maxBytes: 8 << 20 }) })
 */
export function sizeCheckedFetch(limits: McpMessageLimits = {}, onRefused: (why: string) => void = () => {}, base: FetchLike = fetch): FetchLike {
  const l = { maxBytes: limits.maxBytes ?? DEFAULT_MCP_MAX_BYTES, maxDepth: limits.maxDepth ?? DEFAULT_MCP_MAX_DEPTH };
  return async (url, init) => {
    const res = await base(url, init);
    if (!res.body) return res;
    const type = mediaType(res.headers.get('content-type'));
    const same = { status: res.status, statusText: res.statusText, headers: res.headers };
    const rebuilt = (body: ReadableStream<Uint8Array> | Buffer): Response =>
      Buffer.isBuffer(body) ? new Response(new Uint8Array(body), same) : new Response(body, same);
    if (!res.ok) {
      // An error's text is only quoted: cut, never buffered whole.
      const scan = new JsonScan(l.maxBytes, Number.POSITIVE_INFINITY);
      const reader = res.body.getReader();
      const kept: Uint8Array[] = [];
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) break;
        if (scan.bytes + value.length > l.maxBytes) {
          kept.push(value.subarray(0, l.maxBytes - scan.bytes));
          await reader.cancel().catch(() => undefined);
          break;
        }
        scan.bytes += value.length;
        kept.push(value);
      }
      return rebuilt(Buffer.concat(kept));
    }
    const ids = init?.method === 'POST' ? requestIds(init.body) : [];
    if (type === 'application/json') return rebuilt(await checkedJson(res.body, ids, l, onRefused));
    if (type === 'text/event-stream') return rebuilt(checkedEvents(res.body, ids, l, onRefused));
    return res;
  };
}
