import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCase } from '../../src/engine/run-case.js';
import { toolLog } from '../../src/engine/tool-log.js';
import { loadFixtureFile } from '../../src/fixtures/load.js';
import { createAnthropicProvider } from '../../src/providers/anthropic.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import type { Provider } from '../../src/providers/types.js';
import { scoreRun } from '../../src/scoring/verdict.js';
import type { Case } from '../../src/types/case.js';
import { startFakeAnthropic } from '../helpers/fake-anthropic.js';
import { startFakeOpenAI, type FakeAnswer, type FakeModelServer } from '../helpers/fake-openai.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

const load = (rel: string): Case[] => loadFixtureFile(join(REPO_ROOT, rel)).flatMap((s) => s.cases);
const REPLIO = ['read-file-lines', 'find-then-read', 'list-directory', 'grep-symbol', 'page-large-file'].map((id) => load(`fixtures/replio/${id}.json`)[0]!);
const TURNSTONE = load('fixtures/turnstone/workspace.json');
const byId = (cases: Case[], id: string) => cases.find((c) => c.id === id)!;

const call = (name: string, args: Record<string, unknown>, id?: string): FakeAnswer => ({ toolCalls: [{ ...(id ? { id } : {}), name, arguments: args }] });

// What a competent model does for each bundled case, turn by turn.
const SCRIPT: Record<string, FakeAnswer[]> = {
  'read-file-lines': [call('file_read', { path: 'src/app.py' }, 'call_read'), { text: 'src/app.py has 4 lines.' }],
  'find-then-read': [call('glob', { pattern: '**/settings.py' }), call('file_read', { path: 'src/shop/config/settings.py' }), { text: 'DEBUG is False.' }],
  'list-directory': [call('list_directory', {}), { text: 'docs, scripts, src' }],
  'grep-symbol': [call('grep', { pattern: 'def parse_header' }), { text: 'pkg/http/headers.py line 10' }],
  'page-large-file': [call('file_read', { path: 'logs/server.log', offset: 240, limit: 1 }), { text: 'disk quota exceeded' }],
  'fix-typo-in-place': [
    call('read_file', { path: 'greet.py' }),
    call('edit_file', { path: 'greet.py', old_string: 'Helo', new_string: 'Hello' }),
    { text: 'Fixed.' },
  ],
  'create-new-file': [call('write_file', { path: 'hello.txt', content: 'hello world\n' }), { text: 'Created.' }],
  'test-and-inspect': [
    {
      toolCalls: [
        { name: 'bash', arguments: { command: 'python3 -m pytest -q || echo "pytest ran"' } },
        { name: 'read_file', arguments: { path: 'math_utils.py' } },
      ],
    },
    { text: 'sub is broken.' },
  ],
  'inspect-config-any-way': [call('read_file', { path: 'config.json' }), { text: 'port 8080' }],
};

let server: FakeModelServer;
let provider: Provider;
const promptToId = new Map([...REPLIO, ...TURNSTONE].map((c) => [c.prompt, c.id]));

beforeAll(async () => {
  server = await startFakeOpenAI({
    respond: (req) => {
      const prompt = req.json.messages.find((m: { role: string }) => m.role === 'user')?.content;
      const id = promptToId.get(prompt);
      if (!id || !SCRIPT[id]) return undefined;
      const turn = req.json.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      return SCRIPT[id][turn] ?? { text: 'done' };
    },
  });
  provider = createOpenAIProvider({ baseUrl: server.url, model: 'fake-model', retryBaseMs: 1 });
});
afterAll(async () => {
  await provider.close();
  await server.close();
});

describe('trajectory mode: the bundled replio catalog against a scripted server', () => {
  it.each(REPLIO.map((c) => ({ name: c.id, c })))('runs $name end to end and passes its verifier', async ({ c }) => {
    const run = await runCase({ case: c, sample: 0, provider });
    expect(run.status).toBe('ok');
    expect(run.mode).toBe('trajectory');
    expect(run.toolCalls.map((t) => t.call.name)).toEqual(c.replio!.expected);
    expect(run.toolCalls.every((t) => t.executed && !t.isError)).toBe(true);
    expect(run.finalText).toBe((SCRIPT[c.id]!.at(-1) as { text: string }).text);
    const verdict = scoreRun(c, run);
    expect(verdict.replio?.pass).toBe(true);
    expect(verdict.replio?.accuracy).toBe(1);
  });

  it('executes the tools for real and feeds each result back under its call id', async () => {
    const c = byId(REPLIO, 'read-file-lines');
    const before = server.chatRequests().length;
    const run = await runCase({ case: c, sample: 0, provider });
    const second = server.chatRequests()[before + 1]!.json;
    expect(second.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_read', type: 'function', function: { name: 'file_read', arguments: '{"path":"src/app.py"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_read', content: run.toolCalls[0]!.result },
    ]);
    expect(second.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'file_read',
      'glob',
      'grep',
      'list_directory',
      'file_edit',
      'file_write',
      'run_command',
      'read_file',
      'write_file',
      'edit_file',
      'bash',
    ]);
    expect(second.messages[0].role).toBe('system');
    expect(run.toolCalls[0]!.result).toBe(
      c.files['src/app.py']!.trimEnd()
        .split('\n')
        .map((l, i) => `${String(i + 1).padStart(6)}\t${l}`)
        .join('\n'),
    );
    expect(run.toolCalls[0]!.resolved).toMatchObject({ runnable: 'file_read', known: true, discovery: false, args: { path: 'src/app.py' } });
  });

  it('returns real results: glob, grep and paging find what they should', async () => {
    const runs = Object.fromEntries(
      await Promise.all(
        ['find-then-read', 'grep-symbol', 'page-large-file'].map(async (id) => [id, await runCase({ case: byId(REPLIO, id), sample: 0, provider })] as const),
      ),
    );
    expect(runs['find-then-read']!.toolCalls[0]!.result).toBe('src/shop/config/settings.py');
    expect(runs['find-then-read']!.toolCalls[1]!.result).toContain('DEBUG = False');
    expect(runs['grep-symbol']!.toolCalls[0]!.result).toBe('pkg/http/headers.py:10: def parse_header(raw):');
    expect(runs['page-large-file']!.toolCalls[0]!.result).toContain('ERROR worker-3 disk quota exceeded');
    expect(runs['page-large-file']!.toolCalls[0]!.result).toContain('call file_read with offset=241 to continue');
  });

  it('records every model call with request, params, response, usage and times', async () => {
    const run = await runCase({ case: byId(REPLIO, 'find-then-read'), sample: 2, provider, temperature: 0.1 });
    expect(run.sample).toBe(2);
    expect(run.modelCalls).toHaveLength(3);
    const [m0, m1] = run.modelCalls;
    expect(m0).toMatchObject({
      index: 0,
      turn: 0,
      provider: 'openai',
      requestModel: 'fake-model',
      responseModel: 'fake-model',
      responseId: expect.stringMatching(/^chatcmpl-/),
      serverAddress: '127.0.0.1',
    });
    expect(m0!.request.params).toEqual({ temperature: 0.1 });
    expect(m0!.request.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(m1!.request.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(m0!.response!.toolCalls[0]!.name).toBe('glob');
    expect(m0!.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(run.usage).toEqual({ promptTokens: 30, completionTokens: 15, totalTokens: 45 });
    for (const m of run.modelCalls) {
      expect(m.endTimeMs).toBeGreaterThanOrEqual(m.startTimeMs);
      expect(m.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(run.toolCalls[0]!.startTimeMs).toBeGreaterThanOrEqual(m0!.endTimeMs);
    expect(run.toolCalls.map((t) => [t.turn, t.modelCallIndex])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(run.endTimeMs).toBeGreaterThanOrEqual(run.startTimeMs);
    expect(toolLog(run)).toEqual([
      { tool: 'glob', args: { pattern: '**/settings.py' }, result: 'src/shop/config/settings.py', turn: 0 },
      { tool: 'file_read', args: { path: 'src/shop/config/settings.py' }, result: expect.stringContaining('DEBUG'), turn: 1 },
    ]);
  });
});

describe('trajectory mode: the turnstone suite', () => {
  it.each(TURNSTONE.map((c) => ({ name: c.id, c })))('runs $name end to end and matches its expected actions', async ({ c }) => {
    const run = await runCase({ case: c, sample: 0, provider });
    expect(run.status).toBe('ok');
    // turnstone's HeadlessSession auto-approves: edits and bash run
    expect(run.toolCalls.every((t) => t.executed)).toBe(true);
    expect(scoreRun(c, run).match?.pass).toBe(true);
  });

  it('really edits the worktree, and keeps it with keepWorktrees', async () => {
    const run = await runCase({ case: byId(TURNSTONE, 'fix-typo-in-place'), sample: 0, provider, keepWorktrees: true });
    try {
      expect(run.worktree).toBeDefined();
      expect(readFileSync(join(run.worktree!, 'greet.py'), 'utf8')).toContain('Hello');
      expect(readFileSync(join(run.worktree!, 'greet.py'), 'utf8')).not.toContain('Helo');
    } finally {
      rmSync(run.worktree!, { recursive: true, force: true });
    }
  });

  it('removes the worktree afterwards by default', async () => {
    const run = await runCase({ case: byId(TURNSTONE, 'create-new-file'), sample: 0, provider });
    expect(run.worktree).toBeUndefined();
    const written = run.toolCalls[0]!.result!;
    expect(written).toBe('Wrote 12 bytes to hello.txt');
  });
});

function replioCase(id: string, patch: Partial<Case> = {}): Case {
  return { ...byId(REPLIO, 'read-file-lines'), id, prompt: `prompt of ${id}`, ...patch };
}

async function withScript(
  answers: Record<string, FakeAnswer[] | ((turn: number) => FakeAnswer)>,
  fn: (p: Provider, s: FakeModelServer) => Promise<void>,
  popts: Parameters<typeof createOpenAIProvider>[0] = {},
) {
  const s = await startFakeOpenAI({
    respond: (req) => {
      const prompt: string = req.json.messages.find((m: { role: string }) => m.role === 'user')?.content;
      const turn = req.json.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      const a = answers[prompt];
      if (!a) return undefined;
      return typeof a === 'function' ? a(turn) : (a[turn] ?? { text: 'done' });
    },
  });
  const p = createOpenAIProvider({ baseUrl: s.url, model: 'm', retryBaseMs: 1, ...popts });
  try {
    await fn(p, s);
  } finally {
    await p.close();
    await s.close();
  }
}

describe('trajectory mode: permissions, caps and limits', () => {
  it('denies edit and bash by default for replio cases, and the model sees why', async () => {
    await withScript(
      {
        'prompt of deny': [
          {
            toolCalls: [
              { name: 'file_write', arguments: { path: 'x.txt', content: 'x' } },
              { name: 'run_command', arguments: { command: 'touch y' } },
            ],
          },
        ],
      },
      async (p, s) => {
        const run = await runCase({ case: replioCase('deny'), sample: 0, provider: p, keepWorktrees: true });
        try {
          expect(run.toolCalls.map((t) => [t.executed, t.isError])).toEqual([
            [false, true],
            [false, true],
          ]);
          expect(run.toolCalls[0]!.result).toBe(
            'Error: permission denied: file_write is an edit tool and edit tools are denied for this case (tool_permission)',
          );
          expect(existsSync(join(run.worktree!, 'x.txt'))).toBe(false);
          expect(existsSync(join(run.worktree!, 'y'))).toBe(false);
          const fed = s.chatRequests()[1]!.json.messages.filter((m: { role: string }) => m.role === 'tool');
          expect(fed.map((m: { content: string }) => m.content.slice(0, 25))).toEqual(['Error: permission denied:', 'Error: permission denied:']);
        } finally {
          rmSync(run.worktree!, { recursive: true, force: true });
        }
      },
    );
  });

  it('merges tool_permission over the defaults and appends tools_deny', async () => {
    const answers = {
      'prompt of perm': [
        {
          toolCalls: [
            { name: 'file_write', arguments: { path: 'x.txt', content: 'x' } },
            { name: 'grep', arguments: { pattern: 'x' } },
            { name: 'glob', arguments: { pattern: '*' } },
          ],
        },
      ],
    };
    await withScript(answers, async (p) => {
      const c = replioCase('perm', { settings: { toolPermission: { edit: 'allow', list: 'deny' }, toolsDeny: ['grep'] } });
      const run = await runCase({ case: c, sample: 0, provider: p });
      expect(run.toolCalls.map((t) => t.executed)).toEqual([true, false, false]);
      expect(run.toolCalls[1]!.result).toBe('Error: permission denied: grep is denied for this case (tools_deny)');
      expect(run.toolCalls[2]!.result).toMatch(/^Error: permission denied: glob is a list tool/);
    });
  });

  it('runs at most 10 parallel calls per turn and answers the rest with an error', async () => {
    const many = { toolCalls: Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: 'file_read', arguments: { path: 'src/app.py' } })) };
    await withScript({ 'prompt of many': [many] }, async (p, s) => {
      const run = await runCase({ case: replioCase('many'), sample: 0, provider: p });
      expect(run.toolCalls).toHaveLength(12);
      expect(run.toolCalls.filter((t) => t.executed)).toHaveLength(10);
      expect(run.toolCalls[11]!.result).toMatch(/^Error: too many parallel tool calls/);
      const toolMsgs = s.chatRequests()[1]!.json.messages.filter((m: { role: string }) => m.role === 'tool');
      expect(toolMsgs.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(many.toolCalls.map((c) => c.id));
    });
  });

  it('stops at max_turns with status truncated', async () => {
    await withScript({ 'prompt of loop': () => call('file_read', { path: 'src/app.py' }) }, async (p, s) => {
      const run = await runCase({ case: replioCase('loop'), sample: 0, provider: p, maxTurns: 3 });
      expect(run.status).toBe('truncated');
      expect(run.modelCalls).toHaveLength(3);
      expect(run.toolCalls).toHaveLength(3);
      expect(s.chatRequests()).toHaveLength(3);
    });
  });

  it('keeps unparseable arguments as _raw and answers them with an error', async () => {
    await withScript({ 'prompt of raw': [{ toolCalls: [{ name: 'file_read', arguments: '{"path": src/app.py' }] }] }, async (p) => {
      const run = await runCase({ case: replioCase('raw'), sample: 0, provider: p });
      expect(run.toolCalls[0]!.call.arguments).toEqual({ _raw: '{"path": src/app.py' });
      expect(run.toolCalls[0]!.result).toBe('Error: the arguments are not valid JSON');
      expect(toolLog(run)[0]).toEqual({ tool: 'file_read', args: { _raw: '{"path": src/app.py' }, result: 'Error: the arguments are not valid JSON', turn: 0 });
    });
  });

  it('refuses a model path that escapes the worktree', async () => {
    await withScript({ 'prompt of escape': [call('file_read', { path: '../../../../etc/passwd' })] }, async (p) => {
      const run = await runCase({ case: replioCase('escape'), sample: 0, provider: p });
      expect(run.toolCalls[0]!.result).toMatch(/^Error: path escapes the workspace/);
    });
  });

  it('cuts tool-log results to 500 characters', async () => {
    const c = replioCase('long', { files: { 'big.txt': 'x'.repeat(2000) } });
    await withScript({ 'prompt of long': [call('read_file', { path: 'big.txt' })] }, async (p) => {
      const run = await runCase({ case: c, sample: 0, provider: p });
      expect(run.toolCalls[0]!.result).toHaveLength(2000);
      expect(toolLog(run)[0]!.result).toHaveLength(500);
    });
  });
});

describe('trajectory mode: provider trouble becomes a status, never an exception', () => {
  it('ends with status error after the retries are spent, keeping earlier turns', async () => {
    await withScript({ 'prompt of flaky': (turn) => (turn === 0 ? call('file_read', { path: 'src/app.py' }) : { status: 500 }) }, async (p, s) => {
      const run = await runCase({ case: replioCase('flaky'), sample: 0, provider: p });
      expect(run.status).toBe('error');
      expect(run.error).toMatchObject({ code: 'PROVIDER' });
      expect(run.toolCalls).toHaveLength(1);
      expect(run.modelCalls).toHaveLength(2);
      expect(run.modelCalls[1]!.error?.code).toBe('PROVIDER');
      expect(s.chatRequests()).toHaveLength(4);
    });
  });

  it('reports a rejected key as PROVIDER_AUTH without the key', async () => {
    await withScript(
      { 'prompt of auth': () => ({ status: 401 }) },
      async (p) => {
        const run = await runCase({ case: replioCase('auth'), sample: 0, provider: p });
        expect(run.status).toBe('error');
        expect(run.error!.code).toBe('PROVIDER_AUTH');
        expect(JSON.stringify(run)).not.toContain('sk-engine-secret');
      },
      { apiKey: 'sk-engine-secret' },
    );
  });

  it('ends with status cancelled when the signal aborts a hanging call', async () => {
    await withScript(
      { 'prompt of hang': () => ({ fault: 'hang' }) },
      async (p) => {
        const ctl = new AbortController();
        setTimeout(() => ctl.abort(), 100);
        const run = await runCase({ case: replioCase('hang'), sample: 0, provider: p, signal: ctl.signal });
        expect(run.status).toBe('cancelled');
        expect(run.error?.code).toBe('CANCELLED');
      },
      { timeoutMs: 20_000 },
    );
  });

  it('runs a trajectory case over the Anthropic protocol too', async () => {
    const c = byId(REPLIO, 'read-file-lines');
    const s = await startFakeAnthropic({ script: { [c.prompt]: [call('file_read', { path: 'src/app.py' }, 'toolu_1'), { text: '4 lines' }] } });
    const p = createAnthropicProvider({ baseUrl: s.url, model: 'claude-fake', retryBaseMs: 1 });
    try {
      const run = await runCase({ case: c, sample: 0, provider: p });
      expect(run.status).toBe('ok');
      expect(run.modelCalls[0]!.provider).toBe('anthropic');
      const second = s.chatRequests()[1]!.json;
      expect(second.system).toContain('coding agent');
      expect(second.messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('def main') }],
      });
      expect(scoreRun(c, run).replio?.pass).toBe(true);
    } finally {
      await p.close();
      await s.close();
    }
  });
});
