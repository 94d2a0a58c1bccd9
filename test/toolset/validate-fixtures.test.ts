import { beforeAll, describe, expect, it } from 'vitest';
import type { Case, RunspecExpectation } from '../../src/types/case.js';
import type { Toolset } from '../../src/types/toolset.js';
import { loadToolset, validateFixtures, WORKSPACE_TOOLSET } from '../../src/toolset/index.js';

let fleet: Toolset;
beforeAll(async () => {
  fleet = await loadToolset('builtin:fleet', { projectDir: '.', env: {} });
});

const eq = (value: unknown) => ({ kind: 'equals' as const, value });

function kase(partial: Partial<Case>): Case {
  return {
    id: 'c1',
    dialect: 'runspec',
    tags: [],
    source: { file: 'evals/x.toml', line: 7, source: 'file' },
    prompt: 'p',
    files: {},
    mode: 'decision',
    settings: {},
    ...partial,
  };
}

const rows = (cases: Case[], ts: () => Toolset) => validateFixtures(cases, ts()).map((p) => `${p.file}:${p.line}: case ${p.caseId}: ${p.field}: ${p.message}`);

describe('validateFixtures: runspec', () => {
  it('passes a case that only names what the fleet has, legacy ids included', () => {
    const c = kase({
      runspec: {
        tool: ['git'],
        command: 'remote add',
        args: { name: eq('upstream'), url: eq('x') },
        host: 'production',
        forbidTools: ['console__which', 'filesystem__write-file'],
      },
    });
    expect(validateFixtures([c], fleet)).toEqual([]);
  });

  it.each([
    { name: 'renamed tool', rs: { tool: ['restart-svc'] }, want: 'expect_tool: unknown tool "restart-svc" on toolset fleet; did you mean "restart-service"?' },
    { name: 'reordered words', rs: { tool: ['service-restart'] }, want: 'did you mean "restart-service"?' },
    { name: 'hidden tool', rs: { tool: ['debug-dump'] }, want: 'expect_tool: tool "debug-dump" is hidden on toolset fleet' },
    { name: 'wrong legacy group', rs: { tool: ['filesystem__which'] }, want: 'expect_tool: unknown tool "filesystem__which" in group "filesystem"' },
    {
      name: 'renamed arg',
      rs: { tool: ['scale-deployment'], args: { replica: eq(3) } },
      want: 'expect_args.replica: unknown arg "replica" of scale-deployment; did you mean "replicas"?',
    },
    {
      name: 'unknown verb',
      rs: { tool: ['cron'], command: 'ad' },
      want: 'expect_command: unknown subcommand "ad" of cron; it has list, add, remove; did you mean "add"?',
    },
    {
      name: 'arg of another verb',
      rs: { tool: ['cron'], command: 'list', args: { schedule: eq('x') } },
      want: 'expect_args.schedule: unknown arg "schedule" of cron',
    },
    {
      name: 'unknown host',
      rs: { tool: ['restart-service'], host: 'web-1' },
      want: 'expect_host: unknown host or host group "web-1" on toolset fleet; did you mean "web-01"?',
    },
    {
      name: 'unknown forbidden tool',
      rs: { forbidTools: ['ok', 'filesystem_write_file'] },
      want: 'forbid_tools[1]: unknown tool "filesystem_write_file" on toolset fleet; did you mean "filesystem_write-file"?',
    },
  ])('$name', ({ rs, want }) => {
    const out = rows([kase({ runspec: rs as RunspecExpectation })], () => fleet);
    expect(
      out.some((line) => line.startsWith('evals/x.toml:7: case c1: ') && line.includes(want)),
      out.join('\n'),
    ).toBe(true);
  });

  it('checks a runnable own host in expect_args against its args', () => {
    expect(validateFixtures([kase({ runspec: { tool: ['cert-check'], host: 'web-01', args: { host: eq('example.com') } } })], fleet)).toEqual([]);
  });
});

describe('validateFixtures: replio and turnstone', () => {
  it('checks expected, verifier tools and verifier arg names', () => {
    const c = kase({
      dialect: 'replio',
      mode: 'trajectory',
      replio: {
        expected: ['glob', 'file_reed'],
        verifier: { mustInclude: ['glob'], exact: ['grep'], avoid: ['run_comand'], args: { file_read: { pth: eq('a') }, globb: {} } },
      },
    });
    expect(rows([c], () => WORKSPACE_TOOLSET).map((l) => l.replace('evals/x.toml:7: case c1: ', ''))).toEqual([
      'expected[1]: unknown tool "file_reed" on toolset workspace; did you mean "file_read"?',
      'verifier.avoid[0]: unknown tool "run_comand" on toolset workspace; did you mean "run_command"?',
      'verifier.args.file_read.pth: unknown arg "pth" of file_read; did you mean "path"?',
      'verifier.args.globb: unknown tool "globb" on toolset workspace; did you mean "glob"?',
    ]);
  });

  it('checks expected_actions tools and their args / args_pattern keys', () => {
    const c = kase({
      dialect: 'turnstone',
      mode: 'trajectory',
      turnstone: {
        matchMode: 'subset',
        actions: [{ tool: 'read_file', args: { path: eq('a') } }, { tool: 'edit_file', argsPattern: { new_str: 'Hello' } }, { tool: 'write_files' }],
      },
    });
    expect(validateFixtures([c], WORKSPACE_TOOLSET).map((p) => [p.field, p.message])).toEqual([
      ['expected_actions[1].args_pattern.new_str', 'unknown arg "new_str" of edit_file; did you mean "new_string"?'],
      ['expected_actions[2].tool', 'unknown tool "write_files" on toolset workspace; did you mean "write_file"?'],
    ]);
  });
});
