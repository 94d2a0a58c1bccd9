import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../errors.js';
import { readEnv } from '../../config/env.js';
import type { Env } from '../../config/env.js';
import { loadConfigFile } from '../../config/file.js';
import type { ConfigFile } from '../../config/file.js';
import { firstSet } from '../../config/setting.js';
import { resolveTelemetryConfig, type TelemetryConfig } from '../../config/telemetry.js';
import { discoverFixtures, loadCasesFromPaths, mergeSuites, selectCases } from '../../fixtures/index.js';
import { loadToolset } from '../../toolset/index.js';
import { buildSpanAnnotations, createTelemetry, emitVerdictSpan, postSpanAnnotations } from '../../telemetry/index.js';
import type { AnnotationTarget, Telemetry } from '../../telemetry/index.js';
import {
  SCORE_OUTPUT_FORMATS,
  loadRulesFile,
  renderJson,
  renderJunit,
  renderMarkdown,
  renderSummaryTable,
  renderTable,
  scoreTraceFiles,
  verdictLineJson,
} from '../../traces/index.js';
import type { ScoreOutputFormat, ScoreSummary, TraceOutcome, TraceRule, TraceScorerOptions, TraceVerdictLine } from '../../traces/index.js';
import type { Case } from '../../types/case.js';
import type { ToolMode, Toolset } from '../../types/toolset.js';
import { toolsetSpecFor } from './_eval-run.js';

/** Flags shared by `score` and `serve`. */
export interface TraceScoringFlags {
  cases?: string[];
  suite?: string[];
  toolset?: string;
  toolMode?: ToolMode;
  validateArgs?: boolean;
  rules?: string;
  annotate?: boolean;
  phoenixUrl?: string;
  langsmithFeedback?: boolean;
  export?: boolean;
  otlpEndpoint?: string;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];

/** Add the case / rule / toolset / annotate / export options shared by `score` and `serve`. */
export function addTraceScoringOptions(cmd: Command): Command {
  return cmd
    .option('--cases <paths...>', 'fixture files or directories whose cases grade the traces (default: the project\'s fixtures)')
    .option('--suite <names>', 'only cases of these suites (comma-separated or repeated)', collect)
    .option('--toolset <spec>', 'toolset: a file, builtin:fleet, builtin:workspace or mcp:... (default: as `run` picks it)')
    .addOption(new Option('--tool-mode <mode>', 'layout the traced model saw, when the trace does not say').choices(['dedup', 'per_host', 'search']))
    .option('--validate-args', 'check arguments against the toolset (bounce buckets), as `run --validate-args`')
    .option('--rules <file>', 'case-less rules (TOML) applied to every trace; see examples/rules.toml')
    .option('--annotate', 'post each verdict to Phoenix as a span annotation on the trace\'s root span')
    .option('--phoenix-url <url>', 'Phoenix base URL for --annotate (default: derived from the telemetry endpoint)')
    .option('--langsmith-feedback', 'with --annotate, post each verdict as LangSmith feedback on the root span\'s run (LANGSMITH_ENDPOINT, LANGSMITH_API_KEY)')
    .option('--export', 'send one verdict span per scored trace (linked to its root) to the OTLP endpoint')
    .option('--otlp-endpoint <url>', 'OTLP traces endpoint for --export (default: OTEL_EXPORTER_OTLP_* / runspec.toml)');
}

/** Everything a scoring command needs, loaded once. */
export interface TraceScoringSetup {
  scorer: TraceScorerOptions;
  env: Env;
  config: ConfigFile;
  cases: Case[];
  rules: TraceRule[];
  sinks: VerdictSinks;
}

/** Annotations and verdict spans, best effort: failures warn and never change verdicts or exit codes. */
export interface VerdictSinks {
  add(outcome: TraceOutcome): void;
  /** Post pending annotations (serve calls this periodically). */
  flushAnnotations(): Promise<void>;
  close(): Promise<void>;
}

export async function loadTraceScoring(ctx: CliContext, flags: TraceScoringFlags): Promise<TraceScoringSetup> {
  const env = readEnv(ctx.env);
  const config = loadConfigFile(ctx.projectDir);
  const onWarning = (w: string): void => ctx.warn(w);
  let cases: Case[];
  if (flags.cases?.length) {
    cases = mergeSuites(loadCasesFromPaths(flags.cases.map((p) => resolve(ctx.cwd, p)), { onWarning })).cases;
  } else {
    cases = (await discoverFixtures({ projectDir: ctx.projectDir, env: env.raw, onWarning })).cases;
  }
  if (flags.suite?.length) cases = selectCases(cases, { suites: flags.suite });
  const rules = flags.rules ? loadRulesFile(resolve(ctx.cwd, flags.rules)) : [];
  const toolsetSpec = flags.toolset && !/^(builtin|mcp):/.test(flags.toolset) ? resolve(ctx.cwd, flags.toolset) : flags.toolset;
  const cache = new Map<string, Toolset>();
  const load = async (spec: string): Promise<Toolset> => {
    let ts = cache.get(spec);
    if (!ts) {
      ts = await loadToolset(spec, { projectDir: ctx.projectDir, env: env.raw });
      cache.set(spec, ts);
    }
    return ts;
  };
  // Each case gets the toolset `run` would give it, so a live run and its traces score the same.
  const byCase = new Map<Case, Toolset>();
  for (const c of cases) byCase.set(c, await load(toolsetSpecFor(c, toolsetSpec, env, config)));
  const ruleToolset = toolsetSpec ? await load(toolsetSpec) : undefined;
  if (rules.some((r) => r.validateArgs) && !ruleToolset) ctx.warn('rules with validate_args need --toolset; those checks are skipped');
  const toolMode = firstSet<ToolMode | undefined>(flags.toolMode, undefined, config.llm?.tool_mode, undefined).value;
  const scorer: TraceScorerOptions = { cases, rules, toolsetFor: (c) => byCase.get(c) };
  if (ruleToolset) scorer.toolset = ruleToolset;
  if (toolMode) scorer.toolMode = toolMode;
  if (flags.validateArgs) scorer.validateArgs = true;
  for (const w of env.warnings) ctx.warn(w);
  env.warnings.length = 0;
  const sinks = createVerdictSinks(ctx, flags, env, config);
  return { scorer, env, config, cases, rules, sinks };
}

function createVerdictSinks(ctx: CliContext, flags: TraceScoringFlags, env: Env, config: ConfigFile): VerdictSinks {
  let telemetry: Telemetry | undefined;
  let annotationsUrl: string | undefined;
  let apiKey: string | undefined;
  let langsmith: TelemetryConfig['langsmith'];
  if (flags.export || flags.annotate) {
    const tflags: { telemetry: boolean; endpoint?: string; langsmithFeedback?: boolean; feedbackOnly: boolean } = { telemetry: true, feedbackOnly: true };
    if (flags.otlpEndpoint) tflags.endpoint = flags.otlpEndpoint;
    if (flags.langsmithFeedback !== undefined) tflags.langsmithFeedback = flags.langsmithFeedback;
    const cfg = resolveTelemetryConfig({ flags: tflags, env, file: config.telemetry, projectDir: ctx.projectDir });
    for (const w of env.warnings) ctx.warn(w);
    env.warnings.length = 0;
    if (flags.export) {
      if (cfg.exporter.kind === 'file') ctx.warn(`--export: no OTLP endpoint configured; verdict spans go to ${cfg.exporter.dir}`);
      telemetry = createTelemetry(cfg, { onWarning: (w) => ctx.warn(w) });
    }
    if (flags.annotate) {
      langsmith = cfg.langsmith;
      // With LangSmith feedback on, Phoenix is posted to only when asked for by URL or [telemetry] eval_annotations.
      annotationsUrl = flags.phoenixUrl ?? (langsmith && !config.telemetry?.eval_annotations ? undefined : cfg.annotationsUrl);
      apiKey = cfg.apiKey;
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
      const { buildLangSmithFeedback, postLangSmithFeedback } = await import('../../telemetry/langsmith.js');
      const r = await postLangSmithFeedback({
        endpoint: langsmith.endpoint,
        feedback: buildLangSmithFeedback(batch),
        maxWaitMs: langsmith.maxWaitMs,
        ...(langsmith.apiKey !== undefined ? { apiKey: langsmith.apiKey } : {}),
        ...(langsmith.backoffMs !== undefined ? { backoffMs: langsmith.backoffMs } : {}),
      });
      if (r.warning) ctx.warn(r.warning);
    }
    if (!annotationsUrl) return;
    const opts: Parameters<typeof postSpanAnnotations>[0] = { baseUrl: annotationsUrl, annotations: buildSpanAnnotations(batch) };
    if (apiKey) opts.apiKey = apiKey;
    const r = await postSpanAnnotations(opts);
    if (r.warning) ctx.warn(r.warning);
  };
  return {
    add(outcome) {
      if (outcome.kind !== 'scored') return;
      for (const v of outcome.verdicts) {
        const target = { traceId: outcome.info.traceId, spanId: outcome.info.rootSpanId };
        if (telemetry?.tracer) {
          try {
            const input: Parameters<typeof emitVerdictSpan>[1] = { target, verdict: v.verdict };
            if (v.caseId !== undefined) input.caseId = v.caseId;
            if (v.rule !== undefined) input.rule = v.rule;
            emitVerdictSpan(telemetry.tracer, input);
          } catch (err) {
            ctx.warn(`--export: verdict span not emitted (${(err as Error).message})`);
          }
        }
        if (annotationsUrl || langsmith) pending.push({ spanId: target.spanId, caseId: v.caseId ?? v.rule ?? v.verdict.caseId, sample: v.verdict.sample, verdict: v.verdict });
      }
    },
    flushAnnotations,
    async close() {
      await flushAnnotations();
      await telemetry?.shutdown();
    },
  };
}

/** A commander parser for an integer option ≥ min; a bad value is a usage error (exit 2). */
export function intOption(name: string, min: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError('USAGE', `${name}: expected an integer ≥ ${min} (got ${JSON.stringify(v)})`);
    return n;
  };
}

/** `--shard I/N`, 1 ≤ I ≤ N. */
export function parseTraceShard(spec: string | undefined): { index: number; count: number } | undefined {
  if (spec === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError('USAGE', `--shard: expected I/N with 1 ≤ I ≤ N (got ${JSON.stringify(spec)})`, { hint: 'e.g. --shard 2/4' });
  }
  return { index, count };
}

interface ScoreFlags extends TraceScoringFlags {
  output: ScoreOutputFormat;
  out?: string;
  shard?: string;
  maxTraces?: number;
}

function exitCodeOf(s: ScoreSummary): number {
  if (s.badFiles.length) return 2;
  return s.failed > 0 ? 1 : 0;
}

async function score(ctx: CliContext, inputs: string[], flags: ScoreFlags): Promise<number> {
  const shard = parseTraceShard(flags.shard);
  const setup = await loadTraceScoring(ctx, flags);
  const lines: TraceVerdictLine[] = [];
  let file: WriteStream | undefined;
  const streaming = flags.output === 'jsonl';
  if (flags.out) file = createWriteStream(resolve(ctx.cwd, flags.out));
  const write = (text: string): void => {
    if (file) file.write(text + '\n');
    else ctx.out(text);
  };
  let summary: ScoreSummary;
  try {
    summary = await scoreTraceFiles(inputs, {
      ...setup.scorer,
      cwd: ctx.cwd,
      stdin: process.stdin,
      ...(shard ? { shard } : {}),
      ...(flags.maxTraces !== undefined ? { maxOpenTraces: flags.maxTraces } : {}),
      onOutcome: (o) => {
        setup.sinks.add(o);
        if (o.kind !== 'scored') return;
        for (const l of o.lines) {
          if (streaming) write(verdictLineJson(l));
          else lines.push(l);
        }
      },
    });
  } finally {
    await setup.sinks.close();
  }
  if (flags.output === 'jsonl') ctx.err(renderSummaryTable(summary));
  else if (flags.output === 'table') write(renderTable(lines, summary));
  else if (flags.output === 'json') write(renderJson(lines, summary));
  else if (flags.output === 'junit') write(renderJunit(lines, summary));
  else write(renderMarkdown(lines, summary));
  for (const f of summary.badFiles) ctx.err(`error: ${f}: nothing readable (expected OTLP JSON, JSON lines or length-prefixed protobuf)`);
  if (file) await new Promise<void>((r) => file!.end(() => r()));
  return exitCodeOf(summary);
}

export const scoreCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('score')
      .description('Score OTLP traces offline (files, directories or - for stdin)')
      .argument('<inputs...>', 'OTLP JSON / JSON lines / length-prefixed protobuf files (gzip ok), directories, or -');
    addTraceScoringOptions(cmd)
      .addOption(new Option('--output <format>', 'jsonl (verdict lines; summary on stderr), table, json, junit or md').choices([...SCORE_OUTPUT_FORMATS]).default('jsonl'))
      .option('--out <file>', 'write the output to a file instead of stdout')
      .option('--shard <i/n>', 'score only traces whose trace-id hash (FNV-1a 32-bit mod n, 1-based) is i')
      .option('--max-traces <n>', 'open traces held in memory before the oldest is scored early (counted as evicted)', intOption('--max-traces', 1))
      .addHelpText(
        'after',
        `
Input: whole ExportTraceServiceRequest / ExportLogsServiceRequest documents, one per line (the Collector
file exporter's json format), or its proto format (4-byte big-endian length prefix); gzip is detected by
its magic bytes; directories are read recursively. Span lists saved from Phoenix's REST API
(GET /v1/projects/{p}/spans, or .../spans/otlpv1) are read too. Log records with event.name gen_ai.choice join their
spans by trace and span id.
Matching: runspec.eval.case_id on the trace, else a case's [match] rule (prompt regex / attributes);
--rules apply to every trace. Without cases and rules, one line per trace shows what was extracted.
Arguments exist only on traces recorded with content capture (run --capture-content,
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); without them, argument checks see no arguments.
Exit: 0 all verdicts pass, 1 some fail, 2 bad input (missing or unreadable file), 3 infrastructure.

Examples:
  runspec-eval score traces/ --rules rules.toml --output table
  zcat export.jsonl.gz | runspec-eval score - --cases evals/ --output junit --out score.xml
  runspec-eval score archive/ --shard 2/4 --export`,
      )
      .action(action(getContext, setExit, (ctx, inputs: string[], o: ScoreFlags) => score(ctx, inputs, o)));
  },
};
