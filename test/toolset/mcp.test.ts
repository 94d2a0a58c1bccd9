import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolsetError, EXIT_CODES } from '../../src/errors.js';
import { createLayout, effectiveAutonomy, loadToolset } from '../../src/toolset/index.js';
import { splitCommandLine } from '../../src/toolset/mcp.js';
import type { Toolset } from '../../src/types/toolset.js';
import { startMcpHttp, type McpHttpServer } from '../helpers/mcp-http.js';
// @ts-expect-error plain .mjs test fixture without types
import { createServer as createMcpServer } from './fixtures/mcp-server.mjs';
import { closedPort } from '../helpers/ports.js';

const SERVER = fileURLToPath(new URL('./fixtures/mcp-server.mjs', import.meta.url));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: 'sk-never-handed-over' };

function expectNotesToolset(ts: Toolset): void {
  expect(ts.name).toBe('notes-server');
  expect(ts.hosts).toEqual([]);
  const by = Object.fromEntries(ts.runnables.map((r) => [r.name, r]));
  expect(Object.keys(by).sort()).toEqual(['append_note', 'delete_note', 'ping', 'read_note']);
  expect(by.read_note).toMatchObject({ category: 'read', autonomy: 'autonomous', group: 'notes-server', description: 'Read a note by id.' });
  expect(by.read_note!.args).toEqual([
    { name: 'id', type: 'string', required: true, description: 'Note id' },
    { name: 'lines', type: 'int', required: false, min: 1, max: 100 },
  ]);
  expect(by.delete_note).toMatchObject({ category: 'edit', autonomy: 'manual' });
  expect(by.delete_note!.args[1]).toMatchObject({ name: 'mode', type: 'string', required: true, choices: ['soft', 'hard'] });
  expect(by.append_note).toMatchObject({ category: 'edit', autonomy: 'confirm' });
  expect(by.append_note!.args[2]).toMatchObject({ name: 'tags', type: 'array', required: false, schema: { type: 'array', items: { type: 'string' } } });
  expect(by.ping!.ownHostArg).toBe(true);
}

describe('MCP over stdio', () => {
  it('lists the tools of a real SDK server and maps schemas and annotations', async () => {
    const ts = await loadToolset(`mcp:${process.execPath} ${SERVER}`, { projectDir: process.cwd(), env, timeoutMs: 20_000 });
    expect(ts.source).toBe(`mcp:${process.execPath} ${SERVER}`);
    expectNotesToolset(ts);
    const layout = createLayout('dedup', ts);
    const resolved = layout.resolve({ id: '1', name: 'notes-server__delete_note', arguments: { id: 'n1', mode: 'hard' } });
    expect(resolved).toMatchObject({ runnable: 'delete_note', known: true, group: 'notes-server' });
    expect(effectiveAutonomy(ts, resolved)).toBe('manual');
  });

  it('fails with an MCP error (exit 3) when the command is not an MCP server', async () => {
    const err = await loadToolset(`mcp:${process.execPath} -e "process.exit(1)"`, { projectDir: process.cwd(), env, timeoutMs: 10_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolsetError);
    expect((err as ToolsetError).code).toBe('MCP');
    expect(EXIT_CODES.MCP).toBe(3);
    expect((err as ToolsetError).message).toMatch(/^mcp:.*: cannot list MCP tools: /);
  });

  it('hands the server only the safe default environment, never API keys', async () => {
    const probe = `${process.execPath} -e "process.stderr.write(JSON.stringify(Object.keys(process.env)));process.exit(1)"`;
    const err = (await loadToolset(`mcp:${probe}`, { projectDir: process.cwd(), env, timeoutMs: 10_000 }).catch((e: unknown) => e)) as ToolsetError;
    expect(err.message).toContain('PATH');
    expect(err.message).not.toContain('OPENAI_API_KEY');
  });
});

describe('MCP over streamable HTTP', () => {
  let http: McpHttpServer;
  beforeAll(async () => {
    http = await startMcpHttp(createMcpServer);
  });
  afterAll(async () => {
    await http.close();
  });

  it('lists the same tools from a URL', async () => {
    const ts = await loadToolset(`mcp:${http.url}`, { projectDir: process.cwd(), env, timeoutMs: 20_000 });
    expectNotesToolset(ts);
  });

  it('fails with an MCP error when nothing listens', async () => {
    const err = await loadToolset(`mcp:http://127.0.0.1:${await closedPort()}/mcp`, { projectDir: process.cwd(), env, timeoutMs: 5_000 }).catch(
      (e: unknown) => e,
    );
    expect((err as ToolsetError).code).toBe('MCP');
  });
});

describe('MCP timeouts', () => {
  it('gives up on a server that never answers, within the limit', async () => {
    const silent = `${process.execPath} -e "setInterval(() => {}, 1000)"`;
    const err = await loadToolset(`mcp:${silent}`, { projectDir: process.cwd(), env, timeoutMs: 500 }).catch((e: unknown) => e);
    expect((err as ToolsetError).code).toBe('MCP');
    expect((err as ToolsetError).message).toMatch(/cannot list MCP tools: .*(timed out|no answer within 500 ms)/i);
  });
});

describe('splitCommandLine', () => {
  it.each([
    { line: 'npx -y server .', want: ['npx', '-y', 'server', '.'] },
    { line: `node -e "a b" 'c d'`, want: ['node', '-e', 'a b', 'c d'] },
    { line: 'cmd "" x\\ y', want: ['cmd', '', 'x y'] },
    { line: '  spaced   out  ', want: ['spaced', 'out'] },
  ])('$line', ({ line, want }) => {
    expect(splitCommandLine(line)).toEqual(want);
  });
});
