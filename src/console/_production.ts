// Production verdicts in the report view: a `serve --out` (or `score --output jsonl`) verdict file is read
// as it grows; trace files are scored with the offline scorer. Each scored trace becomes one row.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { buildResultsDocument, type ResultsDocument } from '../report/results.js';
import { wilsonInterval } from '../scoring/samples.js';
import type { TraceVerdictLine } from '../traces/score-traces.js';
import type { CaseResult, SampleTrace, SampleTraceStep, Verdict, VerdictCategory } from '../types/verdict.js';
import { VERDICT_CATEGORIES } from '../types/verdict.js';
import { HttpProblem } from './_http.js';

/** Most verdict lines the console reads from one file (the newest are kept). */
export const MAX_PRODUCTION_LINES = 5000;

/** Resolve a path the page sent, refusing anything outside the project directory. */
export function confinedPath(projectDir: string, p: string): string {
  if (typeof p !== 'string' || p.trim() === '' || p.includes('\0')) throw new HttpProblem(400, 'path: expected a file path inside the project');
  const root = realpathSync(projectDir);
  const abs = resolve(root, p);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw new HttpProblem(404, `${p}: not found`);
  }
  const rel = relative(root, real);
  if (rel.startsWith('..') || isAbsolute(rel) || (rel !== '' && rel.split(sep)[0] === '..')) throw new HttpProblem(403, `${p}: outside the project directory`);
  return real;
}

function isVerdictLine(v: unknown): v is TraceVerdictLine {
  const o = v as Record<string, unknown> | null;
  return !!o && typeof o === 'object' && typeof o.traceId === 'string' && 'category' in o && Array.isArray(o.calls);
}

/** Verdict lines of a JSON-lines file, or undefined when the file is not one (trace files are). */
export function readVerdictFile(file: string): TraceVerdictLine[] | undefined {
  if (statSync(file).isDirectory()) return undefined;
  const text = readFileSync(file, 'utf8');
  const lines: TraceVerdictLine[] = [];
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

function traceOf(line: TraceVerdictLine): SampleTrace {
  const steps: SampleTraceStep[] = line.calls.map((c, i) => {
    const step: SampleTraceStep = { kind: 'tool', turn: 0, name: c.name, callId: c.id ?? `call_${i}`, offsetMs: 0, durationMs: 0, executed: c.executed, arguments: c.arguments };
    if (c.isError) step.isError = true;
    return step;
  });
  return { startTimeMs: 0, durationMs: 0, status: 'ok', steps };
}

/**
 * A results document of production verdicts: one row per scored trace (`case · trace id`), so the same
 * report view shows them; each sample keeps its trace and span ids for the trace link.
 */
export function productionDocument(lines: readonly TraceVerdictLine[], label: string): { doc: ResultsDocument; unmatched: number } {
  const results: CaseResult[] = [];
  const ids: Array<{ traceId: string; spanId: string }> = [];
  let unmatched = 0;
  const seen = new Set<string>();
  for (const l of lines) {
    if (l.category === null || !(VERDICT_CATEGORIES as readonly string[]).includes(l.category)) {
      unmatched++;
      continue;
    }
    const pass = l.pass === true;
    const verdict: Verdict = {
      caseId: l.case ?? `rule:${l.rule ?? '?'}`,
      sample: l.sample,
      dialect: l.rule !== undefined ? 'rule' : 'runspec',
      pass,
      category: l.category as VerdictCategory,
      reason: l.reason,
      expected: {},
      observed: l.calls[0] ? { tool: l.calls[0].name, args: l.calls[0].arguments } : {},
      jsonDump: l.category === 'json_dump',
      status: 'ok',
      calls: l.calls.map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.name, arguments: c.arguments })),
    };
    const { low, high } = wilsonInterval(pass ? 1 : 0, 1);
    let caseId = `${l.case ?? (l.rule !== undefined ? `rule:${l.rule}` : 'trace')} · ${l.traceId.slice(0, 12)}`;
    for (let n = 2; seen.has(caseId); n++) caseId = `${caseId.replace(/ #\d+$/, '')} #${n}`;
    seen.add(caseId);
    const result: CaseResult = {
      caseId,
      dialect: 'runspec',
      tags: [l.rule !== undefined ? 'rule' : 'case', l.mode, ...l.producers],
      samples: [{ status: 'scored', sample: 0, verdict, elapsedMs: 0, tokens: 0, trace: traceOf(l) }],
      passRate: pass ? 1 : 0,
      passRateLow: low,
      passRateHigh: high,
      passAtK: pass ? 1 : 0,
      passHatK: pass ? 1 : 0,
      passK: [],
      threshold: 1,
      meetsThreshold: pass,
      errored: false,
    };
    if (l.suite !== undefined) result.suite = l.suite;
    results.push(result);
    ids.push({ traceId: l.traceId, spanId: l.rootSpanId });
  }
  const now = new Date().toISOString();
  const doc = buildResultsDocument({
    meta: { started: now, tool: 'runspec-eval', label: 'production', test_suite: label },
    iterations: [{ iteration: 0, timestamp: now, caseResults: results }],
  });
  const cases = Object.values(doc.iterations[0]!.cases);
  cases.forEach((entry, i) => {
    const run = entry.runs[0];
    if (run && ids[i]) Object.assign(run, { trace_id: ids[i]!.traceId, span_id: ids[i]!.spanId });
  });
  return { doc, unmatched };
}
