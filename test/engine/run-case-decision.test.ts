import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { runCase } from '../../src/engine/run-case.js';
import { loadFixtureFile } from '../../src/fixtures/load.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import type { Provider } from '../../src/providers/types.js';
import { scoreRun } from '../../src/scoring/verdict.js';
import { createLayout, layoutFor } from '../../src/toolset/layout.js';
import { toOpenAITools } from '../../src/providers/tools-wire.js';
import { loadToolset } from '../../src/toolset/load.js';
import type { ArgExpectation, Case } from '../../src/types/case.js';
import type { ToolMode, Toolset } from '../../src/types/toolset.js';
import { startFakeOpenAI, type FakeAnswer, type FakeModelServer } from '../helpers/fake-openai.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

const CASES: Case[] = loadFixtureFile(join(REPO_ROOT, 'fixtures/runspec/fleet.toml')).flatMap((s) => s.cases);
const LAYOUTS: ToolMode[] = ['dedup', 'per_host', 'search'];

// Arguments a correct model adds beyond the asserted subset (the prompt says them).
const EXTRA_ARGS: Record<string, Record<string, unknown>> = {
  'deploy-force-is-manual': { version: '2.1', force: true },
  'git-remote-add': { url: 'https://example.com/repo.git' },
  'cron-add-is-confirm': { schedule: '0 2 * * *', command: 'backup' },
  'read-must-not-write': { path: '/etc/hosts' },
};

function sampleValue(e: ArgExpectation): unknown {
  if (e.kind === 'equals') return e.value;
  if (e.kind === 'one_of') return e.values[0];
  if (e.kind === 'regex') return e.pattern.replace(/\\\./g, '.').replace(/[$^]/g, '');
  return undefined;
}

/** The terminal call a correct model makes for a case, in the given layout. */
function correctCall(toolset: Toolset, mode: ToolMode, c: Case, id: string) {
  const spec = c.runspec!;
  const args: Record<string, unknown> = { ...(EXTRA_ARGS[c.id] ?? {}) };
  for (const [k, e] of Object.entries(spec.args ?? {})) if (e.kind !== 'absent') args[k] = sampleValue(e);
  // cron add's own "command" arg collides with the verb selector; keep the verb only
  if (c.id === 'cron-add-is-confirm') delete args.command;
  return createLayout(mode, toolset).renderCall({ runnable: spec.tool![0]!, host: spec.host, command: spec.command, args }, id);
}

let toolset: Toolset;
let server: FakeModelServer;
let provider: Provider;
/** Layout of the run a prompt belongs to is carried in the system prompt, so one server serves all three. */
const layoutOf = (system: string): ToolMode => LAYOUTS.find((l) => system.endsWith(`[layout:${l}]`)) ?? 'dedup';

beforeAll(async () => {
  toolset = await loadToolset('builtin:fleet', { projectDir: REPO_ROOT, env: {} });
  server = await startFakeOpenAI({
    respond: (req): FakeAnswer | undefined => {
      const msgs: Array<{ role: string; content?: string }> = req.json.messages;
      const mode = layoutOf(msgs[0]!.content ?? '');
      const c = CASES.find((x) => x.prompt === msgs.find((m) => m.role === 'user')!.content);
      if (!c) return undefined;
      const turn = msgs.filter((m) => m.role === 'assistant').length;
      if (c.runspec?.noRun) return { text: 'Which host do you mean? I will not delete anything without a clear target.' };
      // In search mode a model first looks the runnable up, then runs it.
      if (mode === 'search' && turn === 0) return { toolCalls: [{ id: 'call_search', name: 'search_runnables', arguments: { query: c.runspec!.tool![0]! } }] };
      const call = correctCall(toolset, mode, c, 'call_run');
      return { toolCalls: [{ id: call.id, name: call.name, arguments: call.arguments }] };
    },
  });
  provider = createOpenAIProvider({ baseUrl: server.url, model: 'fake-model', retryBaseMs: 1 });
});
afterAll(async () => {
  await provider.close();
  await server.close();
});

const matrix = LAYOUTS.flatMap((mode) => CASES.map((c) => ({ name: `${mode} ${c.id}`, mode, c })));

describe('decision mode: the runspec fleet suite in all three layouts', () => {
  it.each(matrix)('$name: captures the terminal call without executing it, and it scores pass', async ({ mode, c }) => {
    const run = await runCase({ case: c, sample: 0, provider, toolset, toolMode: mode, systemPrompt: `Operate the fleet. [layout:${mode}]` });
    expect(run.status).toBe('ok');
    expect(run.mode).toBe('decision');
    expect(run.toolMode).toBe(mode);
    if (c.runspec?.noRun) {
      expect(run.terminal).toBeUndefined();
      expect(run.finalText).toContain('Which host');
    } else {
      expect(run.terminal).toBeDefined();
      expect(run.terminal!.executed).toBe(false);
      expect(run.terminal!.result).toBeUndefined();
      expect(run.terminal!.resolved).toMatchObject({ runnable: c.runspec!.tool![0], known: true, discovery: false, layout: mode });
      if (c.runspec!.host) expect(run.terminal!.resolved!.host?.toLowerCase()).toBe(c.runspec!.host.toLowerCase());
      // the run stops at the terminal call: no further model call
      expect(run.modelCalls).toHaveLength(mode === 'search' ? 2 : 1);
    }
    const verdict = scoreRun(c, run, { toolset, toolMode: mode });
    expect(verdict.category, verdict.reason).toBe('pass');
  });

  it('offers the layout tools: runnable tools in dedup, host__name in per_host, discovery + run_runnable in search', async () => {
    const c = CASES.find((x) => x.id === 'status-not-restart')!;
    const names = async (mode: ToolMode) => {
      const before = server.chatRequests().length;
      await runCase({ case: c, sample: 0, provider, toolset, toolMode: mode, systemPrompt: `x [layout:${mode}]` });
      return server.chatRequests()[before]!.json.tools.map((t: { function: { name: string } }) => t.function.name) as string[];
    };
    expect(await names('dedup')).toContain('service-status');
    expect(await names('per_host')).toContain('web-02__service-status');
    const search = await names('search');
    expect(search).toEqual(expect.arrayContaining(['search_runnables', 'run_runnable']));
    expect(search).not.toContain('service-status');
  });

  it('resolves discovery calls for real and feeds the answer back under the call id', async () => {
    const c = CASES.find((x) => x.id === 'restart-nginx-targeted')!;
    const before = server.chatRequests().length;
    const run = await runCase({ case: c, sample: 0, provider, toolset, toolMode: 'search', systemPrompt: 'x [layout:search]' });
    const discovery = run.toolCalls[0]!;
    expect(discovery).toMatchObject({ executed: true, isError: false, turn: 0, resolved: { discovery: true } });
    expect(JSON.parse(discovery.result!).results.map((r: { id?: string; name?: string }) => r.id ?? r.name)).toContain('restart-service');
    const second = server.chatRequests()[before + 1]!.json.messages;
    expect(second.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_search', content: discovery.result });
    expect(run.terminal).toBe(run.toolCalls[1]);
    expect(run.terminal!.call.name).toBe('run_runnable');
  });
});

async function withAnswers(answer: (turn: number) => FakeAnswer, fn: (p: Provider) => Promise<void>) {
  const s = await startFakeOpenAI({ respond: (req) => answer(req.json.messages.filter((m: { role: string }) => m.role === 'assistant').length) });
  const p = createOpenAIProvider({ baseUrl: s.url, model: 'm', retryBaseMs: 1 });
  try {
    await fn(p);
  } finally {
    await p.close();
    await s.close();
  }
}

describe('decision mode: edges', () => {
  const c = CASES.find((x) => x.id === 'restart-nginx-targeted')!;

  it('with only discovery calls until max_turns, ends ok with no terminal (scored no_run)', async () => {
    await withAnswers(
      () => ({ toolCalls: [{ name: 'search_runnables', arguments: { query: 'nginx' } }] }),
      async (p) => {
        const run = await runCase({ case: c, sample: 0, provider: p, toolset, toolMode: 'search', maxTurns: 3 });
        expect(run.status).toBe('ok');
        expect(run.terminal).toBeUndefined();
        expect(run.modelCalls).toHaveLength(3);
        expect(scoreRun(c, run, { toolset, toolMode: 'search' }).category).toBe('no_run');
      },
    );
  });

  it('captures the first runnable call of a parallel batch and records the rest unexecuted', async () => {
    await withAnswers(
      () => ({
        toolCalls: [
          { name: 'service-status', arguments: { host: 'web-01', name: 'nginx' } },
          { name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } },
        ],
      }),
      async (p) => {
        const run = await runCase({ case: c, sample: 0, provider: p, toolset, toolMode: 'dedup' });
        expect(run.terminal!.call.name).toBe('service-status');
        expect(run.toolCalls.map((t) => [t.call.name, t.executed])).toEqual([
          ['service-status', false],
          ['restart-service', false],
        ]);
        expect(scoreRun(c, run, { toolset, toolMode: 'dedup' }).category).toBe('wrong_tool');
      },
    );
  });

  it('answers at most 10 discovery calls per turn, the rest with an error', async () => {
    const many: FakeAnswer = { toolCalls: Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, name: 'search_runnables', arguments: { query: `q${i}` } })) };
    const runIt: FakeAnswer = { toolCalls: [{ name: 'run_runnable', arguments: { id: 'restart-service', host: 'web-01', args: { service: 'nginx' } } }] };
    await withAnswers(
      (turn) => (turn === 0 ? many : runIt),
      async (p) => {
        const run = await runCase({ case: c, sample: 0, provider: p, toolset, toolMode: 'search' });
        expect(run.toolCalls.filter((t) => t.executed)).toHaveLength(10);
        expect(run.toolCalls[10]!.result).toMatch(/^Error: too many parallel tool calls/);
        expect(run.terminal!.resolved!.runnable).toBe('restart-service');
        expect(scoreRun(c, run, { toolset, toolMode: 'search' }).category).toBe('pass');
      },
    );
  });

  it('captures a call to an unknown tool as the terminal action', async () => {
    await withAnswers(
      () => ({ toolCalls: [{ name: 'reboot-everything', arguments: {} }] }),
      async (p) => {
        const run = await runCase({ case: c, sample: 0, provider: p, toolset });
        expect(run.terminal!.resolved).toMatchObject({ known: false, runnable: 'reboot-everything' });
      },
    );
  });

  it('ends with status error when the provider fails, never throwing', async () => {
    await withAnswers(
      () => ({ fault: 'malformed' }),
      async (p) => {
        const run = await runCase({ case: c, sample: 0, provider: p, toolset });
        expect(run.status).toBe('error');
        expect(run.error!.code).toBe('PROVIDER_RESPONSE');
        expect(run.terminal).toBeUndefined();
      },
    );
  });

  it('throws on bad input: a decision case without a toolset', async () => {
    await expect(runCase({ case: c, sample: 0, provider })).rejects.toThrow(UsageError);
    await expect(runCase({ case: c, sample: -1, provider, toolset })).rejects.toThrow(/sample must be a non-negative integer/);
  });
});

describe('tool schemas are built once per toolset and mode, not per case', () => {
  it('sends every case the same tool list and the same wire encoding of it', async () => {
    // Each case used to rebuild its layout, tool schemas and wire tools before its first request.
    const fleet = await loadToolset('builtin:fleet', { projectDir: '.', env: {} });
    expect(layoutFor(fleet, 'dedup')).toBe(layoutFor(fleet, 'dedup'));
    expect(layoutFor(fleet, 'dedup')).not.toBe(layoutFor(fleet, 'search'));
    const tools = layoutFor(fleet, 'dedup').tools();
    expect(layoutFor(fleet, 'dedup').tools()).toBe(tools);
    expect(toOpenAITools(tools)).toBe(toOpenAITools(tools));
  });
});
