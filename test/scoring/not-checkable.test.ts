// Checks judged only on data the run carries: a trace recorded without content has call names but no
// arguments, and used to get false wrong_args / wrong_sequence (or a false pass) instead of "not checkable".
import { describe, expect, it } from 'vitest';
import { aggregateCase, argumentHash, expectationsHash, hashArguments, scoreRun, summarize, type ScoreOptions } from '../../src/scoring/index.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import type { ArgExpectation, Run } from '../../src/types/index.js';
import { makeCase, makeRun, type CallSpec } from './_build.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);
const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });
const decide = (calls: CallSpec[]): Run => makeRun({ calls, terminal: true });
const restart = makeCase({ runspec: { tool: ['restart-service'], host: 'web-01', args: { service: eq('nginx') } } });

describe('not checkable', () => {
  it('lists judged and not-judged checks with what was missing', () => {
    const v = scoreRun(restart, decide([{ name: 'restart-service', absent: true }]), { toolset: fleet });
    expect(v.category).toBe('unscorable');
    expect(v.pass).toBe(false);
    expect(v.checks).toEqual([
      { check: 'tool', judged: true, pass: true, expected: ['restart-service'], observed: 'restart-service' },
      { check: 'host', judged: false, expected: 'web-01', missing: expect.stringMatching(/arguments not captured/) },
      { check: 'args.service', judged: false, expected: '"nginx"', missing: expect.stringMatching(/arguments not captured/) },
    ]);
  });

  it('cannot check forbid_tools when a search-layout call names its runnable in arguments not captured', () => {
    const noRestart = makeCase({ runspec: { forbidTools: ['restart-service'] } });
    const hidden = makeRun({
      calls: [
        { name: 'search_runnables', arguments: { query: 'restart' } },
        { name: 'run_runnable', absent: true },
      ],
      terminal: true,
      toolMode: 'search',
    });
    const v = scoreRun(noRestart, hidden, { toolset: fleet });
    expect(v.category).toBe('unscorable');
    expect(v.checks).toContainEqual({
      check: 'forbid_tools',
      judged: false,
      expected: ['restart-service'],
      missing: 'the runnable of 1 call(s) is named in arguments that were not captured',
    });
    const shown = makeRun({ calls: [{ name: 'run_runnable', arguments: { id: 'restart-service' } }], terminal: true, toolMode: 'search' });
    expect(scoreRun(noRestart, shown, { toolset: fleet }).category).toBe('forbidden_tool');
  });

  it('passes a tool-only case on a call without arguments (nothing needed is missing)', () => {
    const v = scoreRun(makeCase({ runspec: { tool: ['restart-service'] } }), decide([{ name: 'restart-service', absent: true }]), { toolset: fleet });
    expect(v.category).toBe('pass');
  });

  it('judges the recorded resolution of our own traces: host and command stay checkable', () => {
    const run = decide([{ name: 'restart-service', absent: true }]);
    run.terminal!.resolved = {
      runnable: 'restart-service',
      known: true,
      discovery: false,
      host: 'web-02',
      args: {},
      layout: 'dedup',
      calledName: 'restart-service',
    };
    const v = scoreRun(restart, run, { toolset: fleet });
    expect(v.category).toBe('wrong_host');
  });

  it('reuses the recorded argument verdict only while the expectations are unchanged', () => {
    const mk = (): Run => {
      const run = decide([{ name: 'restart-service', absent: true }]);
      run.terminal!.resolved = {
        runnable: 'restart-service',
        known: true,
        discovery: false,
        host: 'web-01',
        args: {},
        layout: 'dedup',
        calledName: 'restart-service',
      };
      return run;
    };
    const same: ScoreOptions = { toolset: fleet, recordedArgs: { expectationsHash: expectationsHash(restart.runspec!.args!), pass: true } };
    expect(scoreRun(restart, mk(), same).category).toBe('pass');
    const failed: ScoreOptions = { toolset: fleet, recordedArgs: { expectationsHash: expectationsHash(restart.runspec!.args!), pass: false } };
    expect(scoreRun(restart, mk(), failed).category).toBe('wrong_args');
    const changed = makeCase({ runspec: { tool: ['restart-service'], host: 'web-01', args: { service: eq('apache2') } } });
    expect(scoreRun(changed, mk(), same).category).toBe('unscorable');
  });

  it('re-checks equality and $one_of from keyed hashes, and says a regex is not checkable', () => {
    const key = 'k3y';
    const hashes = hashArguments(key, { host: ' WEB-01 ', service: 'Nginx', replicas: '3' });
    const call: CallSpec = { name: 'restart-service', absent: true, argumentHashes: hashes };
    expect(scoreRun(restart, decide([call]), { toolset: fleet, hashKey: key }).category).toBe('unscorable'); // host: resolved from args
    const noHost = makeCase({ runspec: { tool: ['restart-service'], args: { service: eq('nginx'), replicas: eq(3) } } });
    expect(scoreRun(noHost, decide([call]), { toolset: fleet, hashKey: key }).category).toBe('pass');
    const wrong = makeCase({ runspec: { tool: ['restart-service'], args: { service: { kind: 'one_of', values: ['apache2', 'caddy'] } } } });
    const w = scoreRun(wrong, decide([call]), { toolset: fleet, hashKey: key });
    expect(w.category).toBe('wrong_args');
    expect(w.reason).toContain('hashed value does not match');
    const regex = makeCase({ runspec: { tool: ['restart-service'], args: { service: { kind: 'regex', pattern: 'ngi' } } } });
    const r = scoreRun(regex, decide([call]), { toolset: fleet, hashKey: key });
    expect(r.category).toBe('unscorable');
    expect(r.reason).toMatch(/regex expectation needs the value/);
    const noKey = scoreRun(noHost, decide([call]), { toolset: fleet });
    expect(noKey.category).toBe('unscorable');
    expect(noKey.reason).toContain('RUNSPEC_HASH_KEY');
    expect(argumentHash(key, '3')).toBe(argumentHash(key, 3));
    // The key never makes a verdict worse: a regex the hashes cannot judge keeps the recorded verdict
    // while the expectations are the ones the trace was judged against.
    const recordedArgs = { expectationsHash: expectationsHash(regex.runspec!.args!), pass: true };
    const kept = scoreRun(regex, decide([call]), { toolset: fleet, hashKey: key, recordedArgs });
    expect(kept.category).toBe('pass');
    expect(kept.checks?.find((k) => k.check === 'args')).toMatchObject({ judged: true, via: 'recorded' });
  });

  it('a turnstone action with arguments is unscorable against calls without them, wrong_sequence when the name differs', () => {
    const c = makeCase({
      dialect: 'turnstone',
      mode: 'trajectory',
      turnstone: { actions: [{ tool: 'read_file', args: { path: eq('a.py') } }], matchMode: 'ordered_subset' },
    });
    expect(scoreRun(c, makeRun({ calls: [{ name: 'read_file', absent: true }] })).category).toBe('unscorable');
    expect(scoreRun(c, makeRun({ calls: [{ name: 'grep', absent: true }] })).category).toBe('wrong_sequence');
    // A definite failure names as missing only the action no uncaptured arguments could have matched.
    const two = makeCase({
      dialect: 'turnstone',
      mode: 'trajectory',
      turnstone: { actions: [{ tool: 'bash' }, { tool: 'read_file', args: { path: eq('a.py') } }], matchMode: 'subset' },
    });
    const v = scoreRun(two, makeRun({ calls: [{ name: 'read_file', absent: true }] }));
    expect(v.category).toBe('wrong_sequence');
    expect(v.reason).toBe('Subset: 1/2; missing bash; 1 matched by name only (arguments not captured)');
  });

  it('replio verifier.args is unscorable against calls without arguments', () => {
    const c = makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { mustInclude: ['file_read'], args: { file_read: { path: eq('a') } } } } });
    const v = scoreRun(c, makeRun({ calls: [{ name: 'file_read', absent: true }] }));
    expect(v.category).toBe('unscorable');
    expect(v.checks?.find((k) => !k.judged)?.check).toBe('verifier.args.file_read');
  });

  it('replio verifier.args is re-checked from keyed hashes with the key, not checkable without it', () => {
    const c = makeCase({
      dialect: 'replio',
      mode: 'trajectory',
      replio: { verifier: { mustInclude: ['file_read'], args: { file_read: { path: eq('Src/A.ts ') } } } },
    });
    const hashed = (path: string): Run => makeRun({ calls: [{ name: 'file_read', absent: true, argumentHashes: hashArguments('k', { path }) }] });
    expect(scoreRun(c, hashed('src/a.ts'), { hashKey: 'k' }).category).toBe('pass');
    const wrong = scoreRun(c, hashed('src/b.ts'), { hashKey: 'k' });
    expect(wrong.category).toBe('wrong_args');
    expect(wrong.reason).toContain('hashed values do not match');
    expect(scoreRun(c, hashed('src/a.ts')).category).toBe('unscorable');
  });
});

describe('max_redundant without arguments', () => {
  const c = makeCase({ dialect: 'replio', mode: 'trajectory', settings: { maxRedundant: 0 }, replio: { expected: ['file_read', 'file_read'] } });
  it('is not checkable on a repeated name, never a false redundant_call', () => {
    const v = scoreRun(
      c,
      makeRun({
        calls: [
          { name: 'file_read', absent: true },
          { name: 'file_read', absent: true },
        ],
      }),
    );
    expect(v.category).toBe('unscorable');
    expect(v.checks?.find((k) => k.check === 'max_redundant')).toMatchObject({ judged: false });
  });
  it('still fails on repeats that are certain, and passes when no name repeats', () => {
    const same = { name: 'file_read', arguments: { path: 'a' } };
    const three = makeCase({
      dialect: 'replio',
      mode: 'trajectory',
      settings: { maxRedundant: 0 },
      replio: { expected: ['file_read', 'file_read', 'file_read'] },
    });
    expect(scoreRun(three, makeRun({ calls: [same, same, { name: 'file_read', absent: true }] })).category).toBe('redundant_call');
    const once = makeCase({ dialect: 'replio', mode: 'trajectory', settings: { maxRedundant: 0 }, replio: { expected: ['file_read'] } });
    expect(scoreRun(once, makeRun({ calls: [{ name: 'file_read', absent: true }] })).category).toBe('pass');
  });
});

describe('unscorable samples in aggregates', () => {
  it('are left out of the pass rate, interval and pass@k, and counted on their own', () => {
    const c = makeCase({ runspec: { tool: ['restart-service'], args: { service: eq('nginx') } } });
    const scored = (absent: boolean, service = 'nginx') => ({
      status: 'scored' as const,
      sample: 0,
      verdict: scoreRun(c, decide([absent ? { name: 'restart-service', absent: true } : { name: 'restart-service', arguments: { host: 'web-01', service } }]), {
        toolset: fleet,
      }),
      elapsedMs: 1,
      tokens: 0,
    });
    const outcomes = [scored(false), scored(true), scored(false, 'apache2')].map((o, i) => ({ ...o, sample: i }));
    expect(outcomes.map((o) => o.verdict.category)).toEqual(['pass', 'unscorable', 'wrong_args']);
    const r = aggregateCase(c, outcomes, { threshold: 0.5 });
    expect([r.passRate, r.unscorable, r.passAtK]).toEqual([0.5, 1, 1]);
    const s = summarize([r]);
    expect([s.scoredSamples, s.passedSamples, s.unscorableSamples, s.erroredSamples, s.byCategory.unscorable]).toEqual([2, 1, 1, 0, 1]);
  });
});

describe('run --fail-on-unscorable', () => {
  it('turns an unscorable sample into exit 1 only when asked', async () => {
    const { exitCodeOf } = await import('../../src/app/run-suite.js');
    const c = makeCase({ runspec: { tool: ['restart-service'], args: { service: eq('nginx') } } });
    const ok = {
      status: 'scored' as const,
      sample: 0,
      verdict: scoreRun(c, decide([{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }]), { toolset: fleet }),
      elapsedMs: 1,
      tokens: 0,
    };
    const blind = {
      status: 'scored' as const,
      sample: 1,
      verdict: scoreRun(c, decide([{ name: 'restart-service', absent: true }]), { toolset: fleet }),
      elapsedMs: 1,
      tokens: 0,
    };
    const result = aggregateCase(c, [ok, blind], { threshold: 1 });
    // The run hands exitCodeOf the facts gathered while its document is streamed, not the results.
    const r = {
      interrupted: false,
      infraFailed: [],
      badInput: undefined,
      facts: { cases: 1, belowThreshold: result.meetsThreshold ? 0 : 1, unscorableCases: (result.unscorable ?? 0) > 0 ? 1 : 0, infraFailed: [] },
    };
    expect(exitCodeOf(r)).toBe(0);
    expect(exitCodeOf(r, { failOnUnscorable: true })).toBe(1);
  });
});
