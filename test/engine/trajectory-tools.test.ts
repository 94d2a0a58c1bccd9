import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpToolHost, type ToolHost } from '../../src/engine/mcp-tools.js';
import { runCase } from '../../src/engine/run-case.js';
import { loadFixtureText } from '../../src/fixtures/load.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import type { Provider } from '../../src/providers/types.js';
import { countErrors, callsOf } from '../../src/scoring/replio.js';
import { loadToolset } from '../../src/toolset/load.js';
import { parseToolsetText } from '../../src/toolset/file.js';
import type { Case } from '../../src/types/case.js';
import type { Toolset } from '../../src/types/toolset.js';
import { startFakeOpenAI, type FakeAnswer, type FakeModelServer } from '../helpers/fake-openai.js';
import { startMcpHttp, type McpHttpServer } from '../helpers/mcp-http.js';
// @ts-expect-error plain .mjs test fixture without types
import { createServer as createMcpServer } from './fixtures/mcp-tools-server.mjs';

// Tools of real toolsets in trajectory mode: MCP over streamable HTTP (results, isError, structured
// content, the per-call time limit, permissions from annotations), tool_mocks for tools without an
// implementation, and calls beyond the parallel cap.

const env = { PATH: process.env.PATH, HOME: process.env.HOME };
let http: McpHttpServer;
let model: FakeModelServer;
let provider: Provider;
let host: ToolHost;
let mcp: Toolset;
const script: Record<string, FakeAnswer[]> = {};

const mk = (id: string, prompt: string, extra: Partial<Case> = {}): Case => ({
  id,
  dialect: 'replio',
  tags: [],
  source: { file: 'inline', source: 'file' },
  prompt,
  files: {},
  mode: 'trajectory',
  settings: {},
  ...extra,
});
const calls = (...list: Array<[string, Record<string, unknown>]>): FakeAnswer => ({
  toolCalls: list.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args })),
});

beforeAll(async () => {
  http = await startMcpHttp(createMcpServer);
  model = await startFakeOpenAI({ script });
  provider = createOpenAIProvider({ baseUrl: model.url, model: 'fake-model', retryBaseMs: 1 });
  mcp = await loadToolset(`mcp:${http.url}`, { projectDir: process.cwd(), env, timeoutMs: 20_000 });
  host = createMcpToolHost({ projectDir: process.cwd(), env, callTimeoutMs: 30_000 });
});
afterAll(async () => {
  await host.close();
  await provider.close();
  await model.close();
  await http.close();
});

describe('MCP tools executed over streamable HTTP', () => {
  it('passes text, isError and structured content back to the model and records them', async () => {
    const prompt = 'use the mcp tools';
    script[prompt] = [calls(['echo', { message: 'hi' }], ['fail', {}], ['weather', { city: 'Oslo' }]), { text: 'done' }];
    const run = await runCase({ case: mk('mcp-http', prompt), sample: 0, provider, toolset: mcp, toolHost: host });
    expect(run.status).toBe('ok');
    const [echo, fail, weather] = run.toolCalls;
    expect(echo).toMatchObject({ executed: true, isError: false, result: 'echo: hi' });
    expect(fail).toMatchObject({ executed: true, isError: true, result: 'the backend is down' });
    expect(fail!.errorType).toBeUndefined();
    expect(weather).toMatchObject({ executed: true, isError: false, structuredContent: { city: 'Oslo', temp_c: 21 } });
    const next = model.chatRequests().find((r) => r.json.messages.some((m: { tool_call_id?: string }) => m.tool_call_id === 'c2'))!;
    expect(next.json.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content)).toEqual([
      'echo: hi',
      'the backend is down',
      '{"city":"Oslo","temp_c":21}',
    ]);
    expect(countErrors(run)).toBe(1);
  });

  it('gives up on a call past its time limit with an error result (tool_timeout)', async () => {
    const prompt = 'call the slow tool';
    script[prompt] = [calls(['slow', {}]), { text: 'done' }];
    // A host of its own with a short limit; the tool answers only after 20 s.
    const impatient = createMcpToolHost({ projectDir: process.cwd(), env, callTimeoutMs: 1000 });
    try {
      const run = await runCase({ case: mk('mcp-slow', prompt), sample: 0, provider, toolset: mcp, toolHost: impatient });
      expect(run.toolCalls[0]).toMatchObject({
        executed: false,
        isError: true,
        errorType: 'tool_timeout',
        result: 'Error: slow did not answer within 1000 ms',
      });
    } finally {
      await impatient.close();
    }
  });

  it('derives categories from annotations and lets tool_permission allow one tool by name', async () => {
    expect(Object.fromEntries(mcp.runnables.map((r) => [r.name, r.category]))).toEqual({
      echo: 'read',
      fail: 'read',
      weather: 'web',
      slow: 'read',
      drop_table: 'edit',
    });
    const prompt = 'drop the users table';
    script[prompt] = [calls(['drop_table', { table: 'users' }]), { text: 'done' }];
    const denied = await runCase({ case: mk('mcp-deny', prompt), sample: 0, provider, toolset: mcp, toolHost: host });
    expect(denied.toolCalls[0]).toMatchObject({ executed: false, isError: true, errorType: 'permission_denied' });
    const allowed = await runCase({
      case: mk('mcp-allow', prompt, { settings: { toolPermission: { drop_table: 'allow' } } }),
      sample: 0,
      provider,
      toolset: mcp,
      toolHost: host,
    });
    expect(allowed.toolCalls[0]).toMatchObject({ executed: true, isError: false, result: 'dropped' });
  });
});

const TOOLS = JSON.stringify([
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather of a city.',
      parameters: { type: 'object', properties: { city: { type: 'string', pattern: '^[A-Z]' } }, required: ['city'], additionalProperties: false },
    },
  },
  { type: 'function', function: { name: 'job_status', description: 'Status of a job.', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'send_email', description: 'Send an email.', parameters: { type: 'object', properties: { to: { type: 'string' } } } } },
]);

describe('tool_mocks for a toolset without an implementation', () => {
  const toolset = parseToolsetText(TOOLS, 'tools.json');
  const suite = (mocks: unknown): Case =>
    loadFixtureText(JSON.stringify({ cases: [{ id: 'mocked', user_prompt: 'weather twice', tool_mocks: mocks }] }), { file: 'suite.json' })[0]!.cases[0]!;

  it('answers static, by-argument and sequence mocks; an unmatched call is an error', async () => {
    const c = suite({
      get_weather: [{ when: { city: 'Paris' }, result: 'Rain' }, { when: { city: { $regex: '^Lon' } }, error: 'no data' }, { result: { temp_c: 21 } }],
      job_status: { sequence: ['pending', 'done'] },
    });
    script['weather twice'] = [
      calls(['get_weather', { city: 'Paris' }], ['get_weather', { city: 'London' }], ['get_weather', { city: 'Oslo' }]),
      calls(['job_status', {}], ['job_status', {}], ['job_status', {}]),
      calls(['send_email', { to: 'a@b.c' }]),
      { text: 'done' },
    ];
    const run = await runCase({ case: c, sample: 0, provider, toolset });
    expect(run.toolCalls.map((r) => [r.result, r.isError === true, r.mocked === true, r.errorType ?? null])).toEqual([
      ['Rain', false, true, null],
      ['no data', true, true, null],
      ['{"temp_c":21}', false, true, null],
      ['pending', false, true, null],
      ['done', false, true, null],
      ['done', false, true, null],
      [expect.stringMatching(/^Error: tool "send_email" has no implementation in trajectory mode and no mock/), true, false, 'not_implemented'],
    ]);
    // The model sees the tools file's schema as written.
    const first = model.chatRequests().find((r) => r.json.messages.some((m: { content?: string }) => m.content === 'weather twice'))!;
    expect(first.json.tools[0].function.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string', pattern: '^[A-Z]' } },
      required: ['city'],
      additionalProperties: false,
    });
  });

  it('rejects a malformed mock with file, line and field', () => {
    expect(() => suite({ get_weather: { result: 'a', error: 'b' } })).toThrow(
      /suite\.json:\d+: cases\[0\]\.tool_mocks\.get_weather: expected exactly one of result, error, sequence/,
    );
  });
});

describe('calls beyond the parallel cap', () => {
  it('are dropped: answered, shown, but neither calls nor errors', async () => {
    const prompt = 'read twelve files';
    const twelve = Array.from({ length: 12 }, (_, i): [string, Record<string, unknown>] => ['file_read', { path: `f${i}.txt` }]);
    script[prompt] = [calls(...twelve), { text: 'done' }];
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, `file ${i}\n`]));
    const run = await runCase({ case: mk('cap', prompt, { files }), sample: 0, provider });
    expect(run.toolCalls).toHaveLength(12);
    expect(run.toolCalls.filter((r) => r.dropped).map((r) => r.call.arguments.path)).toEqual(['f10.txt', 'f11.txt']);
    expect(callsOf(run)).toHaveLength(10);
    expect(countErrors(run)).toBe(0);
  });
});
