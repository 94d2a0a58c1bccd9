import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchArgs, scoreRun } from '../../src/scoring/index.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import { VERDICT_CATEGORIES, type ArgExpectation, type ToolMode } from '../../src/types/index.js';
import { makeCase, makeRun } from './_build.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);

describe('model output never makes scoring throw', () => {
  // JSON objects whose keys shadow what String() and JSON use: twice found to make resolution throw.
  const poison = fc.dictionary(fc.constantFrom('toString', 'valueOf', 'toJSON', 'constructor', '__proto__'), fc.jsonValue(), { minKeys: 1 });
  const name = fc.oneof(fc.constantFrom('restart-service', 'cron', 'run_runnable', 'search_runnables', 'web-01__git', 'console__which', '', '__'), fc.string());
  const args = fc.dictionary(
    fc.oneof(fc.constantFrom('host', '_host', 'command', '_command', 'id', 'args', '_raw', 'schedule'), fc.string()),
    fc.oneof(fc.jsonValue(), poison, fc.array(poison, { maxLength: 2 })),
  );
  const run = fc.record({
    calls: fc.array(fc.record({ name, arguments: args }), { maxLength: 4 }),
    finalText: fc.option(fc.oneof(fc.string(), fc.json()), { nil: undefined }),
    status: fc.constantFrom('ok' as const, 'truncated' as const, 'error' as const, 'cancelled' as const),
  });

  it('scores any calls, arguments and text to one known category', () => {
    const c = makeCase({
      runspec: {
        tool: ['cron'],
        command: 'add',
        host: 'web-01',
        autonomy: 'confirm',
        args: { schedule: { kind: 'regex', pattern: '^\\d' } },
        forbidTools: ['git'],
      },
      replio: { expected: ['cron'], verifier: { mustInclude: ['cron'], maxCalls: 2, args: { cron: { schedule: { kind: 'one_of', values: ['x', 1] } } } } },
      turnstone: { actions: [{ tool: 'cron', argsPattern: { schedule: '(' } }], matchMode: 'subset' },
    });
    fc.assert(
      fc.property(run, fc.constantFrom<ToolMode | undefined>('dedup', 'per_host', 'search', undefined), fc.boolean(), (spec, toolMode, withToolset) => {
        const verdict = scoreRun(c, makeRun({ ...spec, terminal: true }), { toolset: withToolset ? fleet : undefined, toolMode, validateArgs: true });
        expect(VERDICT_CATEGORIES).toContain(verdict.category);
        expect(typeof verdict.reason).toBe('string');
        expect(verdict.pass).toBe(verdict.category === 'pass');
      }),
      { numRuns: 300 },
    );
  });
});

describe('model output that JSON can carry and String() cannot convert', () => {
  // fast-check found it: a host argument {"toString": null} made the call resolution throw.
  it('scores a host object whose toString is null', () => {
    const c = makeCase({ runspec: { tool: ['cron'], host: 'web-01' } });
    const verdict = scoreRun(c, makeRun({ calls: [{ name: 'cron', arguments: { host: { toString: null } } }], status: 'ok', terminal: true }), {
      toolset: fleet,
      toolMode: 'dedup',
      validateArgs: true,
    });
    expect(VERDICT_CATEGORIES).toContain(verdict.category);
    expect(verdict.pass).toBe(false);
  });

  // fast-check found it again, in CI (seed 1750099593): a command argument {"toString": false}, scored without
  // a toolset, made the name-only resolver throw.
  it.each([
    ['without a toolset', undefined],
    ['with the fleet toolset', fleet],
  ])('scores a command object whose toString is false, %s', (_, toolset) => {
    const c = makeCase({ runspec: { tool: ['cron'], command: 'add' } });
    const verdict = scoreRun(c, makeRun({ calls: [{ name: 'restart-service', arguments: { command: { toString: false } } }], status: 'ok', terminal: true }), {
      toolset,
      toolMode: 'dedup',
      validateArgs: true,
    });
    expect(VERDICT_CATEGORIES).toContain(verdict.category);
    expect(verdict.pass).toBe(false);
  });
});

describe('the arg check direction', () => {
  it('extra observed arguments never change the outcome (expected ⊆ observed)', () => {
    const expectation = fc.oneof(
      fc.jsonValue().map((value): ArgExpectation => ({ kind: 'equals', value })),
      fc.array(fc.jsonValue(), { maxLength: 3 }).map((values): ArgExpectation => ({ kind: 'one_of', values })),
      fc.constant<ArgExpectation>({ kind: 'absent' }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), expectation),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (expected, actual, extra) => {
          const extraOnly = Object.fromEntries(Object.entries(extra).filter(([k]) => !(k in expected) && !(k in actual)));
          expect(matchArgs(expected, { ...actual, ...extraOnly }).ok).toBe(matchArgs(expected, actual).ok);
        },
      ),
    );
  });
});
