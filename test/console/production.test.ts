import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createResultsCollector } from '../../src/app/score-traces.js';
import { confinedPath, productionDocument } from '../../src/console/_production.js';
import { listReports, readReport } from '../../src/console/_reports.js';
import { writtenLine as written } from '../helpers/verdict-lines.js';

describe('console production input', () => {
  const project = mkdtempSync(join(tmpdir(), 'runspec-prod-'));
  const outside = mkdtempSync(join(tmpdir(), 'runspec-outside-'));
  writeFileSync(join(outside, 'secret.jsonl'), '{}\n');
  mkdirSync(join(project, 'traces'));
  writeFileSync(join(project, 'traces', 'a.jsonl'), '{}\n');
  symlinkSync(join(outside, 'secret.jsonl'), join(project, 'traces', 'link.jsonl'));

  symlinkSync(join(outside, 'missing.jsonl'), join(project, 'traces', 'dangling.jsonl'));

  it.each([
    { name: 'a parent path', path: '../x', status: 403 },
    { name: 'a parent path that exists', path: `../${basename(outside)}/secret.jsonl`, status: 403 },
    { name: 'an absolute path elsewhere', path: join(outside, 'secret.jsonl'), status: 403 },
    { name: 'a missing absolute path elsewhere', path: join(outside, 'none.jsonl'), status: 403 },
    { name: 'a symlink inside that points outside', path: 'traces/link.jsonl', status: 403 },
    { name: 'a symlink inside that points to a missing file outside', path: 'traces/dangling.jsonl', status: 403 },
    { name: 'a missing file', path: 'traces/none.jsonl', status: 404 },
  ])('refuses $name', async ({ path, status }) => {
    await expect(confinedPath(project, path)).rejects.toMatchObject({ status });
  });

  // Used to check existence first: a missing path outside was a 404 and an existing one a 403.
  it('gives the same answer for a missing and an existing path outside the project', async () => {
    const missing = await confinedPath(project, join(outside, 'none.jsonl')).catch((e: unknown) => e);
    const existing = await confinedPath(project, join(outside, 'secret.jsonl')).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 403 });
    expect(existing).toMatchObject({ status: 403 });
    const strip = (e: unknown, p: string): string => String((e as Error).message).replace(p, '<p>');
    expect(strip(missing, join(outside, 'none.jsonl'))).toBe(strip(existing, join(outside, 'secret.jsonl')));
  });

  it('accepts files and folders inside the project', async () => {
    expect(await confinedPath(project, 'traces/a.jsonl')).toMatch(/traces\/a\.jsonl$/);
    expect(await confinedPath(project, 'traces')).toMatch(/traces$/);
    expect(await confinedPath(project, join(realpathSync(project), 'traces', 'a.jsonl'))).toMatch(/traces\/a\.jsonl$/);
  });

  it('does not follow a symlink in .runspec/results out of the project, nor quote what it points at', async () => {
    const results = join(project, '.runspec', 'results');
    mkdirSync(results, { recursive: true });
    writeFileSync(join(outside, 'private.json'), 'TOP-SECRET-FIRST-BYTES');
    symlinkSync(join(outside, 'private.json'), join(results, 'leak.json'));
    const err = await readReport(project, 'leak.json').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 403 });
    expect(String((err as Error).message)).not.toContain('TOP-SECRET');
    expect(String((err as Error).message)).not.toContain(outside);
    expect((await listReports(project)).map((r) => r.id)).not.toContain('leak.json');
  });

  // serve --out writes each revision of a trace's verdict and then the final one again: one row, the final verdict.
  it('counts each trace once: the final revision, not every line serve wrote', () => {
    const base = {
      traceId: '3af7651916cd43dd8448eb211c80319c',
      rootSpanId: 'd7ad6b7169203331',
      sample: 0,
      mode: 'decision' as const,
      producers: ['runspec'],
      calls: [],
    };
    const { doc } = productionDocument(
      [
        { ...base, case: 'c1', category: 'pass' as const, pass: true, reason: 'root only', revision: 0, final: false },
        { ...base, case: 'c1', category: 'forbidden_tool' as const, pass: false, reason: 'children came', revision: 1, final: false, supersedes: true },
        { ...base, case: 'c1', category: 'forbidden_tool' as const, pass: false, reason: 'children came', revision: 1, final: true },
      ].map(written),
      'x',
    );
    const cases = Object.values(doc.iterations[0]!.cases);
    expect(cases).toHaveLength(1);
    expect(cases[0]!.runs).toHaveLength(1);
    expect(cases[0]!.runs[0]).toMatchObject({ verdict: { category: 'forbidden_tool' } });
  });

  it('makes one row per scored trace, unique even when a trace has a case and a rule verdict', () => {
    const base = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      rootSpanId: 'b7ad6b7169203331',
      sample: 0,
      mode: 'decision' as const,
      producers: ['runspec'],
      calls: [],
      revision: 0,
      final: true,
    };
    const { doc, unmatched } = productionDocument(
      [
        { ...base, case: 'c1', category: 'pass' as const, pass: true, reason: 'ok' },
        { ...base, case: 'c1', sample: 1, category: 'wrong_tool' as const, pass: false, reason: 'again' },
        { ...base, category: null, pass: null, reason: 'no case or rule' },
      ].map(written),
      'x',
    );
    expect(unmatched).toBe(1);
    const cases = doc.iterations[0]!.cases;
    expect(Object.keys(cases)).toEqual(['c1 · 0af7651916cd', 'c1 · 0af7651916cd #2']);
    expect(cases['c1 · 0af7651916cd #2']!.runs[0]).toMatchObject({
      verdict: { category: 'wrong_tool', trace_id: base.traceId, root_span_id: base.rootSpanId },
    });
  });

  it("builds its rows with the shared results collector: pass rates are aggregateCase's, unscorable is not a fail", () => {
    const base = {
      traceId: '1af7651916cd43dd8448eb211c80319c',
      rootSpanId: 'c7ad6b7169203331',
      sample: 0,
      mode: 'decision' as const,
      producers: ['runspec'],
      calls: [],
      revision: 0,
      final: true,
    };
    const lines = [
      { ...base, case: 'c1', category: 'pass' as const, pass: true, reason: 'ok' },
      { ...base, traceId: '2af7651916cd43dd8448eb211c80319c', rule: 'no-shell', category: 'unscorable' as const, pass: null, reason: 'hashed' },
    ].map(written);
    const { doc } = productionDocument(lines, 'x');
    const collector = createResultsCollector([], { rows: 'trace' });
    for (const l of lines) collector.addLine(l);
    const shared = collector.document(doc.meta, 1);
    expect(doc.iterations[0]!.cases).toEqual(shared.iterations[0]!.cases);
    const rule = doc.iterations[0]!.cases['rule:no-shell · 2af7651916cd']!;
    // Not judged: no judged sample counts, so the interval is 0..1 (the hand-written maths made it a 0/1 fail).
    expect(rule.pass_rate_high).toBe(1);
    expect(doc.iterations[0]!.cases['c1 · 1af7651916cd']!.pass_rate).toBe(1);
  });
});
