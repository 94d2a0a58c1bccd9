// Saved results under .runspec/results: listed newest first, opened by file name only (never a path
// from the page), rendered with the report view.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseResultsDocument, type ResultsDocument } from '../report/results.js';
import { HttpProblem } from './_http.js';
import { confineToProject } from './_production.js';

export interface ReportSummaryJson {
  id: string;
  model: string | null;
  provider: string | null;
  suite: string | null;
  passRate: number | null;
  cases: number;
  date: string;
}

const REPORT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json$/;

export function resultsDir(projectDir: string): string {
  return join(projectDir, '.runspec', 'results');
}

/** Read a saved report by its file name, confined to the results directory. */
export async function readReport(projectDir: string, id: string): Promise<ResultsDocument> {
  if (!REPORT_ID.test(id) || id.includes('..')) throw new HttpProblem(400, 'report id: expected the file name of a saved result (name.json)');
  // A symlink in the results directory is followed only while it stays inside the project.
  const file = await confineToProject(projectDir, join('.runspec', 'results', id));
  if (!existsSync(file)) throw new HttpProblem(404, `no saved result ${id}`);
  try {
    return parseResultsDocument(readFileSync(file, 'utf8'), id);
  } catch (err) {
    throw new HttpProblem(422, err instanceof Error ? err.message : String(err));
  }
}

export async function listReports(projectDir: string): Promise<ReportSummaryJson[]> {
  const dir = resultsDir(projectDir);
  if (!existsSync(dir)) return [];
  const out: Array<ReportSummaryJson & { sortKey: number }> = [];
  for (const name of readdirSync(dir)) {
    if (!REPORT_ID.test(name)) continue;
    let doc: ResultsDocument;
    try {
      const file = await confineToProject(projectDir, join('.runspec', 'results', name));
      doc = parseResultsDocument(readFileSync(file, 'utf8'), name);
    } catch {
      continue;
    }
    const agg = doc.iterations[doc.iterations.length - 1]?.aggregate;
    const started = Date.parse(doc.meta.started);
    out.push({
      id: name,
      model: doc.meta.model ?? null,
      provider: doc.meta.provider ?? null,
      suite: doc.meta.test_suite ?? null,
      passRate: agg && agg.scored_runs > 0 ? agg.passed_runs / agg.scored_runs : null,
      cases: agg?.total_cases ?? 0,
      date: doc.meta.finished ?? doc.meta.started,
      sortKey: Number.isFinite(started) ? started : statSync(join(dir, name)).mtimeMs,
    });
  }
  return out
    .sort((a, b) => b.sortKey - a.sortKey || (a.id < b.id ? 1 : -1))
    .map((r) => ({ id: r.id, model: r.model, provider: r.provider, suite: r.suite, passRate: r.passRate, cases: r.cases, date: r.date }));
}
