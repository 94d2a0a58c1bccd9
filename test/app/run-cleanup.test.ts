// A run closes what it opened when bad input turns up after the results log is open: before, a missing
// {{vars.NAME}}, an unreadable --system-prompt or a refused --out left the provider (and the log, telemetry
// and metrics) open, and the CLI only exited because it exits. Asserted here: the provider is closed and the
// log is flushed whole (its header is on disk, no case in it) or was never opened. Telemetry and metrics are
// off in these runs; they are shut down in the same `finally` (runWithLog) and are not checked here.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeRun, loadProject, type ExecuteOptions } from '../../src/app/run-suite.js';
import type { AppContext } from '../../src/app/context.js';
import type { Provider } from '../../src/providers/types.js';
import type { Case } from '../../src/types/case.js';
import { logFileFor, readResultsLog } from '../../src/report/results-file.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-run-cleanup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'runspec.toml'), '[telemetry]\nenabled = false\n');

const ctx: AppContext = { projectDir: dir, cwd: dir, env: {}, err: () => {}, warn: () => {} };

function spyProvider(): Provider & { closed: number; chats: number } {
  const p = {
    name: 'spy',
    system: 'spy',
    baseUrl: undefined,
    model: 'spy-model',
    closed: 0,
    chats: 0,
    chat() {
      p.chats++;
      return Promise.reject(new Error('never asked'));
    },
    close() {
      p.closed++;
      return Promise.resolve();
    },
  };
  return p as unknown as Provider & { closed: number; chats: number };
}

const aCase = (prompt: string): Case => ({
  id: 'c1',
  dialect: 'runspec',
  mode: 'decision',
  tags: [],
  source: { file: join(dir, 'evals/c.toml'), source: 'file', line: 3 },
  prompt,
  files: {},
  settings: {},
});

function options(over: Partial<ExecuteOptions> & { provider: Provider; cases: Case[] }): ExecuteOptions {
  return {
    allIds: over.cases.map((c) => c.id),
    providerLabel: 'spy',
    toolsets: new Map(),
    flags: { telemetry: false },
    project: loadProject(ctx),
    storedOptions: {},
    suiteLabel: 'cleanup',
    telemetry: false,
    ...over,
  };
}

describe('a run that stops on bad input closes what it opened', () => {
  it.each([
    {
      name: 'a missing {{vars.NAME}} (found after the log is open)',
      prompt: 'check {{vars.host}}',
      flags: {},
      want: /unknown placeholder \{\{vars\.host\}\}/,
      logOpened: true,
    },
    {
      name: 'an unreadable --system-prompt file',
      prompt: 'check web-01',
      flags: { systemPrompt: 'missing-prompt.txt' },
      want: /missing-prompt\.txt/,
      logOpened: true,
    },
    {
      name: 'a report file given as --out (refused before the log opens)',
      prompt: 'check web-01',
      flags: { out: 'report.html' },
      want: /expected a \.json results file/,
      logOpened: false,
    },
  ])('$name', async ({ prompt, flags, want, logOpened }) => {
    const provider = spyProvider();
    const out = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    const run = executeRun(ctx, options({ provider, cases: [aCase(prompt)], flags: { telemetry: false, out, ...flags } }));
    await expect(run).rejects.toThrow(want);
    expect(provider.closed).toBe(1);
    expect(provider.chats).toBe(0);
    const log = logFileFor('out' in flags && flags.out ? join(dir, flags.out) : out);
    if (logOpened) {
      const read = readResultsLog(log);
      expect(read.header.caseIds).toEqual(['c1']);
      expect(read.cases.size).toBe(0);
    } else {
      expect(existsSync(log)).toBe(false);
    }
  });
});
