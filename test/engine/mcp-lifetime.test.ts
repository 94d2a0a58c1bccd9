import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../../src/engine/suite-runner.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import { loadToolset } from '../../src/toolset/load.js';
import type { Case } from '../../src/types/case.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

// MCP servers a run starts live for the run: one server process serves every sample, and it is gone
// when runSuite returns.

const SERVER = pathToFileURL(join(REPO_ROOT, 'test/toolset/fixtures/mcp-server.mjs')).href;
const dir = mkdtempSync(join(tmpdir(), 'runspec-mcp-life-'));
const pidFile = join(dir, 'pids');
// A stdio MCP server that appends its pid to a file first (the env it gets is filtered, so argv says where).
const code = `import { appendFileSync } from 'node:fs'; appendFileSync(process.argv[1], process.pid + '\\n'); const { createServer } = await import(${JSON.stringify(SERVER)}); const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js'); await createServer().connect(new StdioServerTransport());`;
const spec = `mcp:${process.execPath} --input-type=module -e ${JSON.stringify(code)} ${pidFile}`;
const env = { PATH: process.env.PATH, HOME: process.env.HOME };
let model: FakeModelServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ script: { 'read note n1': [{ toolCalls: [{ name: 'read_note', arguments: { id: 'n1' } }] }, { text: 'done' }] } });
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('MCP server lifetime', () => {
  it('starts one server for all samples of the run and stops it when the run ends', async () => {
    const toolset = await loadToolset(spec, { projectDir: REPO_ROOT, env, timeoutMs: 20_000 });
    const listedBy = readFileSync(pidFile, 'utf8').trim().split('\n').length;
    const c: Case = {
      id: 'note',
      dialect: 'turnstone',
      tags: [],
      source: { file: 'inline', source: 'file' },
      prompt: 'read note n1',
      files: {},
      mode: 'trajectory',
      settings: { samples: 3 },
    };
    const provider = createOpenAIProvider({ baseUrl: model.url, model: 'fake-model', retryBaseMs: 1 });
    try {
      const out = await runSuite({ cases: [c], provider, toolsetFor: () => toolset, runId: 'r', mcpServers: { projectDir: REPO_ROOT, env }, concurrency: 3 });
      const samples = out.results[0]!.samples;
      expect(samples).toHaveLength(3);
      for (const s of samples) expect(s.status === 'scored' && s.toolLog?.[0]).toMatchObject({ tool: 'read_note', result: 'note' });
    } finally {
      await provider.close();
    }
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    // One more process than listing needed: the run's own server, shared by the three samples.
    expect(pids).toHaveLength(listedBy + 1);
    const runServer = pids.at(-1)!;
    // Closing the transport ends the child; give the OS a bounded moment to reap it.
    for (let i = 0; i < 50 && alive(runServer); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(runServer)).toBe(false);
  });
});
