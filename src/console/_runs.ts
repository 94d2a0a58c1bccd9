// Runs started from the console: one at a time, through the same library run the CLI does (results file
// and log under .runspec/results, telemetry as configured). Progress is read back from the run's own
// results log, so "cases done, pass rate so far" are what the file says.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { logFileFor, readResultsLog } from '../report/results-file.js';
import { basename, join } from 'node:path';
import type { CaseResult } from '../types/verdict.js';
import type { ToolMode } from '../types/toolset.js';
import { isToolMode, TOOL_MODES } from '../core/vocabulary.js';
import { HttpProblem } from './_http.js';
import { resultsDir } from './_reports.js';

/** What the Run tab sends. */
export interface ConsoleRunRequest {
  suite: string;
  provider?: string;
  model?: string;
  samples?: number;
  validateArgs?: boolean;
  telemetry?: boolean;
  toolMode?: ToolMode;
  threshold?: number;
}

/** The run options handed to the library run (the `run` command's flags of the same names). */
export interface ConsoleRunFlags extends Omit<ConsoleRunRequest, 'suite'> {
  /** The results document; its log is the same name with `.jsonl`. */
  out: string;
}

/** The library run the console drives (the app layer's suite run). */
export type EvalRunner = (input: {
  targets: string[];
  flags: ConsoleRunFlags;
  signal: AbortSignal;
  onProgress: (doneSamples: number, totalSamples: number) => void;
}) => Promise<{ interrupted: boolean; exitCode: number; problems: string[] }>;

export interface RunStateJson {
  id: string;
  suite: string;
  state: 'running' | 'done' | 'cancelled' | 'failed';
  samplesDone: number;
  samplesTotal: number;
  casesDone: number;
  /** Passed / scored samples of the finished cases so far; null before the first. */
  passRate: number | null;
  /** The saved report (file name under .runspec/results) once the run finished. */
  reportId: string | null;
  exitCode: number | null;
  message: string | null;
}

interface RunRecord {
  json: RunStateJson;
  controller: AbortController;
  out: string;
}

function parseRequest(body: Record<string, unknown>): ConsoleRunRequest {
  const bad = (field: string, expected: string): never => {
    throw new HttpProblem(400, `${field}: expected ${expected} (got ${JSON.stringify(body[field])})`);
  };
  const str = (k: string, re: RegExp, expected: string): string | undefined => {
    const v = body[k];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string' || !re.test(v)) return bad(k, expected);
    return v;
  };
  const suite = str('suite', /^[^\0\n]{1,200}$/, 'a suite name');
  if (!suite) return bad('suite', 'a suite name');
  const req: ConsoleRunRequest = { suite };
  // A provider is a preset or a [providers.NAME] profile: `mock:FILE` would let the page pick a file.
  const provider = str('provider', /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a provider preset or [providers.NAME] profile name');
  if (provider) req.provider = provider;
  const model = str('model', /^[^\0\n]{1,200}$/, 'a model name');
  if (model) req.model = model;
  if (body.samples !== undefined && body.samples !== null && body.samples !== '') {
    const n = Number(body.samples);
    if (!Number.isInteger(n) || n < 1 || n > 100) bad('samples', 'an integer 1..100');
    req.samples = n;
  }
  if (body.threshold !== undefined && body.threshold !== null && body.threshold !== '') {
    const t = Number(body.threshold);
    if (!(t >= 0 && t <= 1)) bad('threshold', 'a number 0..1');
    req.threshold = t;
  }
  if (body.toolMode !== undefined && body.toolMode !== null && body.toolMode !== '') {
    if (!isToolMode(body.toolMode)) return bad('toolMode', TOOL_MODES.join(', '));
    req.toolMode = body.toolMode;
  }
  for (const k of ['validateArgs', 'telemetry'] as const) {
    if (body[k] === undefined) continue;
    if (typeof body[k] !== 'boolean') bad(k, 'true or false');
    req[k] = body[k] as boolean;
  }
  return req;
}

/**
 * Cases finished so far and their sample pass rate, from the run's results log (read with the reader
 * `--resume` uses, so a change of log format changes both).
 */
function progressFromLog(logFile: string): { cases: number; passed: number; scored: number } {
  if (!existsSync(logFile)) return { cases: 0, passed: 0, scored: 0 };
  let results: CaseResult[];
  try {
    results = [...readResultsLog(logFile).cases.values()];
  } catch {
    // A log caught between its header and the first record reads as nothing yet.
    return { cases: 0, passed: 0, scored: 0 };
  }
  let passed = 0;
  let scored = 0;
  for (const r of results) {
    for (const s of r.samples) {
      if (s.status !== 'scored') continue;
      scored++;
      if (s.verdict.pass) passed++;
    }
  }
  return { cases: results.length, passed, scored };
}

export interface RunManager {
  start(body: Record<string, unknown>): RunStateJson;
  get(id: string): RunStateJson;
  cancel(id: string): RunStateJson;
  /** Cancel whatever runs and wait for it (server shutdown). */
  close(): Promise<void>;
}

export function createRunManager(opts: { projectDir: string; runner: EvalRunner | undefined }): RunManager {
  const runs = new Map<string, RunRecord>();
  let active: Promise<void> | undefined;
  const refresh = (r: RunRecord): RunStateJson => {
    const p = progressFromLog(logFileFor(r.out));
    r.json.casesDone = p.cases;
    r.json.passRate = p.scored ? p.passed / p.scored : null;
    return { ...r.json };
  };
  const find = (id: string): RunRecord => {
    const r = runs.get(id);
    if (!r) throw new HttpProblem(404, `no run ${JSON.stringify(id)}`);
    return r;
  };
  return {
    start(body) {
      if (!opts.runner) throw new HttpProblem(501, 'this console cannot start runs');
      if ([...runs.values()].some((r) => r.json.state === 'running')) throw new HttpProblem(409, 'a run is in progress: wait for it or cancel it');
      const req = parseRequest(body);
      const id = `ui-${new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
      const out = join(resultsDir(opts.projectDir), `${id}.json`);
      const controller = new AbortController();
      const record: RunRecord = {
        json: {
          id,
          suite: req.suite,
          state: 'running',
          samplesDone: 0,
          samplesTotal: 0,
          casesDone: 0,
          passRate: null,
          reportId: null,
          exitCode: null,
          message: null,
        },
        controller,
        out,
      };
      runs.set(id, record);
      const flags: ConsoleRunFlags = { out };
      if (req.provider) flags.provider = req.provider;
      if (req.model) flags.model = req.model;
      if (req.samples !== undefined) flags.samples = req.samples;
      if (req.threshold !== undefined) flags.threshold = req.threshold;
      if (req.toolMode) flags.toolMode = req.toolMode;
      if (req.validateArgs !== undefined) flags.validateArgs = req.validateArgs;
      if (req.telemetry !== undefined) flags.telemetry = req.telemetry;
      active = opts
        .runner({
          targets: [req.suite],
          flags,
          signal: controller.signal,
          onProgress: (done, total) => {
            record.json.samplesDone = done;
            record.json.samplesTotal = total;
          },
        })
        .then(
          (r) => {
            record.json.exitCode = r.exitCode;
            record.json.state = r.interrupted ? 'cancelled' : 'done';
            record.json.message = r.problems.join('\n') || null;
            if (!r.interrupted && existsSync(out)) record.json.reportId = basename(out);
          },
          (err: unknown) => {
            record.json.state = 'failed';
            record.json.message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
          },
        );
      return refresh(record);
    },
    get(id) {
      return refresh(find(id));
    },
    cancel(id) {
      const r = find(id);
      if (r.json.state === 'running') r.controller.abort();
      return refresh(r);
    },
    async close() {
      for (const r of runs.values()) if (r.json.state === 'running') r.controller.abort();
      await active;
    },
  };
}
