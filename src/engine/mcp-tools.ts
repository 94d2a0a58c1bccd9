import type { McpConnection } from '../toolset/mcp.js';
import type { Toolset } from '../types/toolset.js';
import { importOptionalPeer } from '../core/optional-peer.js';

// MCP tools executed in trajectory mode. A host connects to each MCP server of a run the first time
// one of its tools is called, keeps the connection for the rest of the run (every case and sample
// shares it), and stops every server on close(). Each call has a time limit; a failure is an error
// result for the model, never an exception.
//
// Servers are supervised: a server that died (crashed, or its stream closed) is the harness's problem,
// not the model's. The call that hit it ends its sample as an infrastructure error (`stop`), a warning
// is printed, and the next call restarts the server, at most MAX_RESTARTS times per server per run;
// after that its calls end their samples the same way. While restarts are left the stop is `retryable`:
// the suite runner runs that sample once more, so a server that comes back costs no sample (exit 0 when
// the second attempt passes), and one whose restart fails leaves an errored sample (exit 3). Messages over the size or depth limit are
// refused by the transport (toolset/_mcp-limits.ts) and the connection stays up.

/** The outcome of one executed tool call. */
export interface ExecutedTool {
  /** What the model is sent: the text content, or the structured content as JSON when there is no text. */
  result: string;
  isError: boolean;
  /** MCP `structuredContent`, recorded as given. */
  structuredContent?: Record<string, unknown>;
  /** Why a call failed before the tool answered (`tool_timeout`, `mcp_unavailable`, `mcp_server_died`, `cancelled`). */
  errorType?: string;
  /**
   * The server is gone: the sample ends as an infrastructure error with this code and message;
   * `retryable` when the server will be restarted for the next call (the runner runs the sample again, once).
   */
  stop?: { code: string; message: string; retryable?: boolean };
}

/** Runs calls on a toolset's own backend (its MCP server). */
export interface ToolHost {
  /** Whether calls to this toolset's tools run here. */
  handles(toolset: Toolset): boolean;
  call(toolset: Toolset, tool: string, args: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<ExecutedTool>;
  /** Stop every server this host started; idempotent. */
  close(): Promise<void>;
}

export interface McpToolHostOptions {
  /** Working directory of stdio servers. */
  projectDir: string;
  /** Environment (process.env-like); a stdio server gets only the SDK's safe default variables from it. */
  env: Readonly<Record<string, string | undefined>>;
  /** Time limit of one tool call. @default 30000 */
  callTimeoutMs?: number;
  /** Time limit of connecting. @default 30000 */
  connectTimeoutMs?: number;
  /** Largest message from a server, in bytes; a larger result is refused (the connection stays up). @default 8 MiB */
  maxResultBytes?: number;
  /** Deepest message from a server; a deeper result is refused. @default 64 */
  maxResultDepth?: number;
  /** A server died, was restarted, or refused a result. */
  onWarning?: (message: string) => void;
}

/** Restarts of one server in one run. */
export const MAX_RESTARTS = 3;

/** Text of an MCP tool result: text parts joined; other parts named; structured content as JSON. */
function resultText(res: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const parts: string[] = [];
  for (const c of Array.isArray(res.content) ? (res.content as Array<Record<string, unknown>>) : []) {
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'resource' && typeof c.resource === 'object' && c.resource !== null) {
      const r = c.resource as Record<string, unknown>;
      parts.push(typeof r.text === 'string' ? r.text : `[resource ${String(r.uri ?? '')}]`);
    } else if (c.type === 'resource_link') parts.push(`[resource ${String(c.uri ?? '')}]`);
    else parts.push(`[${String(c.type)}${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`);
  }
  if (parts.length === 0 && res.structuredContent !== undefined) return JSON.stringify(res.structuredContent);
  // Protocol 2024-10-07 servers answer { toolResult } instead of content.
  if (parts.length === 0 && res.toolResult !== undefined) return typeof res.toolResult === 'string' ? res.toolResult : JSON.stringify(res.toolResult);
  return parts.join('\n');
}

/**
 * A ToolHost for the `mcp:` toolsets of a run (stdio command lines and streamable HTTP URLs).
 * @example const host = createMcpToolHost({ projectDir, env: process.env }); try { ... } finally { await host.close(); }
 */
export function createMcpToolHost(opts: McpToolHostOptions): ToolHost {
  const callTimeoutMs = opts.callTimeoutMs ?? 30_000;
  const warn = opts.onWarning ?? (() => {});
  const connections = new Map<string, Promise<McpConnection>>();
  const restarts = new Map<string, number>();
  let closed = false;

  const start = (target: string): Promise<McpConnection> => {
    // The MCP SDK loads with the first MCP tool call, not with every run.
    const conn = importOptionalPeer('@modelcontextprotocol/sdk', 'an mcp: toolset', () => import('../toolset/mcp.js')).then(({ connectMcp }) =>
      connectMcp(target, {
        projectDir: opts.projectDir,
        env: opts.env,
        timeoutMs: opts.connectTimeoutMs ?? 30_000,
        what: 'cannot start the MCP server',
        limits: { ...(opts.maxResultBytes ? { maxBytes: opts.maxResultBytes } : {}), ...(opts.maxResultDepth ? { maxDepth: opts.maxResultDepth } : {}) },
      }),
    );
    // A failed start is not retried for every call: each call reports it.
    conn.catch(() => undefined);
    connections.set(target, conn);
    return conn;
  };

  /** The live connection of `target`: started on first use, restarted (bounded) once it has died. */
  const connect = async (target: string): Promise<McpConnection> => {
    const current = connections.get(target);
    if (!current) return start(target);
    const conn = await current;
    if (!conn.isClosed()) return conn;
    // One restart for every call waiting on the dead connection: the first to get here starts it.
    if (connections.get(target) === current) {
      const n = restarts.get(target) ?? 0;
      if (n >= MAX_RESTARTS)
        throw new Error(`mcp:${target}: the MCP server died and was restarted ${MAX_RESTARTS} times in this run already; not restarting it again`);
      restarts.set(target, n + 1);
      warn(
        `mcp:${target}: the MCP server died${conn.stderrTail() ? ` (stderr: ${conn.stderrTail().slice(0, 200)})` : ''}; restarting it (${n + 1} of ${MAX_RESTARTS})`,
      );
      void conn.close();
      return start(target);
    }
    return connections.get(target)!;
  };
  const died = (message: string, retryable = false): ExecutedTool => ({
    result: `Error: ${message}`,
    isError: true,
    errorType: 'mcp_server_died',
    stop: { code: 'MCP', message, ...(retryable ? { retryable } : {}) },
  });

  return {
    handles: (toolset) => toolset.source.startsWith('mcp:'),
    async call(toolset, tool, args, callOpts = {}) {
      if (closed) return { result: 'Error: the run is over; the MCP server was stopped', isError: true, errorType: 'mcp_unavailable' };
      const target = toolset.source.slice('mcp:'.length).trim();
      let conn: McpConnection;
      try {
        conn = await connect(target);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        // Restarts used up, or the restart itself failed: the harness cannot serve this call.
        if (restarts.has(target)) return died(msg);
        return { result: `Error: ${msg}`, isError: true, errorType: 'mcp_unavailable' };
      }
      try {
        const res: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown } = await conn.client.callTool(
          { name: tool, arguments: args },
          undefined,
          {
            timeout: callTimeoutMs,
            ...(callOpts.signal ? { signal: callOpts.signal } : {}),
          },
        );
        const out: ExecutedTool = { result: resultText(res), isError: res.isError === true };
        if (res.structuredContent !== undefined) out.structuredContent = res.structuredContent as Record<string, unknown>;
        return out;
      } catch (err) {
        const msg = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
        if (callOpts.signal?.aborted) return { result: 'Error: cancelled', isError: true, errorType: 'cancelled' };
        if (conn.isClosed()) {
          const tail = conn.stderrTail();
          const more = (restarts.get(target) ?? 0) < MAX_RESTARTS;
          warn(
            `mcp:${target}: the MCP server died during a call to ${tool}${tail ? ` (stderr: ${tail.slice(0, 200)})` : ''}; ${more ? 'it will be restarted and the sample run again' : 'the sample is an error'}`,
          );
          return died(`mcp:${target}: the MCP server died during the call to ${tool} (${msg})`, more);
        }
        if (/timed out|timeout/i.test(msg)) {
          return { result: `Error: ${tool} did not answer within ${callTimeoutMs} ms`, isError: true, errorType: 'tool_timeout' };
        }
        return { result: `Error: ${msg}`, isError: true, errorType: 'mcp_error' };
      }
    },
    async close() {
      closed = true;
      const all = [...connections.values()];
      connections.clear();
      await Promise.all(
        all.map((p) =>
          p.then(
            (c) => c.close(),
            () => undefined,
          ),
        ),
      );
    },
  };
}
