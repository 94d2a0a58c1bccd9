import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { runSuite, sampleCount, type RunCaseFn, type RunSuiteOptions, type SuiteScoring } from '../../src/engine/suite-runner.js';
import type { Case, CaseResult, Run, SampleOutcome, Toolset, Verdict } from '../../src/types/index.js';
import type { Provider } from '../../src/providers/types.js';
import type { ReachabilityWatch, UnreachableEvent } from '../../src/core/reachability.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';

const PROVIDER = {
  name: 'fake',
  system: 'fake',
  chat: async () => {
    throw new Error('unused');
  },
  close: async () => {},
} as unknown as Provider;
const TOOLSET: Toolset = { name: 't', runnables: [], hosts: [], groups: {}, source: 'test' };

function mkCase(id: string, over: Partial<Case> = {}): Case {
  return {
    id,
    dialect: 'runspec',
    tags: [],
    source: { file: 'x.toml', source: 'file' },
    prompt: `prompt ${id}`,
    files: {},
    mode: 'decision',
    settings: {},
    ...over,
  };
}

function mkRun(c: Case, sample: number, status: Run['status'] = 'ok'): Run {
  return {
    caseId: c.id,
    sample,
    mode: c.mode,
    provider: 'fake',
    startTimeMs: 1000,
    endTimeMs: 1010,
    modelCalls: [],
    toolCalls: [],
    status,
    usage: { totalTokens: 5 },
    ...(status === 'error' ? { error: { code: 'PROVIDER', message: 'down' } } : {}),
  };
}

// Scoring stand-in: a case whose id starts with "bad" fails; the aggregate is the plain pass rate.
const scoring: SuiteScoring = {
  scoreRun(c, run): Verdict {
    const pass = !c.id.startsWith('bad');
    return {
      caseId: c.id,
      sample: run.sample,
      dialect: c.dialect,
      pass,
      category: run.status === 'error' ? 'error' : pass ? 'pass' : 'wrong_tool',
      reason: '',
      expected: {},
      observed: {},
      jsonDump: false,
      status: run.status,
      calls: [],
    };
  },
  aggregateCase(c, outcomes: SampleOutcome[], { threshold }): CaseResult {
    const scored = outcomes.filter((o) => o.status === 'scored');
    const passRate = scored.length ? scored.filter((o) => o.status === 'scored' && o.verdict.pass).length / scored.length : 0;
    return {
      caseId: c.id,
      dialect: c.dialect,
      tags: c.tags,
      samples: outcomes,
      passRate,
      passRateLow: 0,
      passRateHigh: 1,
      passAtK: passRate,
      passHatK: passRate,
      passK: [],
      threshold,
      meetsThreshold: passRate >= threshold,
      errored: outcomes.some((o) => o.status === 'errored'),
    };
  },
};

describe('sample count precedence', () => {
  it.each([
    {
      name: 'turnstone case n_runs wins over everything',
      c: mkCase('a', { dialect: 'turnstone', settings: { samples: 5, suiteSamples: 2 } }),
      cli: 4,
      want: 5,
    },
    { name: 'turnstone CLI wins over the suite default', c: mkCase('a', { dialect: 'turnstone', settings: { suiteSamples: 2 } }), cli: 4, want: 4 },
    { name: 'turnstone suite default wins over 3', c: mkCase('a', { dialect: 'turnstone', settings: { suiteSamples: 2 } }), cli: undefined, want: 2 },
    { name: 'turnstone falls back to 3', c: mkCase('a', { dialect: 'turnstone' }), cli: undefined, want: 3 },
    { name: 'runspec falls back to 1', c: mkCase('a'), cli: undefined, want: 1 },
    { name: 'replio falls back to 1', c: mkCase('a', { dialect: 'replio' }), cli: undefined, want: 1 },
    { name: 'runspec takes the CLI count', c: mkCase('a'), cli: 3, want: 3 },
    { name: 'runspec case samples win over the CLI', c: mkCase('a', { settings: { samples: 2 } }), cli: 7, want: 2 },
  ])('$name', ({ c, cli, want }) => {
    expect(sampleCount(c, cli)).toBe(want);
  });
});

describe('runSuite', () => {
  it('runs every case × sample, reports results in case order, and never exceeds the concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: string[] = [];
    const runCase: RunCaseFn = async ({ case: c, sample }) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // Later cases finish first, so report order must not follow finishing order.
      await new Promise((r) => setTimeout(r, c.id === 'a' ? 20 : 1));
      inFlight--;
      seen.push(`${c.id}#${sample}`);
      return mkRun(c, sample);
    };
    const cases = [mkCase('a', { settings: { samples: 3 } }), mkCase('b'), mkCase('bad-c', { settings: { samples: 2 } })];
    const reported: string[] = [];
    const out = await runSuite({
      cases,
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      concurrency: 2,
      runCase,
      scoring,
      onCaseResult: (r) => void reported.push(r.caseId),
    });
    expect(seen).toHaveLength(6);
    expect(peak).toBeLessThanOrEqual(2);
    expect(out.results.map((r) => r.caseId)).toEqual(['a', 'b', 'bad-c']);
    expect(reported.sort()).toEqual(['a', 'b', 'bad-c']);
    expect(out.results.map((r) => r.samples.length)).toEqual([3, 1, 2]);
    expect(out.results[2]!.meetsThreshold).toBe(false);
    expect(out.cancelled).toBe(false);
  });

  it('emits telemetry for every sample only after the case is aggregated, with the final result', async () => {
    const events: string[] = [];
    const out = await runSuite({
      cases: [mkCase('a', { settings: { samples: 2 } })],
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'run-9',
      runCase: async ({ case: c, sample }) => mkRun(c, sample),
      scoring,
      telemetry: {
        emitCase: ({ run, result, runId }) => {
          events.push(`emit#${run.sample}:${result.samples.length}:${runId}`);
        },
      },
      onCaseResult: () => void events.push('reported'),
    });
    expect(out.results).toHaveLength(1);
    expect(events.slice(0, 2).sort()).toEqual(['emit#0:2:run-9', 'emit#1:2:run-9']);
    expect(events[2]).toBe('reported');
  });

  it('turns a telemetry failure into a warning and keeps the result', async () => {
    const warnings: string[] = [];
    const out = await runSuite({
      cases: [mkCase('a')],
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      runCase: async ({ case: c, sample }) => mkRun(c, sample),
      scoring,
      telemetry: {
        emitCase: () => {
          throw new Error('collector down');
        },
      },
      onWarning: (w) => void warnings.push(w),
    });
    expect(out.results[0]!.passRate).toBe(1);
    expect(warnings).toEqual(['telemetry: a#0: collector down']);
  });

  it('counts a provider error as an errored sample, not a wrong answer', async () => {
    const out = await runSuite({
      cases: [mkCase('a', { settings: { samples: 2 } })],
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      runCase: async ({ case: c, sample }) => mkRun(c, sample, sample === 0 ? 'error' : 'ok'),
      scoring,
    });
    const r = out.results[0]!;
    expect(r.samples.map((s) => s.status)).toEqual(['errored', 'scored']);
    expect(r.samples[0]).toMatchObject({ status: 'errored', error: { code: 'PROVIDER', message: 'down' } });
    expect(r.errored).toBe(true);
    expect(r.passRate).toBe(1);
  });

  it('skips cases already finished (resume)', async () => {
    const ran: string[] = [];
    const out = await runSuite({
      cases: [mkCase('a'), mkCase('b')],
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      skip: new Set(['a']),
      runCase: async ({ case: c, sample }) => {
        ran.push(c.id);
        return mkRun(c, sample);
      },
      scoring,
    });
    expect(ran).toEqual(['b']);
    expect(out.results.map((r) => r.caseId)).toEqual(['b']);
  });

  it('on abort keeps finished cases, marks the rest unfinished and starts nothing new', async () => {
    const ac = new AbortController();
    const started: string[] = [];
    const runCase: RunCaseFn = async ({ case: c, sample, signal }) => {
      started.push(c.id);
      if (c.id === 'a') return mkRun(c, sample);
      // Case b blocks until aborted, then ends cancelled as the engine does.
      await new Promise<void>((r) => signal!.addEventListener('abort', () => r(), { once: true }));
      return mkRun(c, sample, 'cancelled');
    };
    const cases = [mkCase('a'), mkCase('b'), mkCase('c'), mkCase('d')];
    const p = runSuite({
      cases,
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      concurrency: 2,
      signal: ac.signal,
      runCase,
      scoring,
      onCaseResult: (r) => {
        if (r.caseId === 'a') setTimeout(() => ac.abort(), 5);
      },
    });
    const out = await p;
    expect(out.cancelled).toBe(true);
    expect(out.results.map((r) => r.caseId)).toEqual(['a']);
    expect(out.unfinished.length).toBeGreaterThanOrEqual(1);
    expect(out.unfinished).toContain('b');
    expect(started.length).toBeLessThan(5);
  });

  it('stops when the reachability watch reports the provider unreachable: finished cases kept, in flight cancelled', async () => {
    let down: ((e: UnreachableEvent) => void) | undefined;
    let unwatched = false;
    const reachability: ReachabilityWatch = {
      request: () => ({ connected() {}, failedToConnect() {}, ended() {} }),
      watch(l) {
        down = l;
        return () => {
          unwatched = true;
        };
      },
    };
    const started: string[] = [];
    const runCase: RunCaseFn = async ({ case: c, sample, signal }) => {
      started.push(c.id);
      if (c.id === 'a') return mkRun(c, sample);
      const aborted = new Promise<void>((r) => signal!.addEventListener('abort', () => r(), { once: true }));
      // The watch reports from the HTTP layer while requests are in flight: here once b and c are.
      if (c.id === 'c') down?.({ windowMs: 10_000, reason: 'openai provider: connection failed (ECONNREFUSED)' });
      await aborted;
      return mkRun(c, sample, 'cancelled');
    };
    const out = await runSuite({
      cases: [mkCase('a'), mkCase('b'), mkCase('c'), mkCase('d')],
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      concurrency: 2,
      reachability,
      runCase,
      scoring,
    });
    expect(out.stopped).toEqual({ cause: 'unreachable', windowMs: 10_000, reason: 'openai provider: connection failed (ECONNREFUSED)' });
    expect(out.cancelled).toBe(false);
    expect(out.results.map((r) => r.caseId)).toEqual(['a']);
    expect(out.unfinished).toEqual(['b', 'c', 'd']);
    expect(started).toEqual(['a', 'b', 'c']);
    expect(unwatched).toBe(true);
  });

  it('passes the case max_turns over the CLI one, and the CLI one otherwise', async () => {
    const seen: Record<string, number | undefined> = {};
    await runSuite({
      cases: [mkCase('own', { settings: { maxTurns: 7 } }), mkCase('cli')],
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      runId: 'r',
      maxTurns: 3,
      runCase: async ({ case: c, sample, maxTurns }) => {
        seen[c.id] = maxTurns;
        return mkRun(c, sample);
      },
      scoring,
    });
    expect(seen).toEqual({ own: 7, cli: 3 });
  });

  it('rethrows an unexpected engine exception after stopping the rest', async () => {
    await expect(
      runSuite({
        cases: [mkCase('a'), mkCase('b')],
        provider: PROVIDER,
        toolsetFor: () => TOOLSET,
        runId: 'r',
        concurrency: 1,
        runCase: async () => {
          throw new Error('boom');
        },
        scoring,
      }),
    ).rejects.toThrow('boom');
  });
});

describe('runSuite keeps the configured number of samples in flight', () => {
  it('while a finished case is being reported (logged, traced), the other lanes keep running', async () => {
    // Lanes used to await each case report before taking the next sample, so the run dipped below
    // --concurrency whenever a case was logged or its traces rendered.
    const concurrency = 4;
    const cases = Array.from({ length: 40 }, (_, i) => mkCase(`c${i}`));
    let inFlight = 0;
    const atEnd: number[] = [];
    const runCase: RunCaseFn = async ({ case: c, sample }) => {
      inFlight++;
      await new Promise((r) => setImmediate(r));
      atEnd.push(inFlight);
      inFlight--;
      return mkRun(c, sample);
    };
    const reported: string[] = [];
    const r = await runSuite({
      cases,
      provider: PROVIDER,
      toolsetFor: () => TOOLSET,
      concurrency,
      runId: 'r',
      runCase,
      scoring,
      keepResults: false,
      onCaseResult: async (res) => {
        // The first report is slow (three turns of the event loop); later reports queue behind it.
        if (res.caseId === 'c0') for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
        reported.push(res.caseId);
      },
    });
    expect(reported).toEqual(cases.map((c) => c.id));
    expect(r.results).toEqual([]);
    expect(r.unfinished).toEqual([]);
    // Every sample but the last few (when the queue runs dry) ended with all lanes busy.
    expect(atEnd.slice(0, -concurrency)).toEqual(Array(40 - concurrency).fill(concurrency));
  });
});

/** Scoring that throws ('scoring bug') for the case `id`, as a bug in scoring would. */
function scoringThatThrowsOn(id: string): SuiteScoring {
  return {
    scoreRun: (c, run, o) => {
      if (c.id === id) throw new Error('scoring bug');
      return scoring.scoreRun(c, run, o);
    },
    aggregateCase: (c, outcomes, o) => scoring.aggregateCase(c, outcomes, o),
  };
}

/** The options every test below shares: these cases, the stand-in provider and toolset, run id "r". */
function suiteOf(ids: readonly string[]): Pick<RunSuiteOptions, 'cases' | 'provider' | 'toolsetFor' | 'runId'> {
  return { cases: ids.map((id) => mkCase(id)), provider: PROVIDER, toolsetFor: () => TOOLSET, runId: 'r' };
}

describe('runSuite sends before it finishes', () => {
  it("sends every lane's next request before the answered samples are scored, counted and reported", async () => {
    // Scoring, progress and the case report ran before the lane took its next sample, so when a wave of
    // answers arrived together the last lane's next request waited behind every lane's finishing work.
    const events: string[] = [];
    const answers = new Map<string, () => void>();
    const runCase: RunCaseFn = async ({ case: c, sample }) => {
      events.push(`send ${c.id}`);
      await new Promise<void>((r) => answers.set(c.id, r));
      return mkRun(c, sample);
    };
    const observed: SuiteScoring = {
      scoreRun: (c, run, o) => {
        events.push(`score ${c.id}`);
        return scoring.scoreRun(c, run, o);
      },
      aggregateCase: (c, outcomes, o) => scoring.aggregateCase(c, outcomes, o),
    };
    const running = runSuite({
      ...suiteOf(['a', 'b', 'c', 'd']),
      concurrency: 2,
      runCase,
      scoring: observed,
      onSample: (p) => void events.push(`progress ${p.caseId} ${p.done}/${p.total}`),
      onCaseResult: (r) => void events.push(`report ${r.caseId}`),
    });
    await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['send a', 'send b']);
    // Both answers arrive in the same turn of the event loop.
    answers.get('a')!();
    answers.get('b')!();
    await new Promise((r) => setImmediate(r));
    expect(events.slice(2, 4)).toEqual(['send c', 'send d']);
    answers.get('c')!();
    answers.get('d')!();
    await running;
    const finishing = events.filter((e) => !e.startsWith('send'));
    expect(finishing).toEqual([
      ...['score a', 'progress a 1/4', 'report a', 'score b', 'progress b 2/4', 'report b'],
      ...['score c', 'progress c 3/4', 'report c', 'score d', 'progress d 4/4', 'report d'],
    ]);
  });

  it("writes the lane's next request to a reused keep-alive socket before the answered sample is scored (real undici)", async () => {
    // undici writes a request on a reused keep-alive socket in the check phase after it was dispatched; a
    // settlement one turn after the answer ran before that write, so the next request still waited on it.
    const model = await startFakeOpenAI({ text: 'done' });
    const provider = createOpenAIProvider({ baseUrl: model.url, model: 'fake-model', apiKey: 'sk-test', apiKeyEnv: 'OPENAI_API_KEY' });
    const events: string[] = [];
    // Published as a request's headers are written to its socket.
    const onHeaders = (): void => void events.push('written');
    subscribe('undici:client:sendHeaders', onHeaders);
    try {
      await runSuite({
        ...suiteOf(['a', 'b', 'c']),
        provider,
        concurrency: 1,
        runCase: async ({ case: c, sample, signal }) => {
          events.push(`send ${c.id}`);
          await provider.chat({ messages: [{ role: 'user', content: c.prompt }], tools: [], signal });
          return mkRun(c, sample);
        },
        scoring,
        onSample: (p) => void events.push(`progress ${p.caseId}`),
      });
    } finally {
      unsubscribe('undici:client:sendHeaders', onHeaders);
      await provider.close();
      await model.close();
    }
    const writtenAt = events.flatMap((e, k) => (e === 'written' ? [k] : []));
    expect(writtenAt).toHaveLength(3);
    // Each request after the first reaches its socket before the previous sample is scored.
    expect(writtenAt[1]).toBeLessThan(events.indexOf('progress a'));
    expect(writtenAt[2]).toBeLessThan(events.indexOf('progress b'));
    expect(events.filter((e) => e.startsWith('progress'))).toEqual(['progress a', 'progress b', 'progress c']);
  });

  it('settles samples as it goes when the provider answers without I/O (a replay), not all at the end', async () => {
    let started = 0;
    let progressed = 0;
    let mostAhead = 0;
    const out = await runSuite({
      ...suiteOf(Array.from({ length: 500 }, (_, i) => `c${i}`)),
      concurrency: 4,
      runCase: async ({ case: c, sample }) => {
        started++;
        mostAhead = Math.max(mostAhead, started - progressed);
        return mkRun(c, sample);
      },
      scoring,
      keepResults: false,
      onSample: () => void progressed++,
    });
    expect(out.samplesRun).toBe(500);
    expect(progressed).toBe(500);
    // The runner's bound on samples ended but not yet settled (and reports pending), plus the lanes.
    expect(mostAhead).toBeLessThanOrEqual(16 + 4);
  });

  it('stops after stopAfterErrors samples in a row errored, before a lane sends another request', async () => {
    const started: string[] = [];
    const out = await runSuite({
      ...suiteOf(['a', 'b', 'c', 'd', 'e']),
      concurrency: 1,
      stopAfterErrors: 2,
      runCase: async ({ case: c, sample }) => {
        started.push(c.id);
        return mkRun(c, sample, c.id === 'a' ? 'ok' : 'error');
      },
      scoring,
    });
    expect(started).toEqual(['a', 'b', 'c']);
    expect(out.stopped).toEqual({ cause: 'errors', samples: 2, error: { code: 'PROVIDER', message: 'down' } });
    // The errored samples are finished cases too (infrastructure failures, exit 3).
    expect(out.results.map((r) => r.caseId)).toEqual(['a', 'b', 'c']);
    expect(out.unfinished).toEqual(['d', 'e']);
    expect(out.samplesRun).toBe(3);
  });

  it('fails the run when scoring throws, after the samples in flight have ended', async () => {
    const reported: string[] = [];
    const throwing = scoringThatThrowsOn('b');
    await expect(
      runSuite({
        ...suiteOf(['a', 'b', 'c']),
        concurrency: 1,
        runCase: async ({ case: c, sample }) => mkRun(c, sample),
        scoring: throwing,
        onCaseResult: (r) => void reported.push(r.caseId),
      }),
    ).rejects.toThrow('scoring bug');
    expect(reported).not.toContain('b');
  });
});

describe('runSuite reports a kept worktree as its sample ends', () => {
  it("calls onWorktreeKept before the lane's next sample starts, and onSample after it", async () => {
    // The kept worktree came with onSample only, after scoring, which waits until the lane's next sample is
    // out: its line came after that sample's first turn (-v).
    const events: string[] = [];
    await runSuite({
      ...suiteOf(['a', 'b']),
      concurrency: 1,
      keepWorktrees: true,
      runCase: async ({ case: c, sample }) => {
        events.push(`start ${c.id}`);
        return { ...mkRun(c, sample), worktree: `/kept/${c.id}` };
      },
      scoring,
      onWorktreeKept: (k) => void events.push(`kept ${k.caseId}#${k.sample} ${k.worktree}`),
      onSample: (p) => void events.push(`progress ${p.caseId}`),
    });
    expect(events).toEqual(['start a', 'kept a#0 /kept/a', 'start b', 'kept b#0 /kept/b', 'progress a', 'progress b']);
  });

  it('fails the run when onWorktreeKept throws, and starts nothing new', async () => {
    const started: string[] = [];
    await expect(
      runSuite({
        ...suiteOf(['a', 'b', 'c']),
        concurrency: 1,
        runCase: async ({ case: c, sample }) => {
          started.push(c.id);
          return { ...mkRun(c, sample), worktree: `/kept/${c.id}` };
        },
        scoring,
        onWorktreeKept: (k) => {
          if (k.caseId === 'a') throw new Error('stderr closed');
        },
      }),
    ).rejects.toThrow('stderr closed');
    expect(started).toEqual(['a']);
  });
});

describe('runSuite winds down before it fails', () => {
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

  it('reports no case after it has rejected for a scoring exception (the reports queued before it end first)', async () => {
    const events: string[] = [];
    let returned = false;
    const throwing = scoringThatThrowsOn('d');
    const running = runSuite({
      ...suiteOf(['a', 'b', 'c', 'd']),
      concurrency: 1,
      runCase: async ({ case: c, sample }) => mkRun(c, sample),
      scoring: throwing,
      // A report that takes a few turns (a log write): the chain is still busy when scoring throws.
      onCaseResult: async (r) => {
        events.push(`start ${r.caseId}${returned ? ' (after return)' : ''}`);
        for (let i = 0; i < 5; i++) await turn();
        events.push(`end ${r.caseId}${returned ? ' (after return)' : ''}`);
      },
    });
    await expect(running.finally(() => void (returned = true))).rejects.toThrow('scoring bug');
    for (let i = 0; i < 40; i++) await turn();
    expect(events.filter((e) => e.includes('after return'))).toEqual([]);
    expect(events).not.toContain('start d');
  });

  it('starts nothing new once scoring has thrown, as for an engine exception', async () => {
    const started: string[] = [];
    const throwing = scoringThatThrowsOn('b');
    await expect(
      runSuite({
        ...suiteOf(['a', 'b', 'c', 'd', 'e', 'f']),
        concurrency: 1,
        runCase: async ({ case: c, sample }) => {
          started.push(c.id);
          // An answer takes a turn, as one over a socket does.
          await turn();
          return mkRun(c, sample);
        },
        scoring: throwing,
      }),
    ).rejects.toThrow('scoring bug');
    // b is scored two turns after its answer, while the samples taken since are in flight (c, perhaps d);
    // nothing starts after that. Before, the run went on to the last case and failed only then.
    expect(started.slice(0, 3)).toEqual(['a', 'b', 'c']);
    expect(started).not.toContain('e');
    expect(started).not.toContain('f');
  });

  it('counts errored samples in a row only: an ok sample between two errors resets the count', async () => {
    const out = await runSuite({
      ...suiteOf(['a', 'b', 'c', 'd', 'e', 'f']),
      concurrency: 1,
      stopAfterErrors: 2,
      runCase: async ({ case: c, sample }) => mkRun(c, sample, ['a', 'c', 'e'].includes(c.id) ? 'error' : 'ok'),
      scoring,
    });
    expect(out.stopped).toBeUndefined();
    expect(out.samplesRun).toBe(6);
    expect(out.unfinished).toEqual([]);
  });
});
