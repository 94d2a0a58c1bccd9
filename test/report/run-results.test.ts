import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunRecorder, type RunRecorder } from '../../src/report/run-results.js';
import type { ResultsLogHeader } from '../../src/report/results-file.js';
import { buildResultsDocument, caseResultsFromDocument, resultsDocumentText } from '../../src/report/results.js';
import { aggregateCase, scoreRun } from '../../src/scoring/index.js';
import type { CaseResult, SampleTrace } from '../../src/types/index.js';
import { makeCase, makeRun } from '../scoring/_build.js';
import { sampleCaseResults } from '../scoring/_results.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'runspec-run-results-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const header = (caseIds: string[]): ResultsLogHeader => ({ type: 'run', version: 2, runId: 'r1', startedAt: 't0', finalFile: '/x.json', caseIds, options: {} });
const meta = { run_id: 'r1', started: 't0', provider: 'mock', base_url: 'https://user:pw@example.test/v1', case_order: ['a'] };
const iteration = { iteration: 0, timestamp: 't1', prompt: 'be brief' };

/** The document `rec` streams to `dir`/r.json for `caseIds` is, byte for byte, the one built in memory from `caseResults`. */
async function expectStreamedDocument(
  rec: RunRecorder,
  dir: string,
  caseIds: string[],
  caseResults: CaseResult[],
  it: typeof iteration | { iteration: number; timestamp: string } = iteration,
) {
  const facts = await rec.writeDocument(join(dir, 'r.json'), { meta, iteration: it, caseIds });
  expect(readFileSync(join(dir, 'r.json'), 'utf8')).toBe(resultsDocumentText(buildResultsDocument({ meta, iterations: [{ ...it, caseResults }] })));
  return facts;
}

describe('run results: log then streamed document', () => {
  it('streams byte for byte the document built in memory, in the selected order, whatever order cases finished in', async () => {
    const results = sampleCaseResults();
    const ids = results.map((r) => r.caseId);
    const dir = tmp();
    const rec = await openRunRecorder(join(dir, 'r.jsonl'), header(ids));
    for (const r of [...results].reverse()) rec.add(r);
    await rec.close();
    const facts = await expectStreamedDocument(rec, dir, ids, results);
    expect(facts).toEqual({
      cases: results.length,
      belowThreshold: results.filter((r) => !r.meetsThreshold).length,
      unscorableCases: 0,
      infraFailed: [{ caseId: 'provider-down', message: 'no answer in 60000 ms' }],
    });
  });

  it('lays the document out as JSON with one line per case entry and the case order on one line', () => {
    const results = sampleCaseResults();
    const doc = buildResultsDocument({
      meta: { ...meta, case_order: results.map((r) => r.caseId) },
      iterations: [
        { ...iteration, caseResults: results },
        { iteration: 1, timestamp: 't2', caseResults: results.slice(0, 1) },
      ],
    });
    const text = resultsDocumentText(doc);
    expect(JSON.parse(text)).toEqual(doc);
    const lines = text.split('\n');
    for (const r of results) {
      const line = lines.filter((l) => l.startsWith(`        ${JSON.stringify(r.caseId)}: {`));
      expect(line).toHaveLength(r === results[0] ? 2 : 1);
      expect(
        JSON.parse(
          line[0]!
            .trim()
            .replace(/,$/, '')
            .slice(JSON.stringify(r.caseId).length + 2),
        ),
      ).toEqual(doc.iterations[0]!.cases[r.caseId]);
    }
    expect(lines).toContain(`    "case_order": ${JSON.stringify(results.map((r) => r.caseId))}`);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('counts cases with an unscorable sample for --fail-on-unscorable', async () => {
    const [a, b] = sampleCaseResults();
    const first = a!.samples[0]!;
    if (first.status !== 'scored') throw new Error('fixture: expected a scored sample');
    const blind: CaseResult = { ...a!, samples: [{ ...first, verdict: { ...first.verdict, category: 'unscorable', pass: false } }, ...a!.samples.slice(1)] };
    const dir = tmp();
    const rec = await openRunRecorder(join(dir, 'r.jsonl'), header([blind.caseId, b!.caseId]));
    rec.add(blind);
    rec.add(b!);
    await rec.close();
    expect((await rec.writeDocument(join(dir, 'r.json'), { meta, iteration, caseIds: [blind.caseId, b!.caseId] })).unscorableCases).toBe(1);
  });

  it('writes an empty cases object when nothing finished', async () => {
    const dir = tmp();
    const rec = await openRunRecorder(join(dir, 'r.jsonl'), header([]));
    await rec.close();
    await expectStreamedDocument(rec, dir, ['never-ran'], [], { iteration: 0, timestamp: 't1' });
  });

  it('on resume indexes the cases already logged, keeps the last line of a case logged twice, and drops unselected ones', async () => {
    const [a, b, c] = sampleCaseResults();
    const dir = tmp();
    const log = join(dir, 'r.jsonl');
    const first = await openRunRecorder(log, header([a!.caseId, b!.caseId, c!.caseId]));
    first.add(a!);
    first.add({ ...b!, passRate: 0.123 });
    first.add(c!);
    await first.close();
    const again = await openRunRecorder(log, header([a!.caseId, b!.caseId]), { resume: true });
    expect([...again.prior]).toEqual([a!.caseId, b!.caseId, c!.caseId]);
    again.add(b!);
    await again.close();
    await expectStreamedDocument(again, dir, [a!.caseId, b!.caseId], [a!, b!]);
  });

  it('on resume indexes more than 1,024 logged cases when the header names fewer, and writes each one past 1,024 right', async () => {
    // The span index is sized for the header's cases (at least 1,024) and grows as the resumed log goes past that.
    const kinds = sampleCaseResults();
    const many: CaseResult[] = Array.from({ length: 1500 }, (_, i) => ({ ...kinds[i % kinds.length]!, caseId: `case-${i}`, passRate: (i % 7) / 7 }));
    const ids = many.map((r) => r.caseId);
    const dir = tmp();
    const log = join(dir, 'r.jsonl');
    const first = await openRunRecorder(log, header(ids));
    for (const r of many) first.add(r);
    await first.close();
    const again = await openRunRecorder(log, header(ids.slice(0, 10)), { resume: true });
    expect(again.prior.size).toBe(1500);
    // A case past 1,024 run again: its last line counts.
    const rerun: CaseResult = { ...many[1300]!, passRate: 0.5 };
    again.add(rerun);
    await again.close();
    await expectStreamedDocument(
      again,
      dir,
      ids,
      many.map((r) => (r.caseId === rerun.caseId ? rerun : r)),
    );
  });

  it('writes the same document whether it folds the cases as they are logged or parses them back from the log', async () => {
    // In order, pairs swapped, the first three never logged, the first logged last (past the fold's wait);
    // pass rates of a third add up differently in another order, and a NaN is null once in JSON.
    const base = sampleCaseResults();
    const scored = base[0]!.samples[0]!;
    if (scored.status !== 'scored') throw new Error('fixture: expected a scored sample');
    // Also an errored sample that kept a partial verdict, an unscorable one, an empty suite name.
    const partial: CaseResult = {
      ...base[0]!,
      samples: [{ status: 'errored', sample: 0, error: { code: 'PROVIDER', message: 'down' }, elapsedMs: 5, partial: scored.verdict, tokens: 17 }],
    };
    const blind: CaseResult = { ...base[0]!, suite: '', samples: [{ ...scored, verdict: { ...scored.verdict, category: 'unscorable', pass: false } }, scored] };
    const kinds = [...base, partial, blind];
    const many: CaseResult[] = [];
    for (let i = 0; i < 300; i++) {
      const r = kinds[i % kinds.length]!;
      many.push({ ...r, caseId: `${r.caseId}-${i}`, passRate: i === 7 ? Number.NaN : (i % 3) / 3 });
    }
    const swapped = many.map((_r, i) => many[i ^ 1]!);
    for (const order of [many, swapped, many.slice(3), [...many.slice(1), many[0]!]]) {
      const ids = many.map((r) => r.caseId);
      const dir = tmp();
      const log = join(dir, 'r.jsonl');
      const rec = await openRunRecorder(log, header(ids));
      for (const r of order) rec.add(r);
      await rec.close();
      const folded = await rec.writeDocument(join(dir, 'folded.json'), { meta, iteration, caseIds: ids });
      // A second document from the same recorder counts every case once too.
      const second = await rec.writeDocument(join(dir, 'second.json'), { meta, iteration, caseIds: ids });
      expect(readFileSync(join(dir, 'second.json'), 'utf8')).toBe(readFileSync(join(dir, 'folded.json'), 'utf8'));
      expect(second).toEqual(folded);
      const again = await openRunRecorder(log, header(ids), { resume: true });
      await again.close();
      const parsed = await again.writeDocument(join(dir, 'parsed.json'), { meta, iteration, caseIds: ids });
      expect(readFileSync(join(dir, 'folded.json'), 'utf8')).toBe(readFileSync(join(dir, 'parsed.json'), 'utf8'));
      expect(folded).toEqual(parsed);
    }
  });

  it('copies entries longer than its read window and entries across windows as logged', async () => {
    // The document reads the log through a 1 MiB window: a 1.5 MB entry, and 0.4 MB ones that straddle it.
    const base = sampleCaseResults()[0]!;
    const scored = base.samples[0]!;
    if (scored.status !== 'scored') throw new Error('fixture: expected a scored sample');
    const sized = (id: string, chars: number): CaseResult => {
      const calls = scored.verdict.calls.map((c) => ({ ...c, arguments: { ...c.arguments, pad: 'y'.repeat(chars) } }));
      return { ...base, caseId: id, samples: [{ ...scored, verdict: { ...scored.verdict, calls } }] };
    };
    const results = [
      sized('small-0', 10),
      sized('big', 1_500_000),
      sized('mid-1', 400_000),
      sized('mid-2', 400_000),
      sized('mid-3', 400_000),
      sized('small-1', 10),
    ];
    const ids = results.map((r) => r.caseId);
    const dir = tmp();
    const rec = await openRunRecorder(join(dir, 'r.jsonl'), header(ids));
    for (const r of [results[0]!, results[2]!, results[1]!, results[4]!, results[3]!, results[5]!]) rec.add(r);
    await rec.close();
    await expectStreamedDocument(rec, dir, ids, results);
  });

  it('stores a tool call argument once per sample, and reading the document back restores every place it appeared', async () => {
    // A 1 MB argument used to be written four times (tool_args, calls, observed args, replio trace).
    const big = 'x'.repeat(1_000_000);
    const c = makeCase({ id: 'big', runspec: { tool: ['write-file'] }, replio: { expected: ['write-file'] } });
    const run = makeRun({ calls: [{ name: 'write-file', arguments: { path: '/tmp/f', content: big } }], terminal: true });
    const verdict = scoreRun(c, run, {});
    expect(verdict.replio?.trace[0]?.arguments).toEqual({ path: '/tmp/f', content: big });
    expect(verdict.observed.args).toEqual({ path: '/tmp/f', content: big });
    const callId = verdict.calls[0]!.id;
    // The sample trace's tool step carries the same arguments: written once too.
    const trace: SampleTrace = {
      startTimeMs: 1,
      durationMs: 2,
      status: 'ok',
      steps: [
        { kind: 'llm', turn: 0, index: 0, offsetMs: 0, durationMs: 1, toolCalls: ['write-file'] },
        { kind: 'tool', turn: 0, name: 'write-file', callId, offsetMs: 1, durationMs: 0, executed: false, arguments: { path: '/tmp/f', content: big } },
      ],
    };
    const result: CaseResult = aggregateCase(c, [{ status: 'scored', sample: 0, verdict, elapsedMs: 1, tokens: 0, trace }], { threshold: 1 });
    const dir = tmp();
    const rec = await openRunRecorder(join(dir, 'r.jsonl'), header(['big']));
    rec.add(result);
    await rec.close();
    await rec.writeDocument(join(dir, 'r.json'), { meta, iteration, caseIds: ['big'] });
    expect(statSync(join(dir, 'r.jsonl')).size).toBeLessThan(1_200_000);
    expect(statSync(join(dir, 'r.json')).size).toBeLessThan(1_200_000);
    const back = caseResultsFromDocument(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')));
    expect(back).toEqual([result]);
  });
});
