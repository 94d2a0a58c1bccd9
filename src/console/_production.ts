// Production verdicts in the report view: a `serve --out` (or `score --output jsonl`) verdict file is read
// as it grows; trace files are scored with the offline scorer. Each scored trace becomes one row.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { PathRefusedError, resolveInside } from '../core/confine-path.js';
import { isRecord } from '../core/is-record.js';
import { createResultsCollector } from '../app/score-traces.js';
import { runEntrySchema, type ResultsDocument, type RunEntry } from '../report/results.js';
import { HttpProblem } from './_http.js';

/** Most verdict lines the console reads from one file (the newest are kept). */
export const MAX_PRODUCTION_LINES = 5000;

/**
 * Resolve a path the page sent, refusing anything outside the project directory with the same 403 whether
 * or not it exists (containment is checked before existence, so the answer tells nothing about files
 * outside); a missing path inside is a 404.
 */
export async function confinedPath(projectDir: string, p: string): Promise<string> {
  if (typeof p !== 'string' || p.trim() === '' || p.includes('\0')) throw new HttpProblem(400, 'path: expected a file path inside the project');
  const abs = await confineToProject(projectDir, p);
  if (!existsSync(abs)) throw new HttpProblem(404, `${p}: not found`);
  return abs;
}

/** `p` resolved inside the project (core/confine-path.ts), or a 403 that names only `p`. */
export async function confineToProject(projectDir: string, p: string): Promise<string> {
  try {
    return await resolveInside(realpathSync(projectDir), p, { allowAbsolute: true, rootName: 'project directory' });
  } catch (err) {
    if (err instanceof PathRefusedError) throw new HttpProblem(403, `${p}: outside the project directory`);
    throw err;
  }
}

/** A verdict line is a run entry of a scored trace (report/verdict-line.ts), which names its trace. */
function isVerdictLine(v: unknown): v is RunEntry {
  return isRecord(v) && typeof v.trace_id === 'string' && runEntrySchema.safeParse(v).success;
}

/** Verdict lines of a JSON-lines file, or undefined when the file is not one (trace files are). */
export function readVerdictFile(file: string): RunEntry[] | undefined {
  if (statSync(file).isDirectory()) return undefined;
  const text = readFileSync(file, 'utf8');
  const lines: RunEntry[] = [];
  let first = true;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      // A line being written right now (serve appends as traces arrive) is picked up next time.
      continue;
    }
    if (first && !isVerdictLine(v)) return undefined;
    first = false;
    if (isVerdictLine(v)) lines.push(v);
  }
  return first ? undefined : lines.slice(-MAX_PRODUCTION_LINES);
}

/**
 * One line per trace and case (or rule): `serve --out` writes every revision of a trace's verdict and then
 * the final one again; only the last line of each counts (the final one when it was written).
 */
function lastRevisions(lines: readonly RunEntry[]): RunEntry[] {
  const last = new Map<string, RunEntry>();
  for (const l of lines) {
    const key = `${l.trace_id}\u0000${l.case ?? ''}\u0000${l.rule ?? ''}\u0000${l.sample}`;
    const seen = last.get(key);
    if (!seen || !seen.final || l.final) {
      last.delete(key);
      last.set(key, l);
    }
  }
  return [...last.values()];
}

/**
 * A results document of production verdicts: one row per scored trace (`case · trace id`), built by the
 * shared results collector (app/score-traces.ts, the model `run`, `score --results` and `report` use), so
 * the same report view shows them; each sample keeps its trace and span ids for the trace link.
 */
export function productionDocument(lines: readonly RunEntry[], label: string): { doc: ResultsDocument; unmatched: number } {
  const collector = createResultsCollector([], { rows: 'trace' });
  let unmatched = 0;
  for (const l of lastRevisions(lines)) if (!collector.addLine(l)) unmatched++;
  const now = new Date().toISOString();
  return { doc: collector.document({ started: now, tool: 'runspec-eval', label: 'production', test_suite: label }, 1), unmatched };
}
