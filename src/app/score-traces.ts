// Scoring traces end to end, for every front end: load the cases, rules and toolsets that grade the
// traces, score files or a stream, and send verdicts on as annotations or verdict spans. Nothing here
// prints or exits.

import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { hashKeyOf, readEnv } from '../config/env.js';
import type { Env } from '../config/env.js';
import { loadConfigFile } from '../config/file.js';
import type { ConfigFile } from '../config/file.js';
import { resolveRunSettings } from '../config/settings.js';
import { resolveTelemetryConfig, type TelemetryConfig } from '../config/telemetry.js';
import { discoverFixtures, loadCasesFromPaths, mergeSuites } from '../fixtures/discover.js';
import { selectCases } from '../fixtures/select.js';
import type { emitVerdictSpan } from '../telemetry/render.js';
import type { postSpanAnnotations } from '../telemetry/phoenix.js';
import type { annotationTls } from '../telemetry/telemetry.js';
import { traceLink } from '../core/trace-link.js';
import type { AnnotationTarget } from '../telemetry/phoenix.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { loadRulesFile } from '../traces/rules.js';
import { scoreTraceFiles } from '../traces/pipeline.js';
import type { ScoreSummary, TraceOutcome, TraceScorerOptions, TraceVerdictLine } from '../traces/score-traces.js';
import type { TraceRule } from '../traces/rules.js';
import type { Case } from '../types/case.js';
import type { ToolMode, Toolset } from '../types/toolset.js';
import type { AppContext } from './context.js';
import { aggregateCase, type AggregateSubject } from '../scoring/samples.js';
// The document's writers and the run-entry readers, not the report/results.js barrel: that builds the results
// schema (zod), which only reading a document needs.
import { buildResultsDocument } from '../report/results-encode.js';
import { outcomeOf, runEntryCalls } from '../report/results-decode.js';
import type { ResultsDocument, ResultsInputs, ResultsMeta, RunEntry } from '../report/results-schema.js';
import type { SampleOutcome, SampleTrace, SampleTraceStep } from '../types/verdict.js';
import { VERSION } from '../core/version.js';

/** Options shared by `score` and `serve` (their flags). */
export interface TraceScoringFlags {
  cases?: string[];
  suite?: string[];
  toolset?: string;
  toolMode?: ToolMode;
  validateArgs?: boolean;
  rules?: string;
  annotate?: boolean;
  phoenixUrl?: string;
  /** With `annotate`: post verdicts as LangSmith feedback too (or `[telemetry.langsmith] feedback`). */
  langsmithFeedback?: boolean;
  export?: boolean;
  otlpEndpoint?: string;
}

/** Everything a scoring command needs, loaded once. */
export interface TraceScoringSetup {
  scorer: TraceScorerOptions;
  env: Env;
  config: ConfigFile;
  cases: Case[];
  rules: TraceRule[];
  sinks: VerdictSinks;
  /** Adds `traceUrl` to a verdict line when `[telemetry] trace_url` is set. */
  decorate(line: TraceVerdictLine): TraceVerdictLine;
  /** A trace's link when `[telemetry] trace_url` is set. */
  traceUrl: (traceId: string, rootSpanId: string) => string | undefined;
}

/** Annotations and verdict spans, best effort: failures warn and never change verdicts or exit codes. */
export interface VerdictSinks {
  add(outcome: TraceOutcome): void;
  /** Post pending annotations (serve calls this periodically). */
  flushAnnotations(): Promise<void>;
  close(): Promise<void>;
}

export async function loadTraceScoring(ctx: AppContext, flags: TraceScoringFlags): Promise<TraceScoringSetup> {
  const env = readEnv(ctx.env);
  const config = loadConfigFile(ctx.projectDir);
  const onWarning = (w: string): void => ctx.warn(w);
  let cases: Case[];
  if (flags.cases?.length) {
    cases = mergeSuites(
      loadCasesFromPaths(
        flags.cases.map((p) => resolve(ctx.cwd, p)),
        { onWarning },
      ),
    ).cases;
  } else {
    cases = (await discoverFixtures({ projectDir: ctx.projectDir, env: env.raw, onWarning })).cases;
  }
  if (flags.suite?.length) cases = selectCases(cases, { suites: flags.suite });
  const rules = flags.rules ? loadRulesFile(resolve(ctx.cwd, flags.rules)) : [];
  const toolsetSpec = flags.toolset && !/^(builtin|mcp):/.test(flags.toolset) ? resolve(ctx.cwd, flags.toolset) : flags.toolset;
  // Each case gets the toolset `run` would give it, so a live run and its traces score the same. The
  // toolset loading lives with `run` (and loads the engine with it): rules alone, without --toolset, need
  // none of it, and a cold start of `score` no longer pays for it then.
  let byId = new Map<string, Toolset>();
  let ruleToolset: Toolset | undefined;
  if (cases.length > 0 || toolsetSpec) {
    const { loadToolsets, toolsetLoader } = await import('./run-suite.js');
    const load = toolsetLoader(ctx, env);
    byId = await loadToolsets(ctx, { env, config }, cases, toolsetSpec, load);
    ruleToolset = toolsetSpec ? await load(toolsetSpec) : undefined;
  }
  if (rules.some((r) => r.validateArgs) && !ruleToolset)
    ctx.warn('rules with validate_args need --toolset; without it those rules are unscorable (the check cannot be judged)');
  // The same resolver as `run` (RUNSPEC_TOOL_MODE included); left unset, each trace's own tool mode
  // decides, else dedup.
  const resolved = resolveRunSettings({ flags: flags.toolMode ? { toolMode: flags.toolMode } : {}, env, file: config }).toolMode;
  const toolMode = resolved.source === 'default' ? undefined : resolved.value;
  const scorer: TraceScorerOptions = { cases, rules, toolsetFor: (c) => byId.get(c.id) };
  if (ruleToolset) scorer.toolset = ruleToolset;
  if (toolMode) scorer.toolMode = toolMode;
  if (flags.validateArgs) scorer.validateArgs = true;
  const hashKey = hashKeyOf(env);
  if (hashKey !== undefined) scorer.hashKey = hashKey;
  for (const w of env.warnings) ctx.warn(w);
  env.warnings.length = 0;
  // The OpenTelemetry SDK loads only for --export / --annotate (most of a cold start otherwise).
  const tm: TelemetryModules | undefined = flags.export || flags.annotate ? await loadTelemetryModules() : undefined;
  const sinks = createVerdictSinks(ctx, flags, env, config, tm);
  const template = config.telemetry?.trace_url;
  const project = config.telemetry?.project ?? env.get('PHOENIX_PROJECT_NAME');
  const traceUrl = (traceId: string, spanId: string): string | undefined =>
    traceLink(template, { traceId, spanId, ...(project !== undefined ? { project } : {}) });
  const decorate = (line: TraceVerdictLine): TraceVerdictLine => {
    if (!template) return line;
    const url = traceUrl(line.traceId, line.rootSpanId);
    return url ? { ...line, traceUrl: url } : line;
  };
  return { scorer, env, config, cases, rules, sinks, decorate, traceUrl };
}

interface TelemetryModules {
  createTelemetry: typeof import('../telemetry/telemetry.js').createTelemetry;
  annotationTls: typeof annotationTls;
  emitVerdictSpan: typeof emitVerdictSpan;
  buildSpanAnnotations: typeof import('../telemetry/phoenix.js').buildSpanAnnotations;
  postSpanAnnotations: typeof postSpanAnnotations;
}

async function loadTelemetryModules(): Promise<TelemetryModules> {
  const [telemetry, render, phoenix] = await Promise.all([
    import('../telemetry/telemetry.js'),
    import('../telemetry/render.js'),
    import('../telemetry/phoenix.js'),
  ]);
  return {
    createTelemetry: telemetry.createTelemetry,
    annotationTls: telemetry.annotationTls,
    emitVerdictSpan: render.emitVerdictSpan,
    buildSpanAnnotations: phoenix.buildSpanAnnotations,
    postSpanAnnotations: phoenix.postSpanAnnotations,
  };
}

function createVerdictSinks(ctx: AppContext, flags: TraceScoringFlags, env: Env, config: ConfigFile, tm: TelemetryModules | undefined): VerdictSinks {
  let telemetry: Telemetry | undefined;
  let annotationsUrl: string | undefined;
  let apiKey: string | undefined;
  let langsmith: TelemetryConfig['langsmith'];
  let tls: ReturnType<typeof annotationTls> = {};
  if (flags.export || flags.annotate) {
    const tflags: { telemetry: boolean; endpoint?: string; langsmithFeedback?: boolean; feedbackOnly: boolean } = { telemetry: true, feedbackOnly: true };
    if (flags.otlpEndpoint) tflags.endpoint = flags.otlpEndpoint;
    if (flags.langsmithFeedback !== undefined) tflags.langsmithFeedback = flags.langsmithFeedback;
    const cfg = resolveTelemetryConfig({ flags: tflags, env, file: config.telemetry, projectDir: ctx.projectDir });
    for (const w of env.warnings) ctx.warn(w);
    env.warnings.length = 0;
    if (flags.export) {
      if (cfg.exporter.kind === 'file') ctx.warn(`--export: no OTLP endpoint configured; verdict spans go to ${cfg.exporter.dir}`);
      telemetry = tm!.createTelemetry(cfg, { onWarning: (w) => ctx.warn(w) });
    }
    if (flags.annotate) {
      langsmith = cfg.langsmith;
      // With LangSmith feedback on, Phoenix is posted to only when asked for by URL or [telemetry] eval_annotations.
      annotationsUrl = flags.phoenixUrl ?? (langsmith && !config.telemetry?.eval_annotations ? undefined : cfg.annotationsUrl);
      apiKey = cfg.apiKey;
      // The annotation POST trusts what the export trusts (CA file, client certificate and key).
      tls = tm!.annotationTls(cfg);
      if (!annotationsUrl && !langsmith) {
        throw new UsageError('USAGE', '--annotate: no Phoenix URL (expected --phoenix-url or a telemetry endpoint)', {
          hint: 'pass --phoenix-url http://127.0.0.1:6006, or set OTEL_EXPORTER_OTLP_ENDPOINT to your Phoenix',
        });
      }
    }
  }
  let pending: AnnotationTarget[] = [];
  const flushAnnotations = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    if (langsmith) {
      const { postFeedbackForTargets } = await import('../telemetry/langsmith.js');
      const r = await postFeedbackForTargets(langsmith, batch, tls);
      if (r.warning) ctx.warn(r.warning);
    }
    if (!annotationsUrl) return;
    const opts: Parameters<typeof postSpanAnnotations>[0] = { baseUrl: annotationsUrl, annotations: tm!.buildSpanAnnotations(batch), ...tls };
    if (apiKey) opts.apiKey = apiKey;
    const r = await tm!.postSpanAnnotations(opts);
    if (r.warning) ctx.warn(r.warning);
  };
  return {
    add(outcome) {
      // Verdict spans and annotations are sent once, for a trace's final judgement.
      if (!outcome.final || outcome.kind !== 'scored' || (!telemetry?.tracer && !annotationsUrl && !langsmith)) return;
      for (const v of outcome.verdicts) {
        const target = { traceId: outcome.info.traceId, spanId: outcome.info.rootSpanId };
        if (telemetry?.tracer) {
          try {
            const input: Parameters<typeof emitVerdictSpan>[1] = { target, verdict: v.verdict };
            if (v.caseId !== undefined) input.caseId = v.caseId;
            if (v.rule !== undefined) input.rule = v.rule;
            tm!.emitVerdictSpan(telemetry.tracer, input);
          } catch (err) {
            ctx.warn(`--export: verdict span not emitted (${(err as Error).message})`);
          }
        }
        if (annotationsUrl || langsmith)
          pending.push({ spanId: target.spanId, caseId: v.caseId ?? v.rule ?? v.verdict.caseId, sample: v.verdict.sample, verdict: v.verdict });
      }
    },
    flushAnnotations,
    async close() {
      await flushAnnotations();
      await telemetry?.shutdown();
    },
  };
}

/** Options of `scoreTraces`: what grades the traces, plus how the inputs are read. */
export interface ScoreTracesOptions extends TraceScoringFlags {
  /** Score only the traces of this shard. */
  shard?: { index: number; count: number };
  /** Open traces held in memory before the oldest is scored early. */
  maxTraces?: number;
  /** Estimated bytes of open traces held before the oldest is scored early. */
  maxOpenBytes?: number;
  /** A trace was judged again (late spans): its earlier lines no longer count. Called before its new lines. */
  onSupersede?: (traceId: string) => void;
  /** What `-` reads. */
  stdin?: AsyncIterable<Uint8Array>;
  /** Each verdict line as its trace is scored. */
  onLine?: (line: TraceVerdictLine) => void;
  /** The output's backpressure: a promise while the lines written are not drained yet (reading waits for it). */
  outputReady?: () => Promise<void> | undefined;
  /**
   * Also build a results document, the model `run` writes: one case per case or rule, one run per
   * scored trace, so `report` (table, JSON, JUnit, Markdown, HTML) and the console render score output
   * as they render runs. Holds every verdict in memory.
   */
  results?: boolean;
  /** Pass rate a case or rule must reach in that document. @default 1 */
  threshold?: number;
  /** Count unscorable and incomplete verdicts as failures in the exit code. */
  failOnUnscorable?: boolean;
}

export interface ScoreTracesOutcome {
  summary: ScoreSummary;
  /** With `results`: the verdicts as a results document. */
  document?: ResultsDocument;
  /** 2 an input had nothing readable, 1 some verdict fails, 0 otherwise. */
  exitCode: number;
}

/**
 * Score OTLP trace files (or `-`) end to end: cases and rules as `run` would pick them, annotations and
 * verdict spans best effort. Verdict lines go to `onLine` as they are scored.
 */
export async function scoreTraces(ctx: AppContext, inputs: string[], options: ScoreTracesOptions): Promise<ScoreTracesOutcome> {
  const setup = await loadTraceScoring(ctx, options);
  const collector = options.results ? createResultsCollector(setup.cases, { traceUrl: setup.traceUrl }) : undefined;
  const started = new Date().toISOString();
  let summary: ScoreSummary;
  try {
    summary = await scoreTraceFiles(inputs, {
      ...setup.scorer,
      cwd: ctx.cwd,
      ...(options.stdin ? { stdin: options.stdin } : {}),
      ...(options.outputReady ? { outputReady: options.outputReady } : {}),
      ...(options.shard ? { shard: options.shard } : {}),
      ...(options.maxTraces !== undefined ? { maxOpenTraces: options.maxTraces } : {}),
      ...(options.maxOpenBytes !== undefined ? { maxOpenBytes: options.maxOpenBytes } : {}),
      onOutcome: (o) => {
        setup.sinks.add(o);
        collector?.add(o);
        if (o.supersedes) options.onSupersede?.(o.traceId);
        if (o.kind === 'scored') for (const l of o.lines) options.onLine?.(setup.decorate(l));
      },
    });
  } finally {
    await setup.sinks.close();
  }
  const outcome: ScoreTracesOutcome = { summary, exitCode: scoreExitCode(summary, { failOnUnscorable: options.failOnUnscorable === true }) };
  if (collector) {
    outcome.document = collector.document(
      scoreMeta(started, `score ${inputs.join(',')}`, options.threshold ?? 1, options.shard),
      options.threshold ?? 1,
      summary,
    );
  }
  return outcome;
}

/** The meta of a scoring's results document. */
export function scoreMeta(started: string, label: string, threshold: number, shard?: { index: number; count: number }): ResultsMeta {
  return {
    started,
    finished: new Date().toISOString(),
    tool: 'runspec-eval',
    version: VERSION,
    test_suite: label,
    threshold,
    ...(shard ? { shard: { ...shard } } : {}),
  };
}

/**
 * The exit code of a scoring: 2 an input had nothing readable, 1 some verdict fails (or, with
 * `failOnUnscorable`, is unscorable or incomplete, or a trace is uninterpretable), 0 otherwise. Only final verdicts count.
 */
export function scoreExitCode(s: ScoreSummary, opts: { failOnUnscorable?: boolean } = {}): number {
  if (s.badFiles.length) return 2;
  // A trace that could not be read at all is no more a pass than an unscorable verdict.
  if (opts.failOnUnscorable && s.unscorable + s.uninterpretable > 0) return 1;
  return s.failed > 0 ? 1 : 0;
}

/** Collects scored traces into a results document (`score --results`, `serve --results`, the console). */
export interface ResultsCollector {
  add(outcome: TraceOutcome): void;
  /**
   * A verdict line scored earlier (a `serve --out` or `score --output jsonl` file: a run entry). Lines no case
   * or rule graded (`status: "unmatched"`) are not verdicts: they are skipped and `false` is returned.
   */
  addLine(line: RunEntry): boolean;
  /**
   * The document. With the scoring's `summary`, it carries `inputs` (unmatched and uninterpretable traces,
   * input problems, superseded counts), which every report renderer shows.
   */
  document(meta: ResultsMeta, threshold: number, summary?: ScoreSummary): ResultsDocument;
}

/** Unmatched traces listed in a document's `inputs` (the rest are counted). */
const MAX_UNMATCHED_LISTED = 20;

/** A scoring's summary as the results document's `inputs`. */
export function resultsInputsOf(s: ScoreSummary, unmatched: ReadonlyArray<{ trace_id: string; root_span_id?: string }> = []): ResultsInputs {
  const inputs: ResultsInputs = {
    traces: s.traces,
    unmatched: s.unmatched,
    uninterpretable: s.uninterpretable,
    problems: s.inputProblems,
    superseded: s.reopenedTraces,
    evicted_traces: s.evictedTraces,
    dropped_spans: s.droppedSpans,
    late_records: s.lateRecords,
  };
  if (unmatched.length) inputs.unmatched_traces = unmatched.map((u) => ({ ...u }));
  if (Object.keys(s.uninterpretableReasons).length) inputs.uninterpretable_reasons = { ...s.uninterpretableReasons };
  if (s.uninterpretableExamples.length) inputs.uninterpretable_traces = s.uninterpretableExamples.map((u) => ({ trace_id: u.traceId, reason: u.reason }));
  if (s.inputProblemExamples.length) inputs.problem_examples = s.inputProblemExamples.map((p) => ({ place: p.place, reason: p.reason }));
  if (s.badFiles.length) inputs.bad_files = [...s.badFiles];
  return inputs;
}

export interface ResultsCollectorOptions {
  /**
   * `case` (default): one case per case or `rule:NAME`, one run per trace, as `run` writes.
   * `trace`: one row per verdict, named `CASE · TRACEID12` (the console's production view).
   */
  rows?: 'case' | 'trace';
  /** The link of a trace (`[telemetry] trace_url`), kept on its verdicts. */
  traceUrl?: (traceId: string, rootSpanId: string) => string | undefined;
}

/** The calls of a verdict line as a sample timeline (no timings: a line does not keep them). */
function timelineOfEntry(entry: RunEntry): SampleTrace {
  const steps: SampleTraceStep[] = runEntryCalls(entry).map((c, i) => {
    const call = entry.calls[i]!;
    const step: SampleTraceStep = {
      kind: 'tool',
      turn: 0,
      name: c.name,
      callId: c.id || `call_${i}`,
      offsetMs: 0,
      durationMs: 0,
      executed: call.executed ?? true,
      arguments: c.arguments,
    };
    if (call.is_error) step.isError = true;
    return step;
  });
  return { startTimeMs: 0, durationMs: 0, status: 'ok', steps };
}

/**
 * Verdicts of scored traces grouped by case (or `rule:NAME`), in first-seen order: one sample per trace;
 * the pass rates are `aggregateCase`'s, as for a run.
 */
export function createResultsCollector(cases: readonly Case[], options: ResultsCollectorOptions = {}): ResultsCollector {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const groups = new Map<string, { subject: AggregateSubject; outcomes: SampleOutcome[]; traces: string[] }>();
  const perTrace = options.rows === 'trace';
  const put = (key: string, subject: () => AggregateSubject, traceId: string, outcome: SampleOutcome): void => {
    if (perTrace) {
      let row = `${key} · ${traceId.slice(0, 12)}`;
      for (let n = 2; groups.has(row); n++) row = `${key} · ${traceId.slice(0, 12)} #${n}`;
      key = row;
    }
    let g = groups.get(key);
    if (!g) {
      g = { subject: { ...subject(), id: key }, outcomes: [], traces: [] };
      groups.set(key, g);
    }
    g.traces.push(traceId);
    g.outcomes.push(outcome);
  };
  const subjectOf = (caseId: string | undefined, key: string, tags: string[] = []): AggregateSubject => {
    const c = caseId !== undefined ? byId.get(caseId) : undefined;
    return c ?? { id: key, dialect: caseId === undefined ? 'rule' : 'runspec', tags, suite: undefined, settings: {} };
  };
  let unmatched: Array<{ trace_id: string; root_span_id: string }> = [];
  return {
    add(o) {
      // The document keeps a trace's last judgement: the final one (earlier revisions are not added).
      if (!o.final) return;
      if (o.supersedes) {
        unmatched = unmatched.filter((u) => u.trace_id !== o.traceId);
        for (const g of groups.values()) {
          for (let i = g.traces.length - 1; i >= 0; i--) {
            if (g.traces[i] === o.traceId) {
              g.traces.splice(i, 1);
              g.outcomes.splice(i, 1);
            }
          }
        }
      }
      if (o.kind !== 'scored') return;
      if (unmatched.length < MAX_UNMATCHED_LISTED && o.lines.some((l) => l.category === null))
        unmatched.push({ trace_id: o.traceId, root_span_id: o.info.rootSpanId });
      const url = options.traceUrl?.(o.traceId, o.info.rootSpanId);
      for (const v of o.verdicts) {
        const key = v.caseId ?? `rule:${v.rule ?? v.verdict.caseId}`;
        const verdict = url ? { ...v.verdict, trace: { ...(v.verdict.trace ?? { traceId: o.traceId, rootSpanId: o.info.rootSpanId }), url } } : v.verdict;
        put(key, () => subjectOf(v.caseId, key), o.traceId, { status: 'scored', sample: 0, verdict, elapsedMs: 0, tokens: v.verdict.replio?.tokens ?? 0 });
      }
    },
    addLine(l) {
      if (l.status !== 'scored' || l.verdict === null) return false;
      const key = l.case ?? (l.rule !== undefined ? `rule:${l.rule}` : 'trace');
      const tags = [l.rule !== undefined ? 'rule' : 'case', ...(l.mode ? [l.mode] : []), ...(l.producers ?? [])];
      const subject = (): AggregateSubject => {
        const s = subjectOf(l.case, key, tags);
        return perTrace ? { ...s, dialect: 'runspec', tags, ...(l.suite !== undefined ? { suite: l.suite } : {}) } : s;
      };
      // Decoded as any run entry: the verdict the line was written from, with its trace ids.
      const outcome = outcomeOf(key, l.verdict.dialect, l);
      if (outcome.status === 'scored' && l.trace_id && l.root_span_id && !outcome.verdict.trace) {
        outcome.verdict.trace = { traceId: l.trace_id, rootSpanId: l.root_span_id, ...(l.trace_url !== undefined ? { url: l.trace_url } : {}) };
      }
      put(key, subject, l.trace_id ?? '', { ...outcome, sample: 0, trace: timelineOfEntry(l) });
      return true;
    },
    document(meta, threshold, summary) {
      const caseResults = [...groups.values()].map((g) =>
        aggregateCase(
          g.subject,
          g.outcomes.map((x, sample) => ({ ...x, sample })),
          { threshold },
        ),
      );
      const doc = buildResultsDocument({ meta, iterations: [{ iteration: 0, timestamp: meta.finished ?? meta.started, caseResults }] });
      if (summary) doc.inputs = resultsInputsOf(summary, unmatched);
      return doc;
    },
  };
}
