import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EnvSource } from '../types/env.js';
import { ToolsetError } from '../errors.js';
import type { Runnable, ToolCategory, Toolset } from '../types/toolset.js';
import { jsonSchemaToArgs } from './json-schema.js';
import { sizeCheckedTransport, type McpMessageLimits } from './_mcp-limits.js';
import { sizeCheckedFetch } from './_mcp-http-limits.js';
import { BoundedStdioTransport } from './_mcp-stdio.js';

/** The MCP `tools/list` entry fields we read. */
interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; title?: string };
}

/**
 * The permission category of an MCP tool from its annotations (hints only: a server can lie, so an
 * unannotated tool is treated as one that changes things). `readOnlyHint` → `read` (`web` when it also
 * says `openWorldHint: true`); `destructiveHint: false` with `openWorldHint: true` → `web`; anything
 * else (destructive, or no annotation) → `edit`, denied by replio's defaults.
 */
export function mcpToolCategory(annotations: McpTool['annotations']): ToolCategory {
  const a = annotations ?? {};
  if (a.readOnlyHint === true) return a.openWorldHint === true ? 'web' : 'read';
  if (a.destructiveHint === false && a.openWorldHint === true) return 'web';
  return 'edit';
}

/**
 * Map one MCP tool onto a runnable: `inputSchema` → args (and kept as written for the model);
 * `readOnlyHint` → autonomous; `destructiveHint` → manual; otherwise confirm; the category from
 * mcpToolCategory.
 */
export function mcpToolToRunnable(tool: McpTool, group?: string): Runnable {
  const args = jsonSchemaToArgs(tool.inputSchema);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const destructive = !readOnly && tool.annotations?.destructiveHint === true;
  const schema = tool.inputSchema;
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    ...(group ? { group } : {}),
    category: mcpToolCategory(tool.annotations),
    args,
    ...(typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? { inputSchema: schema as Record<string, unknown> } : {}),
    autonomy: readOnly ? 'autonomous' : destructive ? 'manual' : 'confirm',
    ownHostArg: args.some((a) => a.name === 'host'),
  };
}

/** Split a command line into words; double and single quotes group, backslash escapes. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur !== '') out.push(cur);
      cur = '';
      has = false;
    } else cur += c;
  }
  if (has || cur !== '') out.push(cur);
  return out;
}

/**
 * A connected MCP client and how to stop it. `describe` adds the server's last stderr line (stdio)
 * to a failure message.
 */
export interface McpConnection {
  client: Client;
  isHttp: boolean;
  /** The server's last stderr line, '' when none (stdio only). */
  stderrTail: () => string;
  /** Whether the connection has closed (the server exited or the stream ended). */
  isClosed: () => boolean;
  close: () => Promise<void>;
}

/**
 * Connect an MCP client to `target`: a command line (stdio: spawned in `projectDir` with only the SDK's
 * safe default variables taken from `env`, so API keys are not handed to it) or an `http(s)://` URL
 * (streamable HTTP). Bad targets and failed connections throw ToolsetError code MCP, `what` saying
 * what could not be done ("cannot list MCP tools").
 */
export async function connectMcp(
  target: string,
  opts: { projectDir: string; env: EnvSource; timeoutMs: number; what: string; limits?: McpMessageLimits },
): Promise<McpConnection> {
  const source = `mcp:${target}`;
  const isHttp = /^https?:\/\//i.test(target);
  let stderrTail = '';
  let transport: Transport;
  if (isHttp) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new ToolsetError('TOOLSET', `${source}: not a valid URL`, { hint: 'write mcp:http://127.0.0.1:3000/mcp' });
    }
    // Answers over the size or depth limit are refused while they arrive, before the SDK reads them.
    transport = new StreamableHTTPClientTransport(url, { fetch: sizeCheckedFetch(opts.limits) });
  } else {
    const words = splitCommandLine(target);
    if (words.length === 0) {
      throw new ToolsetError('TOOLSET', `${source}: empty MCP command line`, { hint: 'write mcp:<command> [args...] or mcp:http://host:port/mcp' });
    }
    const env: Record<string, string> = {};
    for (const k of DEFAULT_INHERITED_ENV_VARS) {
      const v = opts.env[k];
      if (v !== undefined && !v.startsWith('()')) env[k] = v;
    }
    // The SDK's default variables (from this process) under the ones taken from `env`, as its own stdio transport does.
    const stdio = new BoundedStdioTransport({
      command: words[0]!,
      args: words.slice(1),
      env: { ...getDefaultEnvironment(), ...env },
      cwd: opts.projectDir,
      ...(opts.limits ? { limits: opts.limits } : {}),
    });
    stdio.stderr.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString('utf8')).slice(-2000);
    });
    transport = stdio;
  }
  // And every message again once parsed (a second guard; stdio applies the limits while reading a line).
  if (isHttp) transport = sizeCheckedTransport(transport, opts.limits);
  let closed = false;
  const client = new Client({ name: 'runspec-eval', version: '0.1.0' });
  client.onclose = () => {
    closed = true;
  };
  const close = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  };
  try {
    await client.connect(transport, { timeout: opts.timeoutMs });
  } catch (err) {
    await close();
    throw mcpFailure(target, opts.what, err, stderrTail.trim().split('\n').pop() ?? '');
  }
  return { client, isHttp, stderrTail: () => stderrTail.trim().split('\n').pop() ?? '', isClosed: () => closed, close };
}

/** The one-line ToolsetError (code MCP, exit 3) of a failed MCP exchange. */
export function mcpFailure(target: string, what: string, err: unknown, stderrTail: string): ToolsetError {
  const isHttp = /^https?:\/\//i.test(target);
  const msg = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  return new ToolsetError('MCP', `mcp:${target}: ${what}: ${msg}${stderrTail ? ` (server stderr: ${stderrTail.slice(0, 200)})` : ''}`, {
    hint: isHttp ? 'check that the MCP server listens on that URL (streamable HTTP)' : 'check that the command starts an MCP server on stdio',
    cause: err,
  });
}

/**
 * List the tools of a live MCP server and turn them into a toolset. `target` is a command line or an
 * `http(s)://` URL (see connectMcp). The client is closed after listing; trajectory runs reconnect
 * (engine/mcp-tools.ts). Failures are ToolsetError code MCP (exit 3).
 */
export async function loadMcpToolset(target: string, opts: { projectDir: string; env: EnvSource; timeoutMs?: number }): Promise<Toolset> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const source = `mcp:${target}`;
  let conn: McpConnection | undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  let stderr = (): string => '';
  let work: Promise<unknown> | undefined;
  try {
    const listing = (async () => {
      conn = await connectMcp(target, { ...opts, timeoutMs, what: 'cannot list MCP tools' });
      const c = conn;
      stderr = () => c.stderrTail();
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      // Bounded pagination: a server that keeps returning cursors cannot loop us forever.
      for (let page = 0; page < 100; page++) {
        const res = await conn.client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        tools.push(...(res.tools as McpTool[]));
        cursor = res.nextCursor;
        if (!cursor) break;
      }
      return { tools, server: conn.client.getServerVersion() };
    })();
    // After a timeout, closing the client rejects `work`; mark it handled so it is not an unhandled rejection.
    work = listing.catch(() => undefined);
    const { tools, server } = await Promise.race([listing, deadline]);
    const name = server?.name ?? 'mcp';
    const seen = new Set<string>();
    const runnables = tools.filter((t) => !seen.has(t.name) && seen.add(t.name)).map((t) => mcpToolToRunnable(t, name));
    return { name, runnables, hosts: [], groups: {}, source };
  } catch (err) {
    if (err instanceof ToolsetError) throw err;
    throw mcpFailure(target, 'cannot list MCP tools', err, stderr());
  } finally {
    clearTimeout(timer);
    // A timeout can fire while connecting: close the connection once it exists.
    if (conn) await conn.close();
    else void work?.then(() => conn?.close());
  }
}
