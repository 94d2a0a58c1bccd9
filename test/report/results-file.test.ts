import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logFileFor, openResultsLog, readResultsLog, resultsPaths, type ResultsLogHeader } from '../../src/report/results-file.js';
import { writeFileAtomic } from '../../src/core/atomic-write.js';
import type { CaseResult } from '../../src/types/index.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'runspec-results-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const header = (finalFile: string): ResultsLogHeader => ({
  type: 'run',
  version: 1,
  runId: 'run-1',
  startedAt: '2026-01-01T00:00:00.000Z',
  finalFile,
  caseIds: ['a', 'b'],
  options: { provider: 'mock' },
});

function result(caseId: string, passRate: number): CaseResult {
  return {
    caseId,
    dialect: 'runspec',
    tags: [],
    samples: [],
    passRate,
    passRateLow: 0,
    passRateHigh: 1,
    passAtK: passRate,
    passHatK: passRate,
    passK: [],
    threshold: 1,
    meetsThreshold: passRate >= 1,
    errored: false,
  };
}

describe('results paths', () => {
  it('puts the log next to --out with .jsonl in place of .json', () => {
    expect(resultsPaths({ projectDir: '/p', runId: 'r', out: 'out/res.json', cwd: '/w' })).toEqual({
      finalFile: '/w/out/res.json',
      logFile: '/w/out/res.jsonl',
    });
    expect(logFileFor('/x/results')).toBe('/x/results.jsonl');
  });

  it('defaults to .runspec/results/<run-id> under the project', () => {
    expect(resultsPaths({ projectDir: '/p', runId: 'r1' })).toEqual({
      finalFile: '/p/.runspec/results/r1.json',
      logFile: '/p/.runspec/results/r1.jsonl',
    });
  });
});

describe('results log', () => {
  it('writes a header then one line per finished case, and reads them back', async () => {
    const file = join(tmp(), 'r.jsonl');
    const w = await openResultsLog(file, header('/f.json'));
    w.append({ type: 'case', caseId: 'a', result: result('a', 1) });
    await w.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const log = readResultsLog(file);
    expect(log.header.runId).toBe('run-1');
    expect([...log.cases.keys()]).toEqual(['a']);
    expect(log.cases.get('a')!.passRate).toBe(1);
    expect(log.truncatedTail).toBe(false);
  });

  it('drops a torn last line left by a crash, and appending after it starts a fresh line', async () => {
    const file = join(tmp(), 'r.jsonl');
    const w = await openResultsLog(file, header('/f.json'));
    w.append({ type: 'case', caseId: 'a', result: result('a', 1) });
    await w.close();
    appendFileSync(file, '{"type":"case","caseId":"b","res');
    const log = readResultsLog(file);
    expect(log.truncatedTail).toBe(true);
    expect([...log.cases.keys()]).toEqual(['a']);
    const w2 = await openResultsLog(file, header('/f.json'));
    w2.append({ type: 'case', caseId: 'b', result: result('b', 0) });
    await w2.close();
    const again = readResultsLog(file);
    expect([...again.cases.keys()]).toEqual(['a', 'b']);
    // Resuming does not write a second header.
    expect(readFileSync(file, 'utf8').match(/"type":"run"/g)).toHaveLength(1);
  });

  it('batches: appended cases reach the file within the window, not one write per case', async () => {
    const file = join(tmp(), 'r.jsonl');
    const w = await openResultsLog(file, header('/f.json'), { windowMs: 60_000, maxBatch: 3 });
    const spans = ['a', 'b'].map((id) => w.append({ type: 'case', caseId: id, result: result(id, 1) }));
    // Inside the window and below the batch size nothing is written yet: a crash now loses a and b.
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    spans.push(w.append({ type: 'case', caseId: 'c', result: result('c', 0) }));
    await w.flush();
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(4);
    // Each append says where its line sits, so a document can be streamed from the log.
    for (const [i, span] of spans.entries()) {
      expect(
        JSON.parse(
          Buffer.from(text)
            .subarray(span.offset, span.offset + span.length)
            .toString(),
        ).caseId,
      ).toBe(['a', 'b', 'c'][i]);
    }
    await w.close();
  });

  it('writes each line and its span byte for byte, whatever the characters and the batch size', async () => {
    const file = join(tmp(), 'r.jsonl');
    const w = await openResultsLog(file, header('/f.json'), { windowMs: 60_000, maxBatch: 4 });
    // One-byte, two-byte, three-byte and four-byte UTF-8, and an escaped lone surrogate; 10 lines make
    // two full batches and a partial one written by close.
    const ids = ['a', 'é-case', '日本語', 'emoji-🙂', 'lone-\ud800', 'x'.repeat(5000), 'b', 'c', 'd', 'ü'];
    const records = ids.map((id, i) => ({ type: 'case' as const, caseId: id, result: result(id, i % 2) }));
    const spans = records.map((r) => w.append(r));
    await w.close();
    const bytes = readFileSync(file);
    const lines = bytes.toString('utf8').split('\n');
    expect(lines.slice(1)).toEqual([...records.map((r) => JSON.stringify(r)), '']);
    for (const [i, span] of spans.entries()) {
      expect(bytes.subarray(span.offset, span.offset + span.length).toString('utf8')).toBe(JSON.stringify(records[i]));
      expect(bytes[span.offset + span.length]).toBe(0x0a);
    }
  });

  it('never writes a batch whose encoded bytes differ from the bytes counted (no uninitialised bytes reach the log)', async () => {
    const file = join(tmp(), 'r.jsonl');
    const w = await openResultsLog(file, header('/f.json'), { windowMs: 60_000 });
    const before = readFileSync(file);
    // A miscount (one byte too many) leaves the last byte of the allocUnsafe batch unwritten.
    const real = Buffer.byteLength.bind(Buffer);
    const spy = vi.spyOn(Buffer, 'byteLength').mockImplementation((s, enc) => real(s, enc) + 1);
    try {
      w.append({ type: 'case', caseId: 'a', result: result('a', 1) });
    } finally {
      spy.mockRestore();
    }
    await expect(w.close()).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('not written') as unknown });
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('writes a pending batch when the window ends, without close', async () => {
    const file = join(tmp(), 'r.jsonl');
    const w = await openResultsLog(file, header('/f.json'), { windowMs: 5 });
    w.append({ type: 'case', caseId: 'a', result: result('a', 1) });
    // Bounded wait: the batch is due 5 ms after the append.
    for (let i = 0; i < 200 && readFileSync(file, 'utf8').split('\n').filter(Boolean).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
    await w.close();
  });

  it('rejects a corrupt line in the middle with its line number', () => {
    const file = join(tmp(), 'r.jsonl');
    writeFileSync(file, JSON.stringify(header('/f.json')) + '\nnot json\n' + JSON.stringify({ type: 'case', caseId: 'a', result: result('a', 1) }) + '\n');
    expect(() => readResultsLog(file)).toThrow(/r\.jsonl:2: expected a JSON record/);
  });

  it('rejects a file that does not start with a run header', () => {
    const file = join(tmp(), 'r.jsonl');
    writeFileSync(file, JSON.stringify({ type: 'case', caseId: 'a', result: result('a', 1) }) + '\n');
    expect(() => readResultsLog(file)).toThrow(/:1: expected a run header/);
  });

  it('names the missing file', () => {
    expect(() => readResultsLog('/nonexistent/x.jsonl')).toThrow(/x\.jsonl: results log not found/);
  });
});

describe('atomic write', () => {
  it('replaces the file in one step and leaves no temp file behind', () => {
    const d = tmp();
    const file = join(d, 'sub', 'final.json');
    writeFileAtomic(file, '{"v":1}');
    writeFileAtomic(file, '{"v":2}');
    expect(readFileSync(file, 'utf8')).toBe('{"v":2}');
    expect(readdirSync(join(d, 'sub'))).toEqual(['final.json']);
  });
});
