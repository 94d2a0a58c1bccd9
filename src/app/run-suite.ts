// Running a suite end to end, for every front end: case selection, toolsets, providers, the suite run
// with its results log (and --resume), telemetry, interruption, and the final document. `run`, `compare`,
// `record`, `replay`, `schedule run` and `demo` are options of `runEvalSuite`; nothing here prints or exits.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { readEnv, type Env } from '../config/env.js';
import { loadConfigFile, type ConfigFile } from '../config/file.js';
import { resolveRunSettings, toolsetSetting, toolsetSpecOf, type RunSettings, type SettingFlags } from '../config/settings.js';
import { UsageError, worstExitCode, type ErrorCode } from '../errors.js';
import type { Case } from '../types/case.js';
import type { CaseResult } from '../types/verdict.js';
import type { ToolMode, Toolset } from '../types/toolset.js';
import { defaultRunCases, discoverFixtures, loadCasesFromPathsYielding } from '../fixtures/discover.js';
import { selectCases } from '../fixtures/select.js';
import { parseGate } from '../fixtures/gate.js';
import { loadToolset } from '../toolset/load.js';
import { parseToolsetText } from '../toolset/file.js';
import { resolveProvider } from './provider.js';
import { resolveProviderSpec, type ResolveProviderOptions } from '../config/providers.js';
import type { Provider } from '../providers/types.js';
import { runSuite, sampleCount, type SuiteRunResult } from '../engine/suite-runner.js';
import type { TurnEvent } from '../engine/run-case.js';
import { formatTurnEvent } from '../engine/turn-log.js';
import { readResultsLog, resultsPaths, type ResultsLogHeader } from '../report/results-file.js';
import { openRunRecorder, type RunFacts } from '../report/run-results.js';
import type { ResultsDocument } from '../report/results-schema.js';
import { caseResultsFromDocument } from '../report/results-decode.js';
import { resolveTelemetryConfig, type TelemetryConfig } from '../config/telemetry.js';
import { deferTelemetry } from '../telemetry/deferred.js';
import { inShard, parseShard } from '../core/shard.js';
import { createEventLoopTurns } from '../core/event-loop-turns.js';
import { VERSION } from '../core/version.js';
import type { AppContext } from './context.js';
import { normaliseForLog, suiteLabelOf, type RunFlags } from './run-options.js';
import { redactUrl } from '../core/redact.js';
import { collapseRetries } from '../core/http-client.js';
import { createReachabilityWatch, type ReachabilityWatch } from '../core/reachability.js';
import { createRecordingProvider, loadRecording, type RecordingProvider } from '../providers/recording.js';
import type { Comparison } from '../report/compare.js';
import { COMPARISON_FORMATS } from '../report/comparison.js';
import { chooseCommandSandbox, type SandboxChoice } from '../engine/sandbox/select.js';
import { sweepStaleWorktrees } from '../engine/worktree-sweep.js';
import { ensureOutputDir } from '../report/out-path.js';
import { safeText } from '../core/safe-text.js';
import { caseInputOf } from '../core/case-input.js';
import type { AgentTargetConfig, TargetConfig, TargetKind } from '../config/targets.js';
import { agentTelemetrySink, isAgentTarget, openAgentTarget, targetConfigOf, type OpenedAgentTarget } from './agent-target.js';
import { CASE_DIGESTS_KEY, RESOLVED_SETTINGS_KEY, caseDigestsYielding, checkResumeHeader, moveAsideOldLog, retryOnResume } from '../report/resume-check.js';

export interface LoadedProject {
  env: Env;
  config: ConfigFile;
}

export function loadProject(ctx: AppContext): LoadedProject {
  const env = readEnv(ctx.env);
  const config = loadConfigFile(ctx.projectDir);
  for (const w of env.warnings) ctx.warn(w);
  env.warnings.length = 0;
  return { env, config };
}

/** Resolve positional targets (suite names or fixture files) and selection flags to the cases to run. */
export async function selectRunCases(
  ctx: AppContext,
  project: LoadedProject,
  targets: string[],
  flags: Pick<RunFlags, 'fixture' | 'tag' | 'shard' | 'bundled'>,
): Promise<{ cases: Case[]; allIds: string[] }> {
  const files = targets.filter((t) => looksLikePath(t) || existsSync(resolve(ctx.cwd, t)));
  const suiteNames = targets.filter((t) => !files.includes(t));
  let cases: Case[] = [];
  if (files.length > 0) {
    // Appended one by one: a spread of 100,000+ cases into push() overflows the call stack.
    // Loaded giving the event loop a turn every few milliseconds: 100,000 cases take seconds.
    for (const s of await loadCasesFromPathsYielding(
      files.map((f) => resolve(ctx.cwd, f)),
      { onWarning: (w) => ctx.warn(w) },
    ))
      for (const c of s.cases) cases.push(c);
  }
  if (suiteNames.length > 0 || files.length === 0) {
    // discoverFixtures reads [fixtures] plugins and [sync] dir of runspec.toml itself.
    const discovered = await discoverFixtures({ projectDir: ctx.projectDir, env: project.env.raw, onWarning: (w) => ctx.warn(w) });
    // Named suites come from every source; with no target at all, the project's own cases run when it has
    // any, the bundled demo cases when it has none (or with --bundled).
    const pool = suiteNames.length > 0 ? discovered.cases : defaultRunCases(discovered.cases, { bundled: flags.bundled === true });
    for (const c of selectCases(pool, { suites: suiteNames.length > 0 ? suiteNames : undefined })) cases.push(c);
  }
  cases = selectCases(cases, { ids: flags.fixture, tags: flags.tag });
  const allIds = cases.map((c) => c.id);
  if (flags.shard) {
    const shard = parseShard(flags.shard);
    cases = cases.filter((c) => inShard(c.id, shard));
  }
  return { cases, allIds };
}

function looksLikePath(t: string): boolean {
  return /[\\/]/.test(t) || /\.(toml|json)$/i.test(t);
}

/** Every run setting of these flags with its source (config/settings.ts). */
export function runSettings(project: LoadedProject, flags: RunFlags): RunSettings {
  return resolveRunSettings({ flags: settingFlags(flags), env: project.env, file: project.config });
}

/** The resolver's view of the run flags; `--retries` is the old spelling of `--attempts`. */
function settingFlags(flags: RunFlags): SettingFlags {
  const out: SettingFlags = {};
  if (flags.provider !== undefined) out.provider = flags.provider;
  if (flags.toolMode !== undefined) out.toolMode = flags.toolMode;
  if (flags.concurrency !== undefined) out.concurrency = flags.concurrency;
  if (flags.maxRequests !== undefined) out.maxRequests = flags.maxRequests;
  if (flags.stopAfterErrors !== undefined) out.stopAfterErrors = flags.stopAfterErrors;
  if (flags.diskBudgetMode !== undefined) out.diskBudgetMode = flags.diskBudgetMode;
  if (flags.toolset !== undefined) out.toolset = flags.toolset;
  const attempts = flags.attempts ?? flags.retries;
  if (attempts !== undefined) out.attempts = attempts;
  if (flags.unsafeHostCommands) out.unsafeHostCommands = true;
  return out;
}

/** The command sandbox of a run as chooseCommandSandbox takes it: the resolved setting, and the bwrap to use. */
export function sandboxChoice(project: LoadedProject, flags: RunFlags): SandboxChoice {
  const settings = runSettings(project, flags);
  const sandbox = settings.sandbox;
  const bwrap = project.env.get('RUNSPEC_BWRAP');
  const searchPath = project.env.get('PATH');
  return {
    ...(sandbox.source === 'flag' ? { unsafeHostCommands: true } : {}),
    configured: sandbox.value,
    ...(bwrap !== undefined ? { bwrap } : {}),
    ...(searchPath !== undefined ? { searchPath } : {}),
    maxDiskBytes: (flags.diskBudgetMib ?? project.config.trajectory?.disk_budget_mib ?? 1024) * 1024 ** 2,
    diskBudgetMode: settings.diskBudgetMode.value,
  };
}

/** A loader that loads each toolset spec once. A toolset that does not load is bad input (exit 2). */
export function toolsetLoader(ctx: Pick<AppContext, 'projectDir'>, env: Env): (spec: string) => Promise<Toolset> {
  const bySpec = new Map<string, Toolset>();
  return async (spec) => {
    let ts = bySpec.get(spec);
    if (!ts) {
      ts = await loadToolset(spec, { projectDir: ctx.projectDir, env: env.raw });
      bySpec.set(spec, ts);
    }
    return ts;
  };
}

/**
 * Each case's toolset by case id, loading each distinct toolset once (through `load`, which a caller
 * may share to load more specs from the same cache). A toolset that does not load is bad input (exit 2).
 */
export async function loadToolsets(
  ctx: Pick<AppContext, 'projectDir'>,
  project: LoadedProject,
  cases: Case[],
  flag: string | undefined,
  load: (spec: string) => Promise<Toolset> = toolsetLoader(ctx, project.env),
): Promise<Map<string, Toolset>> {
  const setting = toolsetSetting(flag, project.env, project.config);
  const byCase = new Map<string, Toolset>();
  // Asked of `load` once per spec (it loads each spec once anyway): no await per case of a large suite.
  const bySpec = new Map<string, Toolset>();
  const turns = createEventLoopTurns();
  for (const c of cases) {
    if (turns.due()) await turns.take();
    const own = ownToolsetOf(c, flag, project.env);
    if (own !== undefined) {
      byCase.set(c.id, own);
      continue;
    }
    const spec = toolsetSpecOf(setting, c);
    let ts = bySpec.get(spec);
    if (ts === undefined) {
      ts = await load(spec);
      bySpec.set(spec, ts);
    }
    byCase.set(c.id, ts);
  }
  return byCase;
}

/**
 * The toolset of a case that carries its own tools (a suite written by `import bfcl`), unless
 * --toolset or RUNSPEC_TOOLSET names one for every case; undefined otherwise.
 */
export function ownToolsetOf(c: Case, flag: string | undefined, env: Env): Toolset | undefined {
  if (!c.tools || flag !== undefined || env.get('RUNSPEC_TOOLSET') !== undefined) return undefined;
  return parseToolsetText(JSON.stringify(c.tools), `${c.source.file}: case ${c.id}: tools`, 'json');
}

/** The provider name: flag > RUNSPEC_PROVIDER > [llm] provider > openai. */
export function providerName(flags: RunFlags, project: LoadedProject): string {
  return runSettings(project, flags).provider.value;
}

const warnedRetries = new WeakSet<RunFlags>();

/** Build the provider of a run: a preset, a [providers.NAME] profile, or mock/replay with `--script`. */
export function buildProvider(
  ctx: Pick<AppContext, 'cwd' | 'projectDir' | 'warn'> & Partial<Pick<AppContext, 'err'>>,
  project: LoadedProject,
  name: string,
  flags: RunFlags,
): Provider {
  if (flags.retries !== undefined && flags.attempts === undefined && !warnedRetries.has(flags)) {
    warnedRetries.add(flags);
    ctx.warn('--retries is now --attempts (it counts attempts per request, the first included); the old spelling still works');
  }
  const { spec, options } = providerRequest(ctx, project, name, flags);
  const watch = providerWatchOf(ctx, !!flags.verbose, runSettings(project, flags).unreachableAfterMs.value);
  return resolveProvider(spec, {
    ...options,
    extra: {
      maxConcurrent: runSettings(project, flags).maxRequests.value,
      maxResponseBytes: runSettings(project, flags).maxResponseBytes.value,
      onRetry: (r) => watch.retries.onRetry({ ...r, label: name }),
      reachability: watch.reachability,
    },
  });
}

/**
 * What a front end's providers report while a run goes: their `retrying:` lines, the one HTTP client's retry
 * events collapsed to one line per cause (core/http-client.ts), every wait with `-v`, the counts flushed when
 * a run ends; and whether their requests connect at all (core/reachability.ts), the run's second fast stop.
 */
interface ProviderWatch {
  retries: ReturnType<typeof collapseRetries>;
  reachability: ReachabilityWatch;
}
// One watch per front-end context (one CLI command or API call): the providers a run builds (a --compare
// list, a matrix) share it, so their retry counts are flushed together and one reachability stop covers the
// run. Its `verbose` and window come from the first buildProvider call, which is fine because both are
// run-wide: -v is a flag every per-provider RunFlags copies from the run's (`{ ...flags, provider }`,
// withModelTarget), and the window has no flag, only RUNSPEC_UNREACHABLE_AFTER_MS and [llm] (runSettings).
const providerWatches = new WeakMap<object, ProviderWatch>();
function providerWatchOf(ctx: Partial<Pick<AppContext, 'err'>>, verbose: boolean, unreachableAfterMs: number): ProviderWatch {
  let w = providerWatches.get(ctx);
  if (!w) {
    w = { retries: collapseRetries((line) => ctx.err?.(line), { verbose }), reachability: createReachabilityWatch({ windowMs: unreachableAfterMs }) };
    providerWatches.set(ctx, w);
  }
  return w;
}

/** The reachability watch of the providers `ctx` built, for runSuite's unreachable stop (undefined: none built). */
export function providerReachabilityOf(ctx: object): ReachabilityWatch | undefined {
  return providerWatches.get(ctx)?.reachability;
}

/** Print the `retried:` counts of the providers `ctx` built (once the run that used them has ended). */
export function flushProviderRetries(ctx: object): void {
  providerWatches.get(ctx)?.retries.flush();
}

/** What buildProvider resolves: the provider spec string and the resolver's options. */
function providerRequest(
  ctx: Pick<AppContext, 'cwd' | 'projectDir'>,
  project: LoadedProject,
  name: string,
  flags: RunFlags,
): { spec: string; options: ResolveProviderOptions } {
  const spec = (name === 'mock' || name === 'replay') && flags.script ? `${name}:${resolve(ctx.cwd, flags.script)}` : name;
  return {
    spec,
    options: {
      config: project.config,
      env: project.env,
      projectDir: ctx.projectDir,
      flags: {
        model: flags.model,
        baseUrl: flags.baseUrl,
        temperature: flags.temperature,
        maxTokens: flags.maxTokens,
        reasoningEffort: flags.reasoningEffort,
        contextWindow: flags.contextWindow,
        timeoutMs: flags.timeoutMs,
        // The providers' option is named retries but counts attempts, the first included.
        retries: flags.attempts ?? flags.retries,
      },
    },
  };
}

/**
 * The settings that change a run's results, as resolved (flag > env > runspec.toml > default) whatever
 * their source, for the log header: `--resume` refuses a run whose resolved settings differ. The base
 * URL is stored redacted and no key is ever stored; the system prompt as a digest of its text.
 * @example resultSettings(ctx, project, 'openai', flags).temperature === 0.2
 */
export function resultSettings(
  ctx: Pick<AppContext, 'cwd' | 'projectDir'>,
  project: LoadedProject,
  name: string,
  flags: RunFlags,
): Record<string, string | number | boolean | null> {
  const { spec, options } = providerRequest(ctx, project, name, flags);
  const p = resolveProviderSpec(spec, options);
  const settings = runSettings(project, flags);
  const prompt = systemPromptOf(ctx, project, flags);
  const sandbox = settings.sandbox.value;
  return {
    provider: p.name,
    providerKind: p.kind,
    baseUrl: redactUrl(p.baseUrl) ?? null,
    model: p.model ?? null,
    temperature: p.temperature ?? null,
    maxTokens: p.maxTokens ?? null,
    reasoningEffort: p.reasoningEffort ?? null,
    contextWindow: p.contextWindow ?? null,
    toolMode: settings.toolMode.value,
    toolset: toolsetIdentity(ctx, settings.toolset.value),
    systemPrompt: prompt === undefined ? null : `sha256:${createHash('sha256').update(prompt).digest('hex').slice(0, 12)}`,
    sandbox,
  };
}

/**
 * A toolset spec as the file it names (absolute, as loadToolset resolves it), so `--resume LOG`, whose stored
 * flags are absolute, compares equal to the run that wrote the log; `builtin:` and `mcp:` specs as given.
 */
function toolsetIdentity(ctx: Pick<AppContext, 'projectDir'>, spec: string | undefined): string | null {
  if (spec === undefined) return null;
  const s = spec.trim();
  return /^(builtin|mcp):/.test(s) ? s : resolve(ctx.projectDir, s);
}

/**
 * The system prompt of a run: --system-prompt FILE > the model target's `system` > [llm] system_prompt > none.
 * One reader for the run and for the settings --resume compares (a target's `system` was missing from those).
 */
function systemPromptOf(ctx: Pick<AppContext, 'cwd'>, project: LoadedProject, flags: RunFlags): string | undefined {
  if (flags.systemPrompt) return readText(resolve(ctx.cwd, flags.systemPrompt), '--system-prompt');
  const target = flags.target !== undefined ? project.config.targets?.[flags.target] : undefined;
  return (target?.kind === 'model' ? target.system : undefined) ?? project.config.llm?.system_prompt;
}

/** Generate a run id: sortable time + a random suffix. */
export function newRunId(now = new Date()): string {
  return `${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

export interface ExecuteOptions {
  cases: Case[];
  /** Every selected case id before sharding (kept in the results meta, so merge can restore the order). */
  allIds: string[];
  provider: Provider;
  providerLabel: string;
  toolsets: Map<string, Toolset>;
  flags: RunFlags;
  project: LoadedProject;
  /** Options stored in the log header for --resume. */
  storedOptions: Record<string, unknown>;
  /** Where results go; defaults to --out or .runspec/results/<run-id>.json. */
  finalFile?: string;
  /** Resume this log instead of starting a new one. */
  resumeLog?: string;
  /** Source label of the suite for the meta (`test_suite`). */
  suiteLabel: string;
  /** Agent name on the traces. */
  agentName?: string;
  /** Telemetry: undefined = configured (flag > env > file > default). */
  telemetry?: boolean;
  /** Aborting it finishes in-flight samples as cancelled; the run is then `interrupted`. */
  signal?: AbortSignal;
  /** Sample progress (the CLI draws a bar). */
  progress?: RunProgress;
  /** The target under test, for the results meta (default: a model target named after the provider). */
  target?: { name: string; kind: TargetKind };
  /** An agent target: its per-sample function and scoring replace the engine's model loop. */
  agent?: Pick<OpenedAgentTarget, 'runCase' | 'scoring' | 'target' | 'keepCaptured' | 'takeCaptured'>;
  /**
   * The run may let go of `cases` as they finish (it empties the array once they are handed to the runner),
   * so a large run does not hold every case to its end: for a caller that reads them no more.
   */
  releaseCases?: boolean;
}

/** Progress of one provider's run, sample by sample. */
export interface RunProgress {
  start(totalSamples: number, providerLabel: string): void;
  update(doneSamples: number, caseId: string): void;
  stop(): void;
}

export interface ExecuteResult {
  /** The results document, read back from the final file on first use (the run itself never holds it). */
  readonly doc: ResultsDocument;
  /** Its case results, decoded on first use. */
  readonly results: CaseResult[];
  /** Counts the exit code needs, gathered while the document was written. */
  facts: RunFacts;
  run: SuiteRunResult;
  finalFile: string;
  logFile: string;
  interrupted: boolean;
  /** Cases whose samples all errored, with the first error. */
  infraFailed: RunFacts['infraFailed'];
  /** The first errored sample whose code is bad input (stale recording...), if any. */
  badInput?: { code: ErrorCode; message: string };
  /** Where the run's traces went (a directory of OTLP JSON lines, or an OTLP endpoint, redacted); absent with telemetry off. */
  traces?: { kind: 'file'; dir: string } | { kind: 'otlp'; url: string };
}

function tracesDestination(exporter: TelemetryConfig['exporter']): NonNullable<ExecuteResult['traces']> {
  return exporter.kind === 'file' ? { kind: 'file', dir: exporter.dir } : { kind: 'otlp', url: redactUrl(exporter.url) ?? exporter.url };
}

/** The export's TLS files, as the one HTTP client takes them. */
async function experimentTls(cfg: TelemetryConfig): Promise<{ caFile?: string; certFile?: string; keyFile?: string }> {
  const { annotationTls } = await import('../telemetry/phoenix.js');
  const t = annotationTls(cfg);
  return {
    ...(t.caFile ? { caFile: t.caFile } : {}),
    ...(t.clientCertFile ? { certFile: t.clientCertFile } : {}),
    ...(t.clientKeyFile ? { keyFile: t.clientKeyFile } : {}),
  };
}

/** The run as a Phoenix experiment on a dataset of its suite (telemetry/phoenix-experiment.ts); warns on failure. */
async function recordExperiment(
  ctx: AppContext,
  cfg: TelemetryConfig,
  input: {
    cases: Case[];
    results: CaseResult[];
    meta: { run_id: string; model: string | null } & Record<string, unknown>;
    providerLabel: string;
    suiteLabel: string;
  },
): Promise<void> {
  const { recordPhoenixExperiment } = await import('../telemetry/phoenix-experiment.js');
  const suites = [...new Set(input.cases.map((c) => c.suite).filter((n): n is string => n !== undefined))];
  const datasetName = suites.length > 0 ? suites.join('+') : input.suiteLabel;
  const model = input.meta.model ?? 'model';
  const recorded = await recordPhoenixExperiment({
    baseUrl: cfg.annotationsUrl!,
    ...(cfg.apiKey !== undefined ? { apiKey: cfg.apiKey } : {}),
    datasetName,
    experimentName: `${model} (${input.providerLabel}) · ${datasetName}`,
    metadata: { ...input.meta, ...(cfg.project !== undefined ? { traces_project: cfg.project } : {}) },
    cases: input.cases,
    results: input.results,
    captureContent: cfg.captureContent,
    timeoutMs: Math.max(cfg.timeoutMs, 30_000),
    tls: await experimentTls(cfg),
  });
  if (recorded.warning !== undefined) ctx.warn(`telemetry: ${recorded.warning}`);
}

/** Run the suite once on one provider: results log, telemetry, final document. */
/**
 * Run the suite once on one provider, in three steps: {@link prepareRun} (the run's id, its results log,
 * resume), {@link runWithLog} (telemetry, sandbox and the cases, each logged as it finishes) and
 * {@link finishRun} (the results document streamed from the log).
 */
export async function executeRun(ctx: AppContext, opts: ExecuteOptions): Promise<ExecuteResult> {
  let prepared: PreparedRun;
  try {
    prepared = await prepareRun(ctx, opts);
  } catch (err) {
    // Bad --out or a refused --resume: the run owns the provider from here on, so it closes it.
    await opts.provider.close().catch(() => {});
    throw err;
  }
  const ran = await runWithLog(ctx, opts, prepared);
  const result = await finishRun(opts, prepared, ran);
  const t = ran.telemetryConfig;
  if (!result.interrupted && t.enabled && t.phoenixExperiment && t.annotationsUrl !== undefined) {
    // After the document is written: a Phoenix failure changes nothing but a warning.
    await recordExperiment(ctx, t, {
      cases: opts.cases,
      results: result.results,
      meta: result.doc.meta as ExperimentMeta,
      providerLabel: opts.providerLabel,
      suiteLabel: opts.suiteLabel,
    });
  }
  return result;
}

type ExperimentMeta = { run_id: string; model: string | null } & Record<string, unknown>;

/** What {@link prepareRun} sets up: the run's identity, its files and the log recorder. */
interface PreparedRun {
  runId: string;
  startedAt: string;
  /** Cases already finished in the log being resumed. */
  prior: Set<string>;
  /** The ids of the run's cases, in report order. */
  caseIds: string[];
  paths: { finalFile: string; logFile: string };
  logFile: string;
  recorder: Awaited<ReturnType<typeof openRunRecorder>>;
}

/** Step 1: check --out, pick or resume the run id and log, open the recorder. */
async function prepareRun(ctx: AppContext, opts: ExecuteOptions): Promise<PreparedRun> {
  const { flags } = opts;
  const out = opts.finalFile ?? flags.out;
  if (out && /\.(xml|md|html?)$/i.test(out)) {
    // --out is the results JSON that report, merge and --resume read; reports go to stdout.
    throw new UsageError('USAGE', `--out ${out}: expected a .json results file (the report goes to stdout)`, {
      hint: `write the report with \`--output ${/\.xml$/i.test(out) ? 'junit' : /\.md$/i.test(out) ? 'md' : 'html'} > ${out}\`, or later with \`runspec-eval report RESULTS.json --out ${out}\``,
    });
  }
  let runId = newRunId();
  let startedAt = new Date().toISOString();
  let prior = new Set<string>();
  let paths = resultsPaths({ projectDir: ctx.projectDir, runId, out: opts.finalFile ?? flags.out, cwd: ctx.cwd });
  let logFile = paths.logFile;
  const digests = await caseDigestsYielding(opts.cases);
  const caseIds = opts.cases.map((c) => c.id);
  if (opts.resumeLog) {
    const log = readResultsLog(resolve(ctx.cwd, opts.resumeLog));
    runId = log.header.runId;
    startedAt = log.header.startedAt;
    prior = new Set(log.cases.keys());
    logFile = resolve(ctx.cwd, opts.resumeLog);
    // The header's final file, unless --out was given again (stored --out values are absolute).
    paths = { finalFile: flags.out ? resolve(ctx.cwd, flags.out) : log.header.finalFile, logFile };
    checkResumeHeader({ file: opts.resumeLog, header: log.header, caseIds, digests, options: opts.storedOptions });
    const retried = [...log.cases.values()].filter(retryOnResume).map((r) => r.caseId);
    for (const id of retried) prior.delete(id);
    ctx.err(
      `resuming ${runId}: ${prior.size} of ${opts.cases.length} cases already finished${retried.length > 0 ? `; ${retried.length} with infrastructure errors run again` : ''}`,
    );
  } else {
    const moved = moveAsideOldLog(logFile);
    if (moved) ctx.err(`note: ${logFile} held another run's log; moved it to ${moved} (a new run never appends to another run's log)`);
  }
  ensureOutputDir(paths.finalFile, flags.out ? '--out' : 'results file');
  ensureOutputDir(logFile, opts.resumeLog ? '--resume' : 'results log');
  const header: ResultsLogHeader = {
    type: 'run',
    version: 2,
    runId,
    startedAt,
    finalFile: paths.finalFile,
    caseIds,
    options: { ...opts.storedOptions, [CASE_DIGESTS_KEY]: digests },
  };
  // Cases go to the log as they finish (batched fsync); the document is streamed from it at the end.
  const recorder = await openRunRecorder(logFile, header, { resume: !!opts.resumeLog });

  return { runId, startedAt, prior, caseIds, paths, logFile, recorder };
}

/** What {@link runWithLog} hands to the last step. */
interface RanSuite {
  run: SuiteRunResult;
  toolMode: ToolMode;
  threshold: number;
  systemPrompt: string | undefined;
  telemetryConfig: TelemetryConfig;
}

/** What {@link runCases} opened, for {@link runWithLog} to close. */
interface OpenedParts {
  telemetry?: { shutdown(): Promise<void> };
  metrics?: { shutdown(): Promise<void> };
}

/**
 * Step 2: telemetry, settings, sandbox, and the cases (each logged as it finishes). Closes the log, telemetry,
 * metrics and provider whatever happens, bad input found late (a missing var, the sandbox, the system prompt
 * file, the gRPC peers) included.
 */
async function runWithLog(ctx: AppContext, opts: ExecuteOptions, prepared: PreparedRun): Promise<RanSuite> {
  const opened: OpenedParts = {};
  try {
    return await runCases(ctx, opts, prepared, opened);
  } finally {
    opts.progress?.stop();
    // Independent waits, overlapped: the log's fsync (the thread pool), the exporters' flush (the network)
    // and the provider's sockets closing. The log's failure is the one that counts (exit 3, the log named).
    const closingLog = prepared.recorder.close();
    closingLog.catch(() => {});
    // Through a promise: a library user's close() that throws at once must not skip the rest.
    const closingProvider = Promise.resolve()
      .then(() => opts.provider.close())
      .catch(() => {});
    for (const part of [opened.telemetry, opened.metrics]) {
      try {
        await part?.shutdown();
      } catch (err) {
        ctx.warn(`telemetry: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    await closingProvider;
    flushProviderRetries(ctx);
    await closingLog;
  }
}

async function runCases(ctx: AppContext, opts: ExecuteOptions, prepared: PreparedRun, opened: OpenedParts): Promise<RanSuite> {
  const { flags, project } = opts;
  const { prior, recorder, runId } = prepared;
  const telemetryConfig = resolveTelemetryConfig({
    flags: {
      telemetry: opts.telemetry ?? flags.telemetry,
      captureContent: flags.captureContent,
      annotations: flags.annotations,
      phoenixExperiment: flags.phoenixExperiment,
      endpoint: flags.endpoint,
      langsmithFeedback: flags.langsmithFeedback,
    },
    env: project.env,
    file: project.config.telemetry,
    projectDir: ctx.projectDir,
  });
  for (const w of project.env.warnings.splice(0)) ctx.warn(w);
  // The OpenTelemetry SDK costs a noticeable share of start-up time: load it only when it is used.
  let totalSamples = 0;
  for (const c of opts.cases) if (!prior.has(c.id)) totalSamples += sampleCount(c, flags.samples);
  // OTLP/gRPC needs two optional peers: missing, the run stops here (exit 2, the install line), not batch by batch.
  if (telemetryConfig.enabled && telemetryConfig.exporter.kind === 'otlp' && telemetryConfig.exporter.protocol === 'grpc')
    await (await import('../telemetry/grpc-exporter.js')).loadGrpcExporterModules();
  // The SDK and exporter load when the first case finishes, not before the first request (deferred.ts); an
  // agent target's spans are exported as they arrived, from this thread (agent-target.ts agentTelemetrySink).
  const deferred = telemetryConfig.enabled
    ? deferTelemetry(telemetryConfig, { onWarning: (w: string) => ctx.warn(`telemetry: ${w}`), version: VERSION })
    : undefined;
  if (deferred) opened.telemetry = deferred;
  const telemetry = opts.agent && deferred ? await deferred.loaded() : undefined;
  if (telemetry?.enabled) opts.agent?.keepCaptured();
  // Verdict counters over OTLP (OTEL_METRICS_EXPORTER=otlp), as serve exports them.
  const metrics = telemetryConfig.enabled
    ? await (await import('./verdict-metrics.js')).createRunMetrics(project.env, (w) => ctx.warn(`telemetry: ${w}`))
    : undefined;
  if (metrics) opened.metrics = metrics;

  // Bounds (RUNSPEC_CONCURRENCY 1 to 256...) are checked by the resolver, so `config` rejects them too.
  const settings = runSettings(project, flags);
  const toolMode = settings.toolMode.value;
  const concurrency = settings.concurrency.value;
  const threshold = flags.threshold ?? 1;
  const systemPrompt = systemPromptOf(ctx, project, flags);

  // Every case's {{vars.NAME}} resolves before anything runs: a missing one is bad input (exit 2), not a failed sample.
  const turns = createEventLoopTurns();
  for (const c of opts.cases) {
    caseInputOf(c, opts.agent?.target.defaults ?? {});
    if (turns.due()) await turns.take();
  }

  const { sandbox, warning: sandboxWarning } = await chooseCommandSandbox(
    sandboxChoice(project, flags),
    opts.cases.some((c) => c.mode === 'trajectory'),
  );
  if (sandboxWarning) ctx.warn(sandboxWarning);

  const swept = await sweepStaleWorktrees();
  if (swept.length > 0) ctx.err(`removed ${swept.length} worktree(s) left by runs that were killed`);

  opts.progress?.start(totalSamples, opts.providerLabel);
  const running = runSuite({
    cases: opts.cases,
    provider: opts.provider,
    toolsetFor: (c) => opts.toolsets.get(c.id)!,
    toolMode,
    samples: flags.samples,
    threshold,
    ...(flags.passK ? { passK: flags.passK } : {}),
    ...(flags.gate ? { gate: parseGate(flags.gate) } : {}),
    validateArgs: !!flags.validateArgs,
    concurrency,
    stopAfterErrors: runSettings(project, flags).stopAfterErrors.value,
    ...(providerWatches.has(ctx) ? { reachability: providerWatches.get(ctx)!.reachability } : {}),
    maxTurns: flags.maxTurns,
    systemPrompt,
    keepWorktrees: !!flags.keepWorktrees,
    mcpServers: { projectDir: ctx.projectDir, env: project.env.raw },
    ...(flags.verbose ? { onTurn: (e: TurnEvent) => ctx.err(formatTurnEvent(e)) } : {}),
    sandbox,
    ...(opts.signal ? { signal: opts.signal } : {}),
    runId,
    agentName: opts.agentName,
    telemetry: opts.agent ? (telemetry?.enabled ? agentTelemetrySink(telemetry, opts.agent) : undefined) : deferred,
    skip: prior,
    keepResults: false,
    onCaseResult: (result) => {
      recorder.add(result);
      metrics?.addCase(result);
    },
    onSample: (p) => opts.progress?.update(p.done, p.caseId),
    // As the sample ends, not when it is scored: by then the lane's next sample may have printed its turns (-v).
    onWorktreeKept: (k) => ctx.err(`kept worktree of ${k.caseId} sample ${k.sample}: ${k.worktree}`),
    onWarning: (w) => ctx.warn(w),
    ...(opts.agent ? { runCase: opts.agent.runCase, scoring: opts.agent.scoring } : {}),
  });
  // The runner took its own list of the cases before its first await, and lets each go once it has run.
  // A Phoenix experiment reads them after the run.
  if (opts.releaseCases && !(telemetryConfig.enabled && telemetryConfig.phoenixExperiment)) opts.cases.length = 0;
  const run = await running;
  return { run, toolMode, threshold, systemPrompt, telemetryConfig };
}

/** Step 3: the results document (or, when interrupted, a partial one from a scratch copy), and the facts. */
async function finishRun(opts: ExecuteOptions, prepared: PreparedRun, ran: RanSuite): Promise<ExecuteResult> {
  const { flags } = opts;
  const { runId, startedAt, caseIds, paths, logFile, recorder } = prepared;
  const { run, toolMode, threshold, systemPrompt } = ran;
  const meta = {
    run_id: runId,
    started: startedAt,
    provider: opts.providerLabel,
    target: opts.target ?? { name: opts.providerLabel, kind: 'model' },
    finished: new Date().toISOString(),
    tool: 'runspec-eval',
    version: VERSION,
    model: opts.provider.model ?? flags.model ?? null,
    base_url: redactUrl(opts.provider.baseUrl) ?? null,
    test_suite: opts.suiteLabel,
    ...(flags.samples !== undefined ? { n_runs_default: flags.samples } : {}),
    tool_mode: toolMode,
    validate_args: !!flags.validateArgs,
    threshold,
    shard: flags.shard ? { ...parseShard(flags.shard) } : null,
    // Every selected case id before sharding, so `merge` restores the unsharded order.
    case_order: opts.allIds,
  };
  // A run stopped because the provider looks down is unfinished like an interrupted one: --resume finishes it.
  const interrupted = run.cancelled || run.stopped !== undefined;
  // An interrupted run writes no results file; its partial document is rendered from a scratch copy.
  const docFile = interrupted ? `${logFile}.partial-${process.pid}.json` : paths.finalFile;
  const facts = await recorder.writeDocument(docFile, {
    meta,
    iteration: { iteration: 0, timestamp: new Date().toISOString(), ...(systemPrompt !== undefined ? { prompt: systemPrompt } : {}) },
    caseIds,
  });
  let doc: ResultsDocument | undefined;
  if (interrupted) {
    doc = JSON.parse(readFileSync(docFile, 'utf8')) as ResultsDocument;
    rmSync(docFile, { force: true });
  }
  let results: CaseResult[] | undefined;
  const loadDoc = (): ResultsDocument => (doc ??= JSON.parse(readFileSync(paths.finalFile, 'utf8')) as ResultsDocument);
  return {
    get doc() {
      return loadDoc();
    },
    get results() {
      return (results ??= caseResultsFromDocument(loadDoc()));
    },
    facts,
    run,
    finalFile: paths.finalFile,
    logFile,
    interrupted,
    infraFailed: facts.infraFailed,
    ...(facts.badInput ? { badInput: facts.badInput } : {}),
    ...(ran.telemetryConfig.enabled ? { traces: tracesDestination(ran.telemetryConfig.exporter) } : {}),
  };
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError('USAGE', `${what}: cannot read ${file}`, { hint: 'pass a readable text file' });
  }
}

/**
 * The exit code of one run: 2 a sample hit bad input (a stale recording...), 3 interrupted or a case
 * whose every sample errored (infrastructure), 1 a case below its threshold, 0 otherwise.
 */
export function exitCodeOf(r: Pick<ExecuteResult, 'interrupted' | 'infraFailed' | 'badInput' | 'facts'>, opts: { failOnUnscorable?: boolean } = {}): number {
  if (r.badInput) return 2;
  if (r.interrupted || r.infraFailed.length > 0) return 3;
  if (r.facts.belowThreshold > 0) return 1;
  if (opts.failOnUnscorable && r.facts.unscorableCases > 0) return 1;
  return 0;
}

/** What went wrong besides verdicts (stale recording, provider down, interruption), one line each. */
export function problemsOf(r: ExecuteResult): string[] {
  const lines: string[] = [];
  if (r.badInput) lines.push(`error: ${r.badInput.message}`);
  // Case ids and provider messages are untrusted: one inert line each.
  if (r.run.stopped) {
    // One line for one cause: not a line per failed case.
    const stop = r.run.stopped;
    const cause =
      stop.cause === 'errors'
        ? `${stop.samples} samples in a row failed (${safeText(stop.error.message)})`
        : `every request in flight failed to connect for ${(stop.windowMs / 1000).toFixed(1)} s (${safeText(stop.reason)})`;
    lines.push(
      `stopped: ${cause}; ${r.facts.cases} of ${r.facts.cases + r.run.unfinished.length} cases finished; ` +
        `when the provider is back, finish with --resume ${r.logFile}`,
    );
    return lines;
  }
  for (const c of r.infraFailed) lines.push(`error: ${safeText(c.caseId)}: every sample failed: ${safeText(c.message)}`);
  if (r.interrupted) {
    lines.push(`interrupted: ${r.facts.cases} of ${r.facts.cases + r.run.unfinished.length} cases finished; resume with --resume ${r.logFile}`);
  }
  return lines;
}

/** Options of `runEvalSuite`: `run` by default; `compare`, `record`, `replay` and `schedule run` are options of it. */
export interface RunEvalOptions {
  /** Suite names or fixture files (empty: every discovered case). */
  targets: string[];
  /**
   * The run's options. With `resume` set, that log's header supplies the targets and the flags left
   * unset here (so pass only the flags given now).
   */
  flags: RunFlags;
  /** The meta's `test_suite` (default: the targets as typed). */
  suiteLabel?: string;
  /** Agent name on the traces (`schedule:<id>` for a scheduled sweep). */
  agentName?: string;
  /**
   * Run the suite once per provider, one after another so they do not compete for a local model, and
   * compare them (`compare`, `run --compare`). With `flags.out`, one `<stem>.<provider>.json` each.
   */
  compare?: string[];
  /** Wrap the provider in a recorder that writes a replay recording to `file` (`record`). */
  record?: { file: string; merge: boolean };
  /** Aborting it finishes in-flight samples as cancelled; the outcome's run is then `interrupted`. */
  signal?: AbortSignal;
  progress?: RunProgress;
}

export interface RunEvalOutcome {
  /** One per provider (several with `compare`); empty when no case was selected. */
  runs: Array<{ label: string; result: ExecuteResult }>;
  /** The side-by-side comparison, with `compare`. */
  comparison?: Comparison;
  /** The recording written, with `record` (not written when interrupted). */
  recording?: string;
  /** No case was selected (an empty shard is not this). */
  noCases: boolean;
  /** 0 every case meets its threshold, 1 some does not, 2 bad input, 3 infrastructure or interrupted. */
  exitCode: number;
}

/**
 * Run a suite end to end: select cases, load toolsets, build the provider(s), run with a results log,
 * telemetry and interruption, write the results document. Never prints; status lines go to `ctx.err`.
 *
 * @example
 * const outcome = await runEvalSuite({ projectDir, cwd: projectDir, env: process.env, err: console.error, warn: console.warn },
 *   { targets: ['ops'], flags: { provider: 'replay', script: 'rec.json' } });
 */
export async function runEvalSuite(ctx: AppContext, options: RunEvalOptions): Promise<RunEvalOutcome> {
  let { targets, flags } = options;
  let suiteLabel = options.suiteLabel ?? suiteLabelOf(targets);
  // Checked before anything runs: a comparison is a table, JSON or Markdown, never a JUnit or HTML report.
  if (options.compare && flags.output !== undefined && !(COMPARISON_FORMATS as readonly string[]).includes(flags.output)) {
    throw new UsageError('USAGE', `--output ${flags.output}: compare prints the side-by-side summary as ${COMPARISON_FORMATS.join(', ')}`, {
      hint: `each provider's results file is written anyway: render it with \`runspec-eval report RESULTS.json --output ${flags.output}\``,
    });
  }
  if (flags.resume) {
    if (options.compare) throw new UsageError('USAGE', '--resume: cannot be combined with --compare', { hint: "resume each provider's log on its own" });
    // The log header keeps the original targets and flags; flags given now win (e.g. a new --concurrency).
    const log = readResultsLog(resolve(ctx.cwd, flags.resume));
    const stored = log.header.options as { targets?: string[]; flags?: RunFlags; suiteLabel?: string };
    flags = { ...(stored.flags ?? {}), ...flags, resume: flags.resume };
    if (targets.length === 0) {
      targets = stored.targets ?? [];
      suiteLabel = stored.suiteLabel ?? suiteLabelOf(targets);
    }
  }
  const project = loadProject(ctx);
  // `--target NAME` names a [targets.NAME]; a model target is its provider with its own settings.
  const single = flags.target !== undefined ? targetConfigOf(project.config, flags.target) : undefined;
  if (single && !isAgentTarget(single)) flags = withModelTarget(flags, single);
  if (single && isAgentTarget(single) && options.record) {
    throw new UsageError('USAGE', `record --target ${flags.target}: a ${single.kind} target has no model requests to record`, {
      hint: 'record a model target or a provider',
    });
  }
  flags = withRecordedSettings(ctx, project, flags);
  const { cases, allIds } = await selectRunCases(ctx, project, targets, flags);
  // An empty shard is fine (few cases, many shards); an empty selection otherwise is a mistake.
  if (cases.length === 0 && !flags.shard) return { runs: [], noCases: true, exitCode: 2 };
  const toolsets = await loadToolsets(ctx, project, cases, flags.toolset);
  const common = { cases, allIds, toolsets, project, suiteLabel, signal: options.signal, progress: options.progress };

  if (options.compare) {
    // Build every provider (or check every target) before running any, so a typo in the second name fails first.
    const built = options.compare.map((name) => {
      const target = project.config.targets?.[name];
      if (target && isAgentTarget(target)) return { name, target };
      const perFlags: RunFlags = target ? withModelTarget({ ...flags, target: name }, target) : { ...flags, provider: name };
      return { name, target, perFlags, provider: buildProvider(ctx, project, perFlags.provider!, perFlags) };
    });
    const runs: RunEvalOutcome['runs'] = [];
    for (const b of built) {
      let finalFile: string | undefined;
      if (flags.out) {
        const base = resultsPaths({ projectDir: ctx.projectDir, runId: 'x', out: flags.out, cwd: ctx.cwd }).finalFile;
        finalFile = base.endsWith('.json') ? `${base.slice(0, -5)}.${safeLabel(b.name)}.json` : `${base}.${safeLabel(b.name)}.json`;
      }
      // A target names the agent on the root span (gen_ai.agent.name); a bare provider keeps the default.
      const agentName = options.agentName ?? (b.target ? b.name : undefined);
      const extra = { ...(finalFile ? { finalFile } : {}), ...(agentName ? { agentName } : {}) };
      let result: ExecuteResult;
      if (b.target && isAgentTarget(b.target)) {
        result = await executeAgentTarget(ctx, { ...common, flags: { ...flags, target: b.name }, targets, name: b.name, config: b.target, extra });
      } else {
        const perProvider = b.perFlags!;
        const runToolsets = b.target?.toolset !== undefined ? await loadToolsets(ctx, project, cases, b.target.toolset) : toolsets;
        result = await executeRun(ctx, {
          ...common,
          toolsets: runToolsets,
          provider: b.provider!,
          providerLabel: b.name,
          flags: perProvider,
          target: { name: b.name, kind: 'model' },
          storedOptions: {
            ...normaliseForLog(ctx, targets, perProvider),
            [RESOLVED_SETTINGS_KEY]: resultSettings(ctx, project, perProvider.provider!, perProvider),
          },
          ...extra,
        });
      }
      runs.push({ label: b.name, result });
      if (result.interrupted) break;
    }
    const { compareResults } = await import('../report/compare.js');
    const comparison = compareResults(runs.map(({ label, result }) => ({ label, doc: result.doc })));
    return {
      runs,
      comparison,
      noCases: false,
      exitCode: worstExitCode(runs.map(({ result }) => exitCodeOf(result, { failOnUnscorable: flags.failOnUnscorable === true }))),
    };
  }

  if (single && isAgentTarget(single)) {
    const name = flags.target!;
    const result = await executeAgentTarget(ctx, {
      ...common,
      flags,
      targets,
      name,
      config: single,
      extra: { ...(flags.resume ? { resumeLog: flags.resume } : {}), agentName: options.agentName ?? name },
    });
    return { runs: [{ label: name, result }], noCases: false, exitCode: exitCodeOf(result, { failOnUnscorable: flags.failOnUnscorable === true }) };
  }

  const name = providerName(flags, project);
  const label = flags.target ?? name;
  let provider = buildProvider(ctx, project, name, flags);
  let recorder: RecordingProvider | undefined;
  if (options.record) {
    if (!options.record.merge && (flags.fixture || flags.tag || flags.shard)) {
      ctx.warn(`record: only the selected cases are recorded and ${options.record.file} is replaced; pass --merge to keep the other cases' entries`);
    }
    recorder = createRecordingProvider(provider, {
      file: resolve(ctx.cwd, options.record.file),
      merge: options.record.merge,
      run: { samples: flags.samples, threshold: flags.threshold },
    });
    provider = recorder;
  }
  const result = await executeRun(ctx, {
    ...common,
    provider,
    providerLabel: label,
    flags,
    ...(single ? { target: { name: label, kind: 'model' as const } } : {}),
    storedOptions: { ...normaliseForLog(ctx, targets, flags), [RESOLVED_SETTINGS_KEY]: resultSettings(ctx, project, name, flags) },
    ...(flags.resume ? { resumeLog: flags.resume } : {}),
    ...(options.agentName || single ? { agentName: options.agentName ?? label } : {}),
    // Nothing here reads the cases after the run.
    releaseCases: true,
  });
  const outcome: RunEvalOutcome = {
    runs: [{ label, result }],
    noCases: false,
    exitCode: exitCodeOf(result, { failOnUnscorable: flags.failOnUnscorable === true }),
  };
  // The recording is written even below the threshold: its diff is what a reviewer looks at.
  if (recorder && !result.interrupted) {
    await recorder.save();
    outcome.recording = resolve(ctx.cwd, options.record!.file);
  }
  return outcome;
}

/** A model target's provider, model and toolset as run flags (flags given on the command line win). */
function withModelTarget(flags: RunFlags, t: TargetConfig): RunFlags {
  if (t.kind !== 'model') return flags;
  const out: RunFlags = { ...flags, provider: flags.provider ?? t.provider };
  if (flags.model === undefined && t.model !== undefined) out.model = t.model;
  if (flags.toolset === undefined && t.toolset !== undefined) out.toolset = t.toolset;
  return out;
}

/** Run the suite on an agent target: open it (its span collection, module or template), run, close. */
async function executeAgentTarget(
  ctx: AppContext,
  o: Omit<ExecuteOptions, 'provider' | 'providerLabel' | 'storedOptions'> & {
    targets: string[];
    name: string;
    config: AgentTargetConfig;
    extra: Partial<ExecuteOptions>;
  },
): Promise<ExecuteResult> {
  const opened = await openAgentTarget(ctx, {
    name: o.name,
    config: o.config,
    cases: o.cases,
    ...(o.flags.quietMs !== undefined ? { quietMs: o.flags.quietMs } : {}),
    ...(o.flags.traceTimeout !== undefined ? { traceTimeoutMs: o.flags.traceTimeout } : {}),
    toolsetFor: (c) => o.toolsets.get(c.id),
  });
  const { targets, name, config, extra, ...common } = o;
  try {
    const toolsets = config.toolset !== undefined ? await loadToolsets(ctx, o.project, o.cases, config.toolset) : o.toolsets;
    return await executeRun(ctx, {
      ...common,
      ...extra,
      toolsets,
      provider: opened.provider,
      providerLabel: name,
      target: { name, kind: config.kind },
      agent: opened,
      storedOptions: { ...normaliseForLog(ctx, targets, o.flags), [RESOLVED_SETTINGS_KEY]: agentSettings(name, config) },
    });
  } finally {
    await opened.close();
  }
}

/** What --resume compares for an agent target: the target as configured (no secrets: env values are never in it). */
function agentSettings(name: string, t: AgentTargetConfig): Record<string, string | number | boolean | null> {
  const where = t.kind === 'module' ? t.module : t.kind === 'http' ? redactUrl(t.url) : t.command.join(' ');
  return { target: name, kind: t.kind, where, template: t.kind === 'http' ? (t.template ?? null) : null, toolset: t.toolset ?? null };
}

/**
 * A replay runs as the recording was made: its samples (a replay with fewer would leave recorded samples
 * unused; with more, it would ask for answers that were never recorded) and its threshold, unless given now.
 */
function withRecordedSettings(ctx: Pick<AppContext, 'cwd'>, project: LoadedProject, flags: RunFlags): RunFlags {
  if (!flags.script || providerName(flags, project) !== 'replay') return flags;
  const recording = loadRecording(resolve(ctx.cwd, flags.script));
  return {
    ...flags,
    ...(flags.samples === undefined && recording.samples !== undefined ? { samples: recording.samples } : {}),
    ...(flags.threshold === undefined && recording.threshold !== undefined ? { threshold: recording.threshold } : {}),
  };
}

function safeLabel(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}
