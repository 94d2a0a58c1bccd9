import { describe, expect, it } from 'vitest';
import { exitCodeOf, type ExecuteResult } from '../../src/app/run-suite.js';
import { toolsetSetting, toolsetSpecOf } from '../../src/config/settings.js';
import { mergeDocuments } from '../../src/report/results-docs.js';
import { readEnv } from '../../src/config/env.js';
import { buildResultsDocument, caseResultsFromDocument } from '../../src/report/results.js';
import type { Case, CaseResult } from '../../src/types/index.js';

function result(caseId: string, over: Partial<CaseResult> = {}): CaseResult {
  return {
    caseId,
    dialect: 'runspec',
    tags: [],
    samples: [],
    passRate: 1,
    passRateLow: 0.2,
    passRateHigh: 1,
    passAtK: 1,
    passHatK: 1,
    passK: [],
    threshold: 1,
    meetsThreshold: true,
    errored: false,
    ...over,
  };
}

const mkCase = (dialect: Case['dialect'], mode: Case['mode']): Case => ({
  id: 'x',
  dialect,
  mode,
  tags: [],
  source: { file: 'f', source: 'file' },
  prompt: 'p',
  files: {},
  settings: {},
});

describe('toolset per case', () => {
  const env = readEnv({});
  it.each([
    { name: 'runspec defaults to the fleet', c: mkCase('runspec', 'decision'), flag: undefined, config: {}, want: 'builtin:fleet' },
    { name: 'replio defaults to the workspace', c: mkCase('replio', 'trajectory'), flag: undefined, config: {}, want: 'builtin:workspace' },
    {
      name: 'the flag wins for every case',
      c: mkCase('turnstone', 'trajectory'),
      flag: 'tools.json',
      config: { toolset: { file: 'f.toml' } },
      want: 'tools.json',
    },
    {
      name: 'runspec.toml applies to decision cases',
      c: mkCase('runspec', 'decision'),
      flag: undefined,
      config: { toolset: { file: 'f.toml' } },
      want: 'f.toml',
    },
    {
      name: 'runspec.toml mcp becomes an mcp: spec',
      c: mkCase('runspec', 'decision'),
      flag: undefined,
      config: { toolset: { mcp: 'node srv.js' } },
      want: 'mcp:node srv.js',
    },
    {
      name: 'runspec.toml does not replace the workspace tools of trajectory cases',
      c: mkCase('replio', 'trajectory'),
      flag: undefined,
      config: { toolset: { file: 'f.toml' } },
      want: 'builtin:workspace',
    },
  ])('$name', ({ c, flag, config, want }) => {
    expect(toolsetSpecOf(toolsetSetting(flag, env, config), c)).toBe(want);
  });
});

describe('exit code', () => {
  const facts = (belowThreshold: number): ExecuteResult['facts'] => ({ cases: 2, belowThreshold, infraFailed: [], unscorableCases: 0 });
  const base = {
    interrupted: false,
    infraFailed: [] as ExecuteResult['infraFailed'],
    badInput: undefined as ExecuteResult['badInput'],
    facts: facts(0),
  } satisfies Pick<ExecuteResult, 'interrupted' | 'infraFailed' | 'badInput' | 'facts'>;
  it.each([
    { name: '0 when every case meets its threshold', r: base, want: 0 },
    { name: '1 when a case misses it', r: { ...base, facts: facts(1) }, want: 1 },
    { name: '3 when a case only errored, even with failures', r: { ...base, facts: facts(1), infraFailed: [{ caseId: 'c', message: 'down' }] }, want: 3 },
    { name: '3 when interrupted', r: { ...base, interrupted: true }, want: 3 },
    {
      name: '2 on a stale recording, over everything else',
      r: { ...base, interrupted: true, badInput: { code: 'REPLAY_STALE' as const, message: 'stale' } },
      want: 2,
    },
  ])('$name', ({ r, want }) => {
    expect(exitCodeOf(r)).toBe(want);
  });
});

describe('merge', () => {
  const doc = (ids: string[], order: string[], shard: { index: number; count: number } | null) =>
    buildResultsDocument({
      meta: { started: 't', shard, case_order: order },
      iterations: [{ iteration: 0, timestamp: 't', caseResults: ids.map((id) => result(id, { passRate: id === 'b' ? 0 : 1, meetsThreshold: id !== 'b' })) }],
    });

  it('restores the unsharded case order and recomputes the aggregate', () => {
    const order = ['a', 'b', 'c', 'd'];
    const merged = mergeDocuments([
      { file: 's1.json', doc: doc(['d', 'b'], order, { index: 1, count: 2 }) },
      { file: 's0.json', doc: doc(['a', 'c'], order, { index: 0, count: 2 }) },
    ]);
    const whole = doc(order, order, null);
    expect(Object.keys(merged.iterations[0]!.cases)).toEqual(order);
    expect(merged.iterations[0]!.aggregate).toEqual(whole.iterations[0]!.aggregate);
    expect(merged.meta.shard).toBeNull();
    expect(caseResultsFromDocument(merged).map((r) => r.caseId)).toEqual(order);
  });

  it('names both files when a case is in two of them', () => {
    expect(() =>
      mergeDocuments([
        { file: 'x.json', doc: doc(['a'], ['a'], null) },
        { file: 'y.json', doc: doc(['a'], ['a'], null) },
      ]),
    ).toThrow('y.json: case "a" is also in x.json');
  });
});
