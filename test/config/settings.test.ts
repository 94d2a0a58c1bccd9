// One settings resolver for every command: config shows and rejects what run, score and the rest use.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readEnv } from '../../src/config/env.js';
import { resolveRunSettings, toolsetSpecOf } from '../../src/config/settings.js';

function sink(): Writable & { text: string } {
  const w = new Writable({
    write(chunk, _enc, done) {
      w.text += String(chunk);
      done();
    },
  }) as Writable & { text: string };
  w.text = '';
  return w;
}

async function cli(argv: string[], env: Record<string, string>, cwd: string): Promise<{ code: number; out: string; err: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main({ argv, env: { HOME: cwd, ...env }, cwd, stdout, stderr });
  return { code, out: stdout.text, err: stderr.text };
}

describe('resolveRunSettings', () => {
  it('takes flag > env > runspec.toml > default and says which', () => {
    const env = readEnv({ RUNSPEC_TOOL_MODE: 'per_host', RUNSPEC_CONCURRENCY: '2' });
    const s = resolveRunSettings({ flags: { maxRequests: 3 }, env, file: { llm: { tool_mode: 'search', concurrency: 9, retries: 5 } } });
    expect(s.toolMode).toEqual({ value: 'per_host', source: 'env' });
    expect(s.concurrency).toEqual({ value: 2, source: 'env' });
    expect(s.maxRequests).toEqual({ value: 3, source: 'flag' });
    expect(s.attempts).toEqual({ value: 5, source: 'file' });
    expect(s.provider).toEqual({ value: 'openai', source: 'default' });
  });

  it('takes the unreachable window from RUNSPEC_UNREACHABLE_AFTER_MS > [llm] unreachable_after_ms > 10 s', () => {
    expect(resolveRunSettings({ env: readEnv({}), file: {} }).unreachableAfterMs).toEqual({ value: 10_000, source: 'default' });
    expect(resolveRunSettings({ env: readEnv({}), file: { llm: { unreachable_after_ms: 0 } } }).unreachableAfterMs).toEqual({ value: 0, source: 'file' });
    expect(
      resolveRunSettings({ env: readEnv({ RUNSPEC_UNREACHABLE_AFTER_MS: '250' }), file: { llm: { unreachable_after_ms: 0 } } }).unreachableAfterMs,
    ).toEqual({ value: 250, source: 'env' });
  });

  it('takes the disk budget mode from --disk-budget-mode > RUNSPEC_DISK_BUDGET_MODE > [trajectory] disk_budget_mode > auto', () => {
    const file = { trajectory: { disk_budget_mode: 'watchdog' as const } };
    expect(resolveRunSettings({ env: readEnv({}), file: {} }).diskBudgetMode).toEqual({ value: 'auto', source: 'default' });
    expect(resolveRunSettings({ env: readEnv({}), file }).diskBudgetMode).toEqual({ value: 'watchdog', source: 'file' });
    expect(resolveRunSettings({ env: readEnv({ RUNSPEC_DISK_BUDGET_MODE: 'auto' }), file }).diskBudgetMode).toEqual({ value: 'auto', source: 'env' });
    expect(resolveRunSettings({ flags: { diskBudgetMode: 'watchdog' }, env: readEnv({ RUNSPEC_DISK_BUDGET_MODE: 'auto' }), file }).diskBudgetMode).toEqual({
      value: 'watchdog',
      source: 'flag',
    });
    expect(() => resolveRunSettings({ env: readEnv({ RUNSPEC_DISK_BUDGET_MODE: 'tmpfs' }), file: {} })).toThrow(
      /^RUNSPEC_DISK_BUDGET_MODE: expected one of auto, watchdog \(got "tmpfs"\)$/,
    );
  });

  it('bounds RUNSPEC_CONCURRENCY like the flag', () => {
    expect(() => resolveRunSettings({ env: readEnv({ RUNSPEC_CONCURRENCY: '1000' }), file: {} })).toThrow(
      /^RUNSPEC_CONCURRENCY: expected 1 to 256 \(got 1000\)$/,
    );
  });

  it('rejects a bad RUNSPEC_TOOL_MODE as a config error', () => {
    expect(() => resolveRunSettings({ env: readEnv({ RUNSPEC_TOOL_MODE: 'bogus' }), file: {} })).toThrow(
      /^RUNSPEC_TOOL_MODE: expected one of dedup, per_host, search \(got "bogus"\)$/,
    );
  });

  it('applies runspec.toml [toolset] to decision cases only, the env and flag to every case', () => {
    const fileSetting = resolveRunSettings({ env: readEnv({}), file: { toolset: { file: 't.toml' } } }).toolset;
    expect(toolsetSpecOf(fileSetting, { dialect: 'runspec', mode: 'decision' })).toBe('t.toml');
    expect(toolsetSpecOf(fileSetting, { dialect: 'replio', mode: 'trajectory' })).toBe('builtin:workspace');
    const envSetting = resolveRunSettings({ env: readEnv({ RUNSPEC_TOOLSET: 'e.toml' }), file: {} }).toolset;
    expect(toolsetSpecOf(envSetting, { dialect: 'replio', mode: 'trajectory' })).toBe('e.toml');
  });
});

describe('config and run agree', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-settings-'));
  writeFileSync(join(dir, 'one.toml'), '[[eval]]\nid = "a"\nprompt = "check the api"\nexpect_tool = "service_status"\n');

  it('config, run and score all reject RUNSPEC_TOOL_MODE=bogus with exit 2 and the same one-line message', async () => {
    const env = { RUNSPEC_TOOL_MODE: 'bogus' };
    const config = await cli(['--path', dir, 'config'], env, dir);
    const run = await cli(['--path', dir, 'run', 'one.toml', '--provider', 'mock', '--script', 'none.json', '--no-telemetry'], env, dir);
    // score reads RUNSPEC_TOOL_MODE too (it used to ignore it).
    const score = await cli(['--path', dir, 'score', 'one.toml', '--cases', 'one.toml'], env, dir);
    for (const r of [config, run, score]) {
      expect(r.code).toBe(2);
      expect(r.err).toContain('error: RUNSPEC_TOOL_MODE: expected one of dedup, per_host, search (got "bogus")');
    }
  });

  it('config shows the attempts setting with its source', async () => {
    const r = await cli(['--path', dir, 'config', '--output', 'json'], { RUNSPEC_TOOL_MODE: 'search' }, dir);
    expect(r.code, r.err).toBe(0);
    const cfg = JSON.parse(r.out) as Record<string, { value: string; source: string }>;
    expect(cfg.attempts).toEqual({ value: '3', source: 'default' });
    expect(cfg.tool_mode).toEqual({ value: 'search', source: 'env' });
    expect(cfg.unreachable_after_ms).toEqual({ value: '10000', source: 'default' });
  });
});
