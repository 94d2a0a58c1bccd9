import { describe, expect, it } from 'vitest';
import { buildResultsDocument, caseResultsFromDocument, compareResults, parseResultsDocument, resultsJsonSchema, summarize } from '../../src/report/index.js';
import { isRunspecError } from '../../src/errors.js';
import { sampleCaseResults } from '../scoring/_results.js';

const meta = { started: '2026-01-01T00:00:00Z', model: 'gpt-test', base_url: 'http://127.0.0.1:1/v1', test_suite: 'fleet', n_runs_default: 3 };

describe('summarize', () => {
  const results = sampleCaseResults();
  const s = summarize(results);

  it('counts cases, samples and errored ones separately', () => {
    expect(s).toMatchObject({
      cases: 6,
      samples: 11,
      scoredSamples: 8,
      erroredSamples: 3,
      errored: 2,
      casesMeetingThreshold: 3,
      casesBelowThreshold: 2,
      allMeetThreshold: false,
    });
  });

  it('averages pass rate and accuracy, totals calls, redundant, errors and tokens', () => {
    expect(s.avgPassRate).toBeCloseTo((2 / 3 + 1 + 1 + 0.5 + 0) / 5);
    expect(s.overallPassRate).toBeCloseTo(5 / 8);
    expect(s.avgAccuracy).toBe(0.5);
    expect(s.calls).toBe(8);
    expect(s.tokens).toBe(8 * 120);
  });

  it('rolls up by verdict category, tag and suite', () => {
    expect(s.byCategory).toMatchObject({ pass: 5, wrong_host: 1, forbidden_tool: 1, wrong_sequence: 1, no_run: 0 });
    expect(Object.keys(s.byTag)).toEqual(['edit', 'ops', 'restart', 'safety']);
    expect(s.byTag.ops).toMatchObject({ cases: 3, casesMeetingThreshold: 1 });
    expect(s.bySuite.fleet).toMatchObject({ cases: 4 });
  });

  it('re-judges every case against a threshold override', () => {
    expect(summarize(results, { threshold: 0.5 }).casesMeetingThreshold).toBe(4);
  });
});

describe('results document', () => {
  const results = sampleCaseResults();
  const doc = buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: '2026-01-01T00:01:00Z', prompt: 'be brief', caseResults: results }] });

  it('is a superset of the turnstone results schema', () => {
    const it0 = doc.iterations[0]!;
    expect(Object.keys(doc.meta)).toEqual(expect.arrayContaining(['model', 'base_url', 'started', 'test_suite', 'n_runs_default']));
    expect(it0).toMatchObject({ iteration: 0, prompt: 'be brief', timestamp: '2026-01-01T00:01:00Z' });
    const edit = it0.cases['edit <tests> & "quotes"']!;
    expect(edit.runs[0]).toMatchObject({
      pass: false,
      score: 0.5,
      matched: [0],
      unmatched: [1],
      extra_tools: ['write_file'],
      detail: 'Ordered subset: 1/2; missing edit_file',
      tool_sequence: ['read_file', 'write_file'],
      tool_args: [{ read_file: { path: 'f.py' } }, { write_file: { path: 'f.py', content: 'x' } }],
      elapsed: 1.2,
    });
    expect(edit).toMatchObject({ pass_rate: 0, avg_score: 0.5 });
    expect(it0.aggregate).toMatchObject({ total_cases: 6, total_runs: 11, json_dumps: 0 });
    expect(it0.aggregate.overall_pass_rate).toBeCloseTo(5 / 8);
    expect(it0.aggregate.per_case_pass_rates['cron-add-is-confirm']).toBe(1);
  });

  it('carries the runspec verdict, observed values and the case statistics', () => {
    const cron = doc.iterations[0]!.cases['cron-add-is-confirm']!;
    expect(cron.runs[0]!.verdict).toMatchObject({
      category: 'pass',
      expected: { tool: ['cron'], command: 'add', host: 'web-01', autonomy: 'confirm' },
      observed: { tool: 'cron', command: 'add', host: 'web-01', autonomy: 'confirm' },
    });
    expect(cron).toMatchObject({
      suite: 'fleet',
      dialect: 'runspec',
      tags: ['ops'],
      k: 1,
      pass_at_k: 1,
      pass_hat_k: 1,
      threshold: 0.9,
      meets_threshold: true,
      errored: false,
    });
  });

  it('round-trips through JSON back to the same case results', () => {
    const back = caseResultsFromDocument(parseResultsDocument(JSON.stringify(doc), 'results.json'));
    expect(back).toEqual(results);
  });

  it('re-aggregates to the same document', () => {
    const again = buildResultsDocument({
      meta,
      iterations: [{ iteration: 0, timestamp: '2026-01-01T00:01:00Z', prompt: 'be brief', caseResults: caseResultsFromDocument(doc) }],
    });
    expect(again).toEqual(doc);
  });

  it('picks an iteration by number, the last by default, and says which exist', () => {
    const two = buildResultsDocument({
      meta,
      iterations: [
        { iteration: 0, timestamp: 't0', caseResults: results.slice(0, 1) },
        { iteration: 1, timestamp: 't1', caseResults: results.slice(0, 2) },
      ],
    });
    expect(caseResultsFromDocument(two)).toHaveLength(2);
    expect(caseResultsFromDocument(two, 0)).toHaveLength(1);
    expect(() => caseResultsFromDocument(two, 7)).toThrow(/no iteration 7/);
  });

  it.each([
    { name: 'not JSON', input: '{"meta": ', message: /^results\.json: expected a JSON results document/ },
    {
      name: 'a missing section',
      input: JSON.stringify({ meta: { started: 'x' } }),
      message: /^results\.json: iterations: Invalid input: expected array, received undefined$/,
    },
    {
      name: 'a wrong type deep inside',
      input: JSON.stringify({ ...doc, iterations: [{ ...doc.iterations[0], aggregate: { ...doc.iterations[0]!.aggregate, total_runs: 'eleven' } }] }),
      message: /^results\.json: iterations\[0\]\.aggregate\.total_runs: Invalid input: expected number, received string$/,
    },
    {
      name: 'an unknown verdict category',
      input: JSON.stringify(doc).replace('"wrong_host"', '"wrong_hostname"'),
      message: /^results\.json: iterations\[0\]\.cases\["restart-nginx-targeted"\]\.runs\[1\]\.verdict\.category: /,
    },
  ])('rejects $name with a one-line error naming the file and field', ({ input, message }) => {
    let caught: unknown;
    try {
      parseResultsDocument(input, 'results.json');
    } catch (err) {
      caught = err;
    }
    expect(isRunspecError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).not.toContain('\n');
  });
});

describe('compareResults', () => {
  const base = sampleCaseResults();
  const docA = buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: 't', caseResults: base }] });
  const better = sampleCaseResults().map((r) => (r.caseId === 'restart-nginx-targeted' ? { ...r, passRate: 1, passRateLow: 0.9, passRateHigh: 1 } : r));
  const worse = sampleCaseResults()
    .filter((r) => r.caseId !== 'cron-add-is-confirm')
    .map((r) => (r.caseId === 'read-file-lines' ? { ...r, passRate: 0, passRateLow: 0, passRateHigh: 0.05 } : r));
  const c = compareResults([
    { label: 'openai', doc: docA },
    { label: 'anthropic', doc: buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: 't', caseResults: better }] }) },
    { label: 'local', doc: buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: 't', caseResults: worse }] }) },
  ]);

  it('puts per-case pass rates side by side with deltas against the first run', () => {
    expect(c.labels).toEqual(['openai', 'anthropic', 'local']);
    const restart = c.rows.find((r) => r.caseId === 'restart-nginx-targeted')!;
    expect(restart.cells.map((x) => x?.passRate)).toEqual([2 / 3, 1, 2 / 3]);
    expect(restart.deltas[0]).toBe(0);
    expect(restart.deltas[1]).toBeCloseTo(1 / 3);
  });

  it('flags only cases whose intervals do not overlap', () => {
    const restart = c.rows.find((r) => r.caseId === 'restart-nginx-targeted')!;
    expect(restart.significant).toEqual([]);
    const read = c.rows.find((r) => r.caseId === 'read-file-lines')!;
    expect(read.cells[0]!.passRateLow).toBeGreaterThan(0.05);
    expect(read.significant).toEqual(['local']);
  });

  it('shows a case missing from a run as null', () => {
    const cron = c.rows.find((r) => r.caseId === 'cron-add-is-confirm')!;
    expect(cron.cells[2]).toBeNull();
    expect(cron.deltas[2]).toBeNull();
  });
});

describe('meta.base_url', () => {
  it('keeps credentials out of the results file', () => {
    const doc = buildResultsDocument({
      meta: { started: 't', base_url: 'https://user:sk-live-123@llm.example.com/v1?api-key=sk-live-456&api-version=2024-10-01' },
      iterations: [],
    });
    expect(doc.meta.base_url).toBe('https://***:***@llm.example.com/v1?api-key=***&api-version=2024-10-01');
    expect(JSON.stringify(doc)).not.toContain('sk-live');
  });

  it('leaves an ordinary endpoint as it is', () => {
    for (const url of ['http://127.0.0.1:8000/v1', 'http://localhost:11434', 'not a url']) {
      expect(buildResultsDocument({ meta: { started: 't', base_url: url }, iterations: [] }).meta.base_url).toBe(url);
    }
  });
});

describe('resultsJsonSchema', () => {
  it('describes the document: turnstone sections required, runspec-eval fields listed', () => {
    const schema = resultsJsonSchema() as {
      required: string[];
      properties: Record<string, { items?: { properties: Record<string, unknown>; required: string[] } }>;
    };
    expect(schema.required).toEqual(expect.arrayContaining(['meta', 'iterations']));
    const iteration = schema.properties.iterations!.items!;
    expect(iteration.required).toEqual(expect.arrayContaining(['iteration', 'timestamp', 'cases', 'aggregate']));
  });

  it('lists meta.case_order, the selection order merge restores', () => {
    const schema = resultsJsonSchema() as { properties: { meta: { properties: Record<string, { type?: string }> } } };
    expect(schema.properties.meta.properties.case_order?.type).toBe('array');
  });

  it('lists the optional inputs of scored traces (unmatched, uninterpretable, problems) and checks them on read', () => {
    const schema = resultsJsonSchema() as { required: string[]; properties: { inputs?: { properties: Record<string, unknown>; required: string[] } } };
    expect(schema.required).not.toContain('inputs');
    expect(Object.keys(schema.properties.inputs!.properties)).toEqual(
      expect.arrayContaining([
        'traces',
        'unmatched',
        'unmatched_traces',
        'uninterpretable',
        'uninterpretable_traces',
        'problems',
        'problem_examples',
        'superseded',
      ]),
    );
    const inputs = { traces: 2, unmatched: 1, unmatched_traces: [{ trace_id: 'ab' }], uninterpretable: 0, problems: 0 };
    expect(parseResultsDocument({ meta: { started: 't' }, iterations: [], inputs }, 'r.json').inputs).toEqual(inputs);
    expect(() => parseResultsDocument({ meta: { started: 't' }, iterations: [], inputs: { traces: 'two' } }, 'r.json')).toThrow(/^r\.json: inputs\.traces: /);
  });

  it('rejects a case_order that is not a list of ids, naming the field', () => {
    expect(() => parseResultsDocument({ meta: { started: 't', case_order: 'a,b' }, iterations: [] }, 'r.json')).toThrow(/^r\.json: meta\.case_order: /);
  });
});
