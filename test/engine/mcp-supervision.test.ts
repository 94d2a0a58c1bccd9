import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpToolHost, MAX_RESTARTS } from '../../src/engine/mcp-tools.js';
import { runSuite } from '../../src/engine/suite-runner.js';
import { createMockProvider } from '../../src/providers/mock.js';
import { loadToolset } from '../../src/toolset/load.js';
import type { Case } from '../../src/types/case.js';
import type { Toolset } from '../../src/types/toolset.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

// A dead MCP server used to stay dead: after a crash, or a 50 MB or 5,000-deep result that closed the
// connection, every later call failed `Not connected`, scored as the model's tool error, exit 0, with
// no warning. Now the server is restarted (at most 3 times a run), the sample that hit the crash is an
// infrastructure error, a warning is printed, and oversized results are refused with the connection up.

const dir = mkdtempSync(join(tmpdir(), 'runspec-mcp-sup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SERVER = join(REPO_ROOT, 'test/engine/fixtures/mcp-fragile-server.mjs');
const env = { PATH: process.env.PATH, HOME: process.env.HOME };
let starts = 0;
function target(): { spec: string; startsFile: string } {
  const startsFile = join(dir, `starts-${++starts}`);
  writeFileSync(startsFile, '');
  return { spec: `${process.execPath} ${SERVER} ${startsFile}`, startsFile };
}
const startCount = (f: string): number => readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).length;
const toolsetOf = (spec: string): Toolset => ({ name: 'fragile', runnables: [], hosts: [], groups: {}, source: `mcp:${spec}` });

describe('MCP server supervision', { timeout: 120_000 }, () => {
  it('restarts a server that died, at most 3 times, with a warning each time; the call that hit it is an infrastructure error', async () => {
    const { spec, startsFile } = target();
    const warnings: string[] = [];
    const host = createMcpToolHost({ projectDir: REPO_ROOT, env, onWarning: (w) => warnings.push(w) });
    const ts = toolsetOf(spec);
    try {
      expect((await host.call(ts, 'echo', { message: 'a' })).result).toBe('echo: a');
      for (let i = 1; i <= MAX_RESTARTS; i++) {
        const hit = await host.call(ts, 'crash', {});
        expect(hit.errorType).toBe('mcp_server_died');
        expect(hit.stop?.code).toBe('MCP');
        expect(hit.stop?.message).toMatch(/the MCP server died during the call to crash/);
        // The next call restarts it.
        expect((await host.call(ts, 'echo', { message: `after ${i}` })).result).toBe(`echo: after ${i}`);
        expect(startCount(startsFile)).toBe(i + 1);
      }
      expect(warnings.filter((w) => /died during a call to crash/.test(w))).toHaveLength(MAX_RESTARTS);
      expect(warnings.filter((w) => /restarting it \(\d of 3\)/.test(w))).toHaveLength(MAX_RESTARTS);
      expect(warnings.join('\n')).toContain('fragile: crashing on purpose');
      // A fourth death: no fourth restart, and calls end their samples as errors.
      await host.call(ts, 'crash', {});
      const after = await host.call(ts, 'echo', { message: 'x' });
      expect(after.stop?.code).toBe('MCP');
      expect(after.result).toMatch(/restarted 3 times in this run already/);
      expect(startCount(startsFile)).toBe(MAX_RESTARTS + 1);
    } finally {
      await host.close();
    }
  });

  it.each([
    { tool: 'huge', why: /larger than 8388608 bytes/ },
    { tool: 'deep', why: /nested deeper than 64 levels/ },
  ])('refuses a $tool result and keeps the connection for the next call', async ({ tool, why }) => {
    const { spec, startsFile } = target();
    const warnings: string[] = [];
    const host = createMcpToolHost({ projectDir: REPO_ROOT, env, onWarning: (w) => warnings.push(w) });
    const ts = toolsetOf(spec);
    try {
      const r = await host.call(ts, tool, {});
      expect(r.isError).toBe(true);
      expect(r.result).toMatch(why);
      expect(r.stop).toBeUndefined();
      expect((await host.call(ts, 'echo', { message: 'still up' })).result).toBe('echo: still up');
      expect(startCount(startsFile)).toBe(1);
      expect(warnings).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('makes the sample whose call hit the crash an errored sample, not a tool error of the model', async () => {
    const { spec } = target();
    const toolset = await loadToolset(`mcp:${spec}`, { projectDir: REPO_ROOT, env, timeoutMs: 20_000 });
    const mk = (id: string, prompt: string): Case => ({
      id,
      dialect: 'turnstone',
      tags: [],
      source: { file: 'inline', source: 'file' },
      prompt,
      files: {},
      mode: 'trajectory',
      settings: {},
    });
    const provider = createMockProvider({
      script: {
        cases: {
          crashes: [{ toolCalls: [{ name: 'crash', arguments: {} }] }, { text: 'done' }],
          later: [{ toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }] }, { text: 'done' }],
        },
      },
    });
    const warnings: string[] = [];
    const out = await runSuite({
      cases: [mk('crashes', 'crash it'), mk('later', 'echo hi')],
      // One sample: each attempt at crashing takes a restart (the sample runs again once).
      samples: 1,
      provider,
      toolsetFor: () => toolset,
      runId: 'r',
      mcpServers: { projectDir: REPO_ROOT, env },
      concurrency: 1,
      onWarning: (w) => warnings.push(w),
    });
    const [crashed, later] = out.results;
    expect(crashed!.samples[0]).toMatchObject({ status: 'errored', error: { code: 'MCP' } });
    expect(later!.samples[0]!.status).toBe('scored');
    expect(later!.samples[0]!.status === 'scored' && later!.samples[0]!.toolLog?.[0]).toMatchObject({ tool: 'echo', result: 'echo: hi' });
    expect(warnings.some((w) => /died during a call to crash/.test(w))).toBe(true);
  });

  // A sample whose call hit a dying server used to stay an errored sample (exit 3) even when the
  // server came back: now it runs once more on the restarted server.
  it.each([
    { name: 'passes when the restarted server answers', tool: 'crash_once', status: 'scored' },
    { name: 'stays an errored sample when the restart fails', tool: 'crash_for_good', status: 'errored' },
  ])('runs the sample again after a restart, once: $name', async ({ tool, status }) => {
    const { spec } = target();
    const toolset = await loadToolset(`mcp:${spec}`, { projectDir: REPO_ROOT, env, timeoutMs: 20_000 });
    const c: Case = {
      id: 'flaky',
      dialect: 'turnstone',
      tags: [],
      source: { file: 'inline', source: 'file' },
      prompt: 'call it',
      files: {},
      mode: 'trajectory',
      settings: {},
    };
    let modelCalls = 0;
    const mock = createMockProvider({ script: { cases: { flaky: [{ toolCalls: [{ name: tool, arguments: {} }] }, { text: 'done' }] } } });
    const provider = { ...mock, chat: (req: Parameters<typeof mock.chat>[0]) => (modelCalls++, mock.chat(req)) };
    const warnings: string[] = [];
    const out = await runSuite({
      cases: [c],
      samples: 1,
      provider,
      toolsetFor: () => toolset,
      runId: 'r',
      mcpServers: { projectDir: REPO_ROOT, env },
      concurrency: 1,
      onWarning: (w) => warnings.push(w),
    });
    const sample = out.results[0]!.samples;
    expect(sample).toHaveLength(1);
    expect(sample[0]!.status).toBe(status);
    if (status === 'scored') {
      expect(sample[0]!.status === 'scored' && sample[0]!.toolLog?.[0]).toMatchObject({ tool, result: 'survived' });
      // One model call in the attempt that hit the crash, two in the one that passed.
      expect(modelCalls).toBe(3);
    } else {
      expect(sample[0]).toMatchObject({ status: 'errored', error: { code: 'MCP', message: expect.stringMatching(/cannot start the MCP server/) } });
      expect(JSON.stringify(sample[0])).not.toContain('retryable');
    }
    expect(warnings.filter((w) => /running the sample again/.test(w))).toHaveLength(1);
    expect(warnings.some((w) => /restarting it \(1 of 3\)/.test(w))).toBe(true);
  });
});
