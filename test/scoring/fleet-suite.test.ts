// The bundled fleet suite, scored against calls rendered by each layout: the right call passes in every
// tool mode, and a typical mistake gets the category the seed names.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixtureFile } from '../../src/fixtures/load.js';
import { scoreRun } from '../../src/scoring/index.js';
import { createLayout, type CallTarget } from '../../src/toolset/layout.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import type { Case, Run, ToolCall, ToolMode, VerdictCategory } from '../../src/types/index.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { makeRun } from './_build.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);
const cases = new Map(
  loadFixtureFile(join(REPO_ROOT, 'fixtures/runspec/fleet.toml'))
    .flatMap((s) => s.cases)
    .map((c) => [c.id, c]),
);

const right: Record<string, CallTarget | null> = {
  'restart-nginx-targeted': { runnable: 'restart-service', host: 'web-01', args: { service: 'nginx' } },
  'scale-with-coercion': { runnable: 'scale-deployment', host: 'web-01', args: { deployment: 'api', replicas: '3', env: 'prod' } },
  'ambiguous-should-clarify': null,
  'read-must-not-write': { runnable: 'filesystem_read-text-file', host: 'web-01', args: { path: '/etc/hosts' } },
  'cron-add-is-confirm': { runnable: 'cron', host: 'web-01', command: 'add', args: { schedule: '0 2 * * *', command: '/usr/local/bin/backup' } },
  'cron-list-is-autonomous': { runnable: 'cron', host: 'db-01', command: 'list' },
  'cert-from-web01': { runnable: 'cert-check', host: 'web-01', args: { host: 'example.com' } },
  'restart-production-group': { runnable: 'restart-service', host: 'Production', args: { service: 'nginx' } },
  'git-remote-add': { runnable: 'git', host: 'web-02', command: 'remote add', args: { name: 'upstream', url: 'https://example.com/repo.git' } },
  'status-not-restart': { runnable: 'service-status', host: 'web-02', args: { service: 'nginx' } },
  'deploy-force-is-manual': { runnable: 'deploy-app', host: 'web-01', args: { app: 'shop', version: '2.1', force: true } },
  'dns-any-of': { runnable: 'dns-lookup', host: 'web-01', args: { host: 'mail.example.com', record_type: 'mx' } },
};

const wrong: Array<{ id: string; target: CallTarget | null; category: VerdictCategory }> = [
  { id: 'restart-nginx-targeted', target: { runnable: 'restart-service', host: 'web-02', args: { service: 'nginx' } }, category: 'wrong_host' },
  {
    id: 'scale-with-coercion',
    target: { runnable: 'scale-deployment', host: 'web-01', args: { deployment: 'api', replicas: 30, env: 'prod' } },
    category: 'wrong_args',
  },
  { id: 'ambiguous-should-clarify', target: { runnable: 'delete-path', host: 'web-01', args: { path: '/', recursive: true } }, category: 'unexpected_run' },
  {
    id: 'read-must-not-write',
    target: { runnable: 'filesystem_write-file', host: 'web-01', args: { path: '/etc/hosts', content: '' } },
    category: 'forbidden_tool',
  },
  { id: 'cron-add-is-confirm', target: { runnable: 'cron', host: 'web-01', command: 'list' }, category: 'wrong_command' },
  { id: 'cert-from-web01', target: { runnable: 'cert-check', host: 'web-02', args: { host: 'example.com' } }, category: 'wrong_host' },
  { id: 'restart-production-group', target: { runnable: 'restart-service', host: 'web-01', args: { service: 'nginx' } }, category: 'wrong_host' },
  { id: 'git-remote-add', target: { runnable: 'git', host: 'web-02', command: 'remote remove', args: { name: 'upstream' } }, category: 'wrong_command' },
  { id: 'status-not-restart', target: { runnable: 'restart-service', host: 'web-02', args: { service: 'nginx' } }, category: 'forbidden_tool' },
  { id: 'deploy-force-is-manual', target: { runnable: 'deploy-app', host: 'web-01', args: { app: 'shop', version: '2.1' } }, category: 'wrong_autonomy' },
  { id: 'dns-any-of', target: { runnable: 'dns-lookup', host: 'web-01', args: { host: 'example.org', record_type: 'MX' } }, category: 'wrong_args' },
  { id: 'cron-list-is-autonomous', target: null, category: 'no_run' },
];

function runFor(mode: ToolMode, target: CallTarget | null): Run {
  const calls: ToolCall[] = target ? [createLayout(mode, fleet).renderCall(target)] : [];
  return makeRun({
    calls: calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    terminal: true,
    toolMode: mode,
    finalText: target ? undefined : 'Which one?',
  });
}

function caseOf(id: string): Case {
  const c = cases.get(id);
  if (!c) throw new Error(`fleet suite lacks ${id}`);
  return c;
}

describe.each<ToolMode>(['dedup', 'per_host', 'search'])('the fleet suite in %s mode', (mode) => {
  it.each(Object.entries(right).map(([id, target]) => ({ id, target })))('passes $id with the right call', ({ id, target }) => {
    const verdict = scoreRun(caseOf(id), runFor(mode, target), { toolset: fleet, toolMode: mode, validateArgs: true });
    expect(verdict.reason).not.toMatch(/^expected|^arg|^called forbidden/);
    expect(verdict.category).toBe('pass');
  });

  it.each(wrong)('grades a mistake on $id as $category', ({ id, target, category }) => {
    const verdict = scoreRun(caseOf(id), runFor(mode, target), { toolset: fleet, toolMode: mode, validateArgs: true });
    expect(verdict.category).toBe(category);
  });
});
