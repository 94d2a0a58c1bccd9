import { describe, expect, it } from 'vitest';
import { scoreRun } from '../../src/scoring/index.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import type { ArgExpectation, ToolMode } from '../../src/types/index.js';
import { makeCase, makeRun } from './_build.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);
const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });

describe('scoreRun across tool modes', () => {
  const cronAdd = makeCase({ runspec: { tool: ['cron'], command: 'add', host: 'web-01', autonomy: 'confirm', args: { schedule: eq('0 2 * * *') } } });
  it.each<{ name: string; toolMode: ToolMode; call: { name: string; arguments: Record<string, unknown> } }>([
    {
      name: 'dedup: host selector arg and _command',
      toolMode: 'dedup',
      call: { name: 'cron', arguments: { host: 'web-01', _command: 'add', schedule: '0 2 * * *', command: 'backup.sh' } },
    },
    {
      name: 'per_host: host__name prefix',
      toolMode: 'per_host',
      call: { name: 'web-01__cron', arguments: { _command: 'add', schedule: '0 2 * * *', command: 'backup.sh' } },
    },
    {
      name: 'search: run_runnable with nested args',
      toolMode: 'search',
      call: { name: 'run_runnable', arguments: { id: 'cron', host: 'web-01', command: 'add', args: { schedule: '0 2 * * *', command: 'backup.sh' } } },
    },
  ])('grades the same expectation in $name', ({ toolMode, call }) => {
    const run = makeRun({ calls: [call], terminal: true });
    const verdict = scoreRun(cronAdd, run, { toolset: fleet, toolMode, validateArgs: true });
    expect(verdict.reason).toMatch(/as expected/);
    expect(verdict.category).toBe('pass');
    expect(verdict.observed).toMatchObject({ tool: 'cron', command: 'add', host: 'web-01', autonomy: 'confirm' });
    expect(verdict.toolMode).toBe(toolMode);
  });

  it('skips search-mode discovery calls to find the terminal call', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: 'web-01' } });
    const run = makeRun({
      calls: [
        { name: 'search_runnables', arguments: { query: 'restart' } },
        { name: 'run_runnable', arguments: { id: 'restart-service', host: 'web-01', args: { service: 'nginx' } } },
      ],
    });
    const verdict = scoreRun(c, run, { toolset: fleet, toolMode: 'search' });
    expect(verdict.category).toBe('pass');
    expect(verdict.observed.tool).toBe('restart-service');
  });

  it('grades _host against expect_host and leaves the runnable own host arg to expect_args', () => {
    const c = makeCase({ runspec: { tool: ['cert-check'], host: 'web-01', args: { host: eq('example.com') } } });
    const run = makeRun({ calls: [{ name: 'cert-check', arguments: { _host: 'web-01', host: 'example.com' } }], terminal: true });
    const verdict = scoreRun(c, run, { toolset: fleet });
    expect(verdict.category).toBe('pass');
    expect(verdict.observed.host).toBe('web-01');
  });

  it('matches a host group name trimmed and case-insensitively', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: ' production ' } });
    const run = makeRun({ calls: [{ name: 'restart-service', arguments: { host: 'Production', service: 'nginx' } }], terminal: true });
    expect(scoreRun(c, run, { toolset: fleet }).category).toBe('pass');
  });

  it('compares args tolerantly: "3" matches 3, strings trimmed and case-insensitive', () => {
    const c = makeCase({ runspec: { tool: ['scale-deployment'], args: { deployment: eq('api'), replicas: eq(3), env: eq('prod') } } });
    const run = makeRun({
      calls: [{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: ' API ', replicas: '3', env: 'Prod', extra: 1 } }],
      terminal: true,
    });
    expect(scoreRun(c, run, { toolset: fleet }).category).toBe('pass');
  });

  it('compares a nested subcommand path space-joined', () => {
    const c = makeCase({ runspec: { tool: ['git'], command: 'remote add', args: { name: eq('upstream') } } });
    const run = makeRun({
      calls: [{ name: 'git', arguments: { host: 'web-02', command: ['remote', 'add'], name: 'upstream', url: 'https://example.com/repo.git' } }],
      terminal: true,
    });
    const verdict = scoreRun(c, run, { toolset: fleet, validateArgs: true });
    expect(verdict.category).toBe('pass');
    expect(verdict.observed.command).toBe('remote add');
    expect(verdict.observed.autonomy).toBe('confirm');
  });

  it('resolves a legacy group-qualified expect_tool to the bare runnable', () => {
    const c = makeCase({ runspec: { tool: ['console__which'] } });
    const run = makeRun({ calls: [{ name: 'which', arguments: { host: 'web-01', name: 'python' } }], terminal: true });
    expect(scoreRun(c, run, { toolset: fleet }).category).toBe('pass');
  });

  it('accepts any of several expected tools', () => {
    const c = makeCase({ runspec: { tool: ['service-status', 'restart-service'] } });
    const run = makeRun({ calls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }], terminal: true });
    expect(scoreRun(c, run, { toolset: fleet }).category).toBe('pass');
  });

  it('records observed tool, command, host and autonomy even when nothing asserts them', () => {
    const c = makeCase({ runspec: { tool: ['deploy-app'] } });
    const run = makeRun({ calls: [{ name: 'deploy-app', arguments: { host: 'web-01', app: 'shop', version: '2.1', force: true } }], terminal: true });
    const verdict = scoreRun(c, run, { toolset: fleet });
    expect(verdict.observed).toEqual({ tool: 'deploy-app', host: 'web-01', autonomy: 'manual', args: { app: 'shop', version: '2.1', force: true } });
    expect(verdict.expected).toEqual({ tool: ['deploy-app'] });
  });

  it('prefers the resolution the engine recorded on the call', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: 'web-01' } });
    const run = makeRun({ calls: [{ name: 'mystery', arguments: {} }], terminal: true });
    run.toolCalls[0]!.resolved = {
      runnable: 'restart-service',
      known: true,
      discovery: false,
      host: 'web-01',
      args: { service: 'nginx' },
      layout: 'dedup',
      calledName: 'mystery',
    };
    expect(scoreRun(c, run, { toolset: fleet }).category).toBe('pass');
  });

  it('scores without a toolset from the bare name and a host or _host arg', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: 'web-01', command: 'now', args: { service: eq('nginx') } } });
    const run = makeRun({ calls: [{ name: 'restart-service', arguments: { _host: 'web-01', service: 'nginx', command: 'now' } }] });
    const verdict = scoreRun(c, run);
    expect(verdict.category).toBe('pass');
    expect(verdict.observed).toMatchObject({ tool: 'restart-service', host: 'web-01', command: 'now' });
    expect(verdict.observed.autonomy).toBeUndefined();
  });

  it('scores a per_host call without a toolset by stripping the host prefix', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: 'web-02' } });
    const run = makeRun({ calls: [{ name: 'web-02__restart-service', arguments: { service: 'nginx' } }], toolMode: 'per_host' });
    expect(scoreRun(c, run).category).toBe('pass');
  });

  it('never throws on malformed model output', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], args: { service: { kind: 'regex', pattern: '(' } } } });
    const run = makeRun({ calls: [{ name: 'restart-service', arguments: { _raw: '{"service": nginx' } }], terminal: true });
    const verdict = scoreRun(c, run, { toolset: fleet, validateArgs: true });
    expect(verdict.pass).toBe(false);
    expect(verdict.category).toBe('wrong_args');
  });
});

describe('scoreRun on offline traces that do not say their tool mode', () => {
  it('reads run_runnable and discovery calls the search way', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: 'web-01', args: { service: eq('nginx') } } });
    const run = makeRun({
      calls: [
        { name: 'describe_runnable', arguments: { id: 'restart-service' } },
        { name: 'run_runnable', arguments: { id: 'restart-service', host: 'web-01', args: { service: 'nginx' } } },
      ],
    });
    const verdict = scoreRun(c, run, { toolset: fleet });
    expect(verdict.category).toBe('pass');
    expect(verdict.observed.tool).toBe('restart-service');
  });

  it('reads a host__name call as per_host', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], host: 'web-02' } });
    const run = makeRun({ calls: [{ name: 'web-02__restart-service', arguments: { service: 'nginx' } }] });
    expect(scoreRun(c, run, { toolset: fleet }).category).toBe('pass');
  });
});

describe('pass reasons', () => {
  it('says a forbid-only case passed because no forbidden tool was called', () => {
    const c = makeCase({ runspec: { forbidTools: ['restart-service'] } });
    expect(scoreRun(c, makeRun({ calls: [], finalText: 'It is running.' }), { toolset: fleet }).reason).toBe('called no forbidden tool');
    const run = makeRun({ calls: [{ name: 'service-status', arguments: { host: 'web-01', service: 'nginx' } }], terminal: true });
    expect(scoreRun(c, run, { toolset: fleet }).reason).toBe('called service-status on web-01 (autonomous), no forbidden tool');
  });
});
