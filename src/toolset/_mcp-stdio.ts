import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonTooDeepAt } from '../core/json-scan.js';
import { DEFAULT_MCP_MAX_BYTES, DEFAULT_MCP_MAX_DEPTH, type McpMessageLimits } from './_mcp-limits.js';

// The stdio transport of MCP servers, bounded. The SDK's StdioClientTransport grows one buffer by
// concatenation per chunk (a 50 MB line copies gigabytes), has its own size cap whose overflow kills the
// server, and validates a message with a recursive schema (5,000 levels overflow the stack and the call
// hangs). Here a line is kept as a list of chunks and read once; a line over the size limit is dropped
// as it streams in and a line nested too deep is refused before it is parsed, each answered to the
// oldest request still waiting (a stdio server answers a line at a time) with a JSON-RPC error, and the
// server and the connection stay up. Messages are still checked with the SDK's own schema.

export interface BoundedStdioOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  limits?: McpMessageLimits;
}

/** JSON-RPC "internal error": the answer exists but is refused here. */
const REFUSED_CODE = -32603;
const KILL_AFTER_MS = 2000;

/** A stdio MCP transport with bounded lines; see the module comment. */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr (piped), available before start(). */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private discarding = false;
  private readonly waiting: Array<string | number> = [];
  private readonly maxBytes: number;
  private readonly maxDepth: number;

  constructor(private readonly opts: BoundedStdioOptions) {
    this.maxBytes = opts.limits?.maxBytes ?? DEFAULT_MCP_MAX_BYTES;
    this.maxDepth = opts.limits?.maxDepth ?? DEFAULT_MCP_MAX_DEPTH;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.opts.command, this.opts.args, { env: this.opts.env, cwd: this.opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
      this.child = child;
      child.on('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.on('data', (chunk: Buffer) => this.take(chunk));
      child.stderr!.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('Not connected'));
    if ('method' in message && 'id' in message) this.waiting.push(message.id);
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.stdin?.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    timer.unref();
    await new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('close', () => r())));
    clearTimeout(timer);
  }

  private take(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      this.append(chunk.subarray(from, nl));
      this.endLine();
      from = nl + 1;
    }
    if (from < chunk.length) this.append(chunk.subarray(from));
  }

  private append(part: Buffer): void {
    if (this.discarding || part.length === 0) return;
    this.size += part.length;
    if (this.size > this.maxBytes) {
      this.chunks = [];
      this.size = 0;
      this.discarding = true;
      this.refuseOldest(`larger than ${this.maxBytes} bytes`);
      return;
    }
    this.chunks.push(part);
  }

  private endLine(): void {
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    if (line.trim() === '') return;
    if (jsonTooDeepAt(line, this.maxDepth) !== undefined) return this.refuseOldest(`nested deeper than ${this.maxDepth} levels`);
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    const id = 'id' in message ? message.id : undefined;
    if (('result' in message || 'error' in message) && id !== undefined) {
      const at = this.waiting.indexOf(id);
      if (at >= 0) this.waiting.splice(at, 1);
    }
    this.onmessage?.(message);
  }

  private refuseOldest(why: string): void {
    const id = this.waiting.shift();
    if (id === undefined) return this.onerror?.(new Error(`a message from the MCP server was refused: ${why}`));
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: REFUSED_CODE, message: `the MCP server's answer was refused: ${why}` } });
  }
}
