// One case at a time, for test runners (`runspec-eval/vitest`): the same run as `run` (case selection,
// toolsets, provider, samples, telemetry, results file) restricted to one case id, returning its result.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { RunspecError } from '../errors.js';
import type { CaseResult } from '../types/verdict.js';
import { buildResultsDocument, caseResultOf, type CaseEntry } from '../report/results.js';
import { writeResultsDocument } from '../report/results-docs.js';
import { ensureOutputDir } from '../report/out-path.js';
import { loadCasesFromPaths } from '../fixtures/discover.js';
import { VERSION } from '../core/version.js';
import type { AppContext } from './context.js';
import type { RunFlags } from './run-options.js';
import { runEvalSuite } from './run-suite.js';

export interface EvalCaseOutcome {
  result: CaseResult;
  /** Its results-document entry (what a results file holds for the case). */
  entry: CaseEntry;
  /** The run's status lines and warnings (provider retries, telemetry), in order. */
  log: string[];
}

/**
 * Run one case of `file` (a fixture file) as `run FILE --fixture ID` would, and return its result. The
 * results file goes to a temporary path and is removed: a test runner's reporter writes the document.
 * @throws RunspecError bad input (exit-2 class), or an infrastructure error when the run could not finish.
 */
export async function evalCase(
  ctx: Omit<AppContext, 'err' | 'warn'>,
  opts: { file: string; caseId: string; flags?: RunFlags; signal?: AbortSignal },
): Promise<EvalCaseOutcome> {
  const log: string[] = [];
  const out = join(tmpdir(), `runspec-eval-case-${randomBytes(6).toString('hex')}.json`);
  try {
    const outcome = await runEvalSuite(
      { ...ctx, err: (l) => log.push(l), warn: (l) => log.push(`warning: ${l}`) },
      { targets: [opts.file], flags: { ...opts.flags, fixture: [opts.caseId], out }, suiteLabel: opts.file, ...(opts.signal ? { signal: opts.signal } : {}) },
    );
    if (outcome.noCases) throw new RunspecError('USAGE', `${opts.file}: no case ${JSON.stringify(opts.caseId)}`, { hint: 'check the case id and the file' });
    const run = outcome.runs[0]?.result;
    const result = run?.results.find((r) => r.caseId === opts.caseId);
    const entry = run?.doc.iterations[0]?.cases[opts.caseId];
    if (!run || !result || !entry) {
      throw new RunspecError('CANCELLED', `${opts.file}: case ${JSON.stringify(opts.caseId)} did not finish${run?.interrupted ? ' (interrupted)' : ''}`, {
        hint: log.slice(-3).join('; ') || 'rerun with the CLI to see why',
      });
    }
    return { result, entry, log };
  } finally {
    rmSync(out, { force: true });
    rmSync(out.replace(/\.json$/, '.jsonl'), { force: true });
  }
}

/**
 * Write the results document of case results gathered one by one (a test runner's reporter), so
 * `runspec-eval report` and the console open it like a run's.
 */
export function writeCaseResultsDocument(
  file: string,
  entries: ReadonlyArray<{ caseId: string; entry: CaseEntry }>,
  meta: { label: string; started: string },
): void {
  const results = entries.map((e) => caseResultOf(e.caseId, e.entry));
  const doc = buildResultsDocument({
    meta: { started: meta.started, finished: new Date().toISOString(), tool: 'runspec-eval', version: VERSION, test_suite: meta.label },
    iterations: [{ iteration: 0, timestamp: meta.started, caseResults: results }],
  });
  ensureOutputDir(file, 'results file');
  writeResultsDocument(file, doc);
}

/** The cases of fixture files or directories (as `run FILE` loads them), for a test runner to list. */
export function casesOfPaths(paths: string[]): Array<{ file: string; id: string; description?: string }> {
  return loadCasesFromPaths(paths).flatMap((s) =>
    s.cases.map((c) => ({ file: c.source.file, id: c.id, ...(c.description ? { description: c.description } : {}) })),
  );
}
