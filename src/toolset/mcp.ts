import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EnvSource } from '../types/env.js';
import { ToolsetError } from '../errors.js';
import type { Runnable, Toolset } from '../types/toolset.js';
import { jsonSchemaToArgs } from './json-schema.js';

/** The MCP `tools/list` entry fields we read. */
interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/**
 * Map one MCP tool onto a runnable: `inputSchema` → args; `readOnlyHint` → autonomous + category
 * `read`; `destructiveHint` → manual; otherwise confirm; category `mcp` unless read-only.
 */
export function mcpToolToRunnable(tool: McpTool, group?: string): Runnable {
  const args = jsonSchemaToArgs(tool.inputSchema);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const destructive = !readOnly && tool.annotations?.destructiveHint === true;
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    ...(group ? { group } : {}),
    category: readOnly ? 'read' : 'mcp',
    args,
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
 * List the tools of a live MCP server and turn them into a toolset. `target` is a command line (stdio:
 * the server is spawned in `projectDir` with only the SDK's safe default variables taken from `env`, so
 * API keys are not handed to it) or an `http(s)://` URL (streamable HTTP). The client is closed after
 * listing. Failures are ToolsetError code MCP (exit 3).
 */
export async function loadMcpToolset(target: string, opts: { projectDir: string; env: EnvSource; timeoutMs?: number }): Promise<Toolset> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
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
    transport = new StreamableHTTPClientTransport(url);
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
    const stdio = new StdioClientTransport({ command: words[0]!, args: words.slice(1), env, cwd: opts.projectDir, stderr: 'pipe' });
    stdio.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString('utf8')).slice(-2000);
    });
    transport = stdio;
  }
  const client = new Client({ name: 'runspec-eval', version: '0.1.0' });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const work = (async () => {
      await client.connect(transport, { timeout: timeoutMs });
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      // Bounded pagination: a server that keeps returning cursors cannot loop us forever.
      for (let page = 0; page < 100; page++) {
        const res = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        tools.push(...(res.tools as McpTool[]));
        cursor = res.nextCursor;
        if (!cursor) break;
      }
      return tools;
    })();
    // After a timeout, closing the client rejects `work`; mark it handled so it is not an unhandled rejection.
    work.catch(() => undefined);
    const tools = await Promise.race([work, deadline]);
    const server = client.getServerVersion();
    const name = server?.name ?? 'mcp';
    const seen = new Set<string>();
    const runnables = tools.filter((t) => !seen.has(t.name) && seen.add(t.name)).map((t) => mcpToolToRunnable(t, name));
    return { name, runnables, hosts: [], groups: {}, source };
  } catch (err) {
    if (err instanceof ToolsetError) throw err;
    const msg = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    const tail = stderrTail.trim().split('\n').pop();
    throw new ToolsetError('MCP', `${source}: cannot list MCP tools: ${msg}${tail ? ` (server stderr: ${tail.slice(0, 200)})` : ''}`, {
      hint: isHttp ? 'check that the MCP server listens on that URL (streamable HTTP)' : 'check that the command starts an MCP server on stdio',
      cause: err,
    });
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }
}
