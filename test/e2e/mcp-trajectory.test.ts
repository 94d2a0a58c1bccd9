import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeAnswer, type FakeModelServer } from '../helpers/fake-openai.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// Trajectory mode against a real MCP server from the npm registry (@modelcontextprotocol/server-filesystem,
// a devDependency spawned with node, no network): the model reads a file through MCP and the result
// reaches its next request; replio's deny-by-default holds for the server's destructive tools, and
// tool_permission can allow one tool by name.

const SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const project = tempProject('runspec-mcp-');
const data = join(project.dir, 'data');
let model: FakeModelServer;
let sink: OtlpSink;

const call = (name: string, args: Record<string, unknown>, id: string): FakeAnswer => ({ toolCalls: [{ id, name, arguments: args }] });
const SCRIPT: Record<string, FakeAnswer[]> = {
  'What is the secret word in data/notes.txt?': [call('read_text_file', { path: join(data, 'notes.txt') }, 'call_read'), { text: 'pelican' }],
  'Write data/out.txt.': [call('write_file', { path: join(data, 'out.txt'), content: 'written' }, 'call_write'), { text: 'could not' }],
  'Write data/allowed.txt.': [call('write_file', { path: join(data, 'allowed.txt'), content: 'written' }, 'call_write2'), { text: 'written' }],
};

beforeAll(async () => {
  project.write('data/notes.txt', 'The secret word is pelican.\n');
  project.write('evals/read.json', JSON.stringify({ id: 'mcp-read', task: 'What is the secret word in data/notes.txt?', expected: ['read_text_file'] }));
  project.write('evals/denied.json', JSON.stringify({ id: 'mcp-denied', task: 'Write data/out.txt.', expected: ['write_file'] }));
  project.write(
    'evals/allowed.json',
    JSON.stringify({ id: 'mcp-allowed', task: 'Write data/allowed.txt.', expected: ['write_file'], tool_permission: { write_file: 'allow' } }),
  );
  model = await startFakeOpenAI({ script: SCRIPT });
  sink = await startOtlpSink();
});
afterAll(async () => {
  await model.close();
  await sink.close();
  project.cleanup();
});

describe('trajectory mode with an MCP toolset (server-filesystem over stdio)', { timeout: 120_000 }, () => {
  it('executes MCP tools, feeds results back, applies permissions by annotation and by tool name', async () => {
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        'evals/read.json',
        'evals/denied.json',
        'evals/allowed.json',
        '--toolset',
        `mcp:${process.execPath} ${SERVER} ${data}`,
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--out',
        'out/mcp.json',
        '--concurrency',
        '1',
      ],
      { env: cliEnv(project.dir, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, RUNSPEC_CAPTURE_CONTENT: 'true' }), cwd: project.dir, timeoutMs: 60_000 },
    );
    expect(cli.stderr).not.toMatch(/error:/);
    const requests = model.chatRequests();
    const afterRead = requests.find((r) => r.json.messages.some((m: any) => m.role === 'tool' && m.tool_call_id === 'call_read'));
    expect(afterRead).toBeDefined();
    const readResult = afterRead!.json.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_read');
    expect(readResult.content).toContain('The secret word is pelican.');

    const afterDenied = requests.find((r) => r.json.messages.some((m: any) => m.role === 'tool' && m.tool_call_id === 'call_write'));
    const deniedResult = afterDenied!.json.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_write');
    expect(deniedResult.content).toBe('Error: permission denied: write_file is an edit tool and edit tools are denied for this case (tool_permission)');
    expect(existsSync(join(data, 'out.txt'))).toBe(false);
    expect(readFileSync(join(data, 'allowed.txt'), 'utf8')).toBe('written');

    // The model sees the server's schemas as written (the SDK emits additionalProperties: false).
    const offered = requests[0]!.json.tools.find((t: any) => t.function.name === 'read_text_file');
    expect(offered.function.parameters).toMatchObject({ type: 'object', required: ['path'] });

    const doc = JSON.parse(readFileSync(join(project.dir, 'out/mcp.json'), 'utf8'));
    const cases = doc.iterations[0].cases;
    expect(cases['mcp-read'].runs[0].replio).toMatchObject({ names: ['read_text_file'], accuracy: 1, errors: 0, status: 'ok' });
    expect(cases['mcp-denied'].runs[0].replio).toMatchObject({ names: ['write_file'], errors: 1 });
    expect(cases['mcp-allowed'].runs[0].replio).toMatchObject({ names: ['write_file'], errors: 0 });

    // The denied call is an ERROR span with error.type; the executed read is not.
    const tools = sink.spans().filter((s: any) => s.name.startsWith('execute_tool '));
    const denied = tools.find((s: any) => s.attributes['gen_ai.tool.call.id'] === 'call_write')!;
    expect(denied.status.code).toBe(2);
    expect(denied.attributes['error.type']).toBe('permission_denied');
    const read = tools.find((s: any) => s.attributes['gen_ai.tool.call.id'] === 'call_read')!;
    expect(read.status.code ?? 0).not.toBe(2);
    expect(read.attributes['runspec.eval.executed']).toBe(true);
  });
});
