// runspec-eval/vitest: the test-file API and the config-side plugin and reporter (index.ts re-exports them).
//
// Eval cases as vitest tests: `describeEvals('evals/fleet.toml', { provider: 'mock', script: 'mock.json' })`
// registers one test per case (its samples run inside it; the test passes when the case meets its threshold,
// and fails with the verdicts' reasons), the matchers `toCallTool`, `toCallToolsInOrder` and `toHaveVerdict`
// work on any eval result, Run or captured OTLP trace, `runspecEvals()` adds case files to vitest's watch
// triggers, and `RunspecReporter` writes the results document `runspec-eval report` and the console open.
// Runs go through the same app layer as the CLI: settings, providers, telemetry and results are the CLI's.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { stringify } from 'smol-toml';
import { configDefaults } from 'vitest/config';
import { afterAll, describe, expect, it } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';
import { casesOfPaths, evalCase, writeCaseResultsDocument, type EvalCaseOutcome } from '../app/eval-case.js';
import type { RunFlags } from '../app/run-options.js';
import type { CaseEntry } from '../report/results.js';
import type { VerdictCategory } from '../types/verdict.js';
import type { MatchMode } from '../types/case.js';
import { runspecMatchers } from './matchers.js';

/** How cases run: the `run` command's flags (provider, model, baseUrl, script, samples, threshold, toolset, ...). */
export interface EvalOptions extends RunFlags {
  /** The project directory (runspec.toml, .runspec/). @default process.cwd() */
  projectDir?: string;
  /** Each case's test timeout. @default 120000 */
  timeoutMs?: number;
  /** Environment of the run (API keys, OTEL_*). @default process.env */
  env?: Record<string, string | undefined>;
}

/** Cases written in the test file, in the runspec dialect (`[[eval]]` fields). */
export interface InlineSuite {
  /** The suite's name (the describe block and the results' suite). */
  name: string;
  eval: Array<Record<string, unknown>>;
}

interface RunspecTaskMeta {
  caseId: string;
  entry: CaseEntry;
}

declare module 'vitest' {
  interface TaskMeta {
    /** Set by describeEvals: the case's results-document entry, for RunspecReporter. */
    runspec?: RunspecTaskMeta;
  }
  interface Assertion<T> {
    toCallTool(name: string, args?: Record<string, unknown>): T;
    toCallToolsInOrder(
      expected: ReadonlyArray<string | { tool: string; args?: Record<string, unknown>; args_pattern?: Record<string, string> }>,
      options?: { mode?: MatchMode },
    ): T;
    toHaveVerdict(category: VerdictCategory): T;
  }
  interface AsymmetricMatchersContaining {
    toCallTool(name: string, args?: Record<string, unknown>): void;
    toHaveVerdict(category: VerdictCategory): void;
  }
}

expect.extend(runspecMatchers);

function contextOf(options: EvalOptions): { projectDir: string; cwd: string; env: Record<string, string | undefined> } {
  const cwd = process.cwd();
  return { projectDir: resolve(cwd, options.projectDir ?? '.'), cwd, env: options.env ?? process.env };
}

function flagsOf(options: EvalOptions): RunFlags {
  const { projectDir: _p, timeoutMs: _t, env: _e, ...flags } = options;
  return flags;
}

/** Inline cases are written once to a temporary TOML file and loaded like any fixture (same schema, same errors). */
function inlineFile(suite: InlineSuite): string {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-vitest-'));
  const file = join(dir, `${suite.name.replace(/[^\w.-]+/g, '_') || 'inline'}.toml`);
  writeFileSync(file, stringify({ eval: suite.eval }));
  return file;
}

/**
 * Run one case of a fixture file (as `run FILE --fixture ID` would) and return its result, for assertions
 * with the matchers: `expect(await runEval('evals/a.toml', 'restart-nginx')).toCallTool('restart-service')`.
 */
export function runEval(file: string, caseId: string, options: EvalOptions = {}): Promise<EvalCaseOutcome> {
  const ctx = contextOf(options);
  return evalCase(ctx, { file: resolve(ctx.cwd, file), caseId, flags: flagsOf(options) });
}

/** The reasons of a case's failing samples, one line each: the test's failure message. */
function failureText(outcome: EvalCaseOutcome): string {
  const r = outcome.result;
  const lines = r.samples.map((s) =>
    s.status === 'scored' ? `sample ${s.sample}: ${s.verdict.category}: ${s.verdict.reason}` : `sample ${s.sample}: errored: ${s.error.message}`,
  );
  const scored = r.samples.filter((s) => s.status === 'scored').length;
  const gate = r.gate ? r.gate.text : `threshold ${r.threshold}`;
  return [`${r.caseId}: pass rate ${Math.round(r.passRate * 100)}% of ${scored} judged samples, below ${gate}`, ...lines].join('\n');
}

/**
 * Register one vitest test per case: `source` is a fixture file, a directory of them (one describe block
 * per file), or inline cases. Each test runs the case's samples and passes when the case meets its threshold.
 */
export function describeEvals(source: string | InlineSuite, options: EvalOptions = {}): void {
  const ctx = contextOf(options);
  const path = typeof source === 'string' ? resolve(ctx.cwd, source) : inlineFile(source);
  const name = typeof source === 'string' ? source : source.name;
  const cases = casesOfPaths([path]);
  const byFile = new Map<string, typeof cases>();
  for (const c of cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const isDir = typeof source === 'string' && statSync(path).isDirectory();
  const register = (file: string, list: typeof cases): void => {
    for (const c of list) {
      it(c.id, { timeout: options.timeoutMs ?? 120_000 }, async ({ task }) => {
        const outcome = await evalCase(ctx, { file, caseId: c.id, flags: flagsOf(options) });
        task.meta.runspec = { caseId: c.id, entry: outcome.entry };
        if (!outcome.result.meetsThreshold) throw new Error(failureText(outcome));
      });
    }
  };
  describe(name, () => {
    // Inline cases were written to a temporary folder of their own: it goes when the block is done.
    if (typeof source !== 'string') afterAll(() => rmSync(dirname(path), { recursive: true, force: true }));
    if (!isDir) for (const [file, list] of byFile) register(file, list);
    else for (const [file, list] of byFile) describe(basename(file), () => register(file, list));
  });
}

/**
 * A Vite plugin for vitest: changing a case file reruns the tests in `--watch` (vitest watches the module
 * graph; case files are data, not modules, so they join its rerun triggers).
 * @default cases ['**\/*.eval.toml', '**\/evals/**\/*.{toml,json}', '**\/.runspec/eval/**']
 */
export function runspecEvals(opts: { cases?: string[] } = {}): { name: string; config(): Record<string, unknown> } {
  const globs = opts.cases ?? ['**/*.eval.toml', '**/evals/**/*.{toml,json}', '**/.runspec/eval/**'];
  return {
    name: 'runspec-eval',
    config() {
      return { test: { forceRerunTriggers: [...configDefaults.forceRerunTriggers, ...globs] } } as Record<string, unknown>;
    },
  };
}

/**
 * A vitest reporter that writes the results document of every case `describeEvals` ran (the CLI's format:
 * `runspec-eval report FILE`, `diff`, the console). Add it beside vitest's own reporters.
 * @example reporters: ['default', new RunspecReporter({ out: '.runspec/results/vitest.json' })]
 */
export class RunspecReporter implements Reporter {
  private readonly started = new Date().toISOString();
  constructor(private readonly options: { out?: string; label?: string } = {}) {}

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const entries: Array<{ caseId: string; entry: CaseEntry }> = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const meta = t.meta().runspec;
        if (meta) entries.push(meta);
      }
    }
    if (entries.length === 0) return;
    const out = resolve(this.options.out ?? join('.runspec', 'results', 'vitest.json'));
    writeCaseResultsDocument(out, entries, { label: this.options.label ?? 'vitest', started: this.started });
  }
}
