import { createLineBatcher } from '../../core/line-batcher.js';
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { openOutputFile } from '../../report/out-path.js';
import { Option } from 'commander';
import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../errors.js';
// The formatters are light; the scorer (app/score-traces) loads when a command runs, so `score --help`
// and `serve --help` start fast.
import { SCORE_OUTPUT_FORMATS, renderSummaryTable } from '../../traces/format.js';
import type { ScoreOutputFormat } from '../../traces/format.js';
import type { TraceScoringFlags } from '../../app/score-traces.js';
import type { ResultsDocument } from '../../report/results.js';
import { TOOL_MODES } from '../../core/vocabulary.js';
import { parseShard, SHARD_HELP } from '../../core/shard.js';
import { capHeapGrowth } from './_heap.js';
import { commaList } from './_comma-list.js';

/** Add the case / rule / toolset / annotate / export options shared by `score` and `serve`. */
export function addTraceScoringOptions(cmd: Command): Command {
  return cmd
    .option('--cases <paths...>', "fixture files or directories whose cases grade the traces (default: the project's fixtures)")
    .option('--suite <names>', 'only cases of these suites (comma-separated or repeated)', commaList)
    .option('--toolset <spec>', 'toolset: a file, builtin:fleet, builtin:workspace or mcp:... (default: as `run` picks it)')
    .addOption(new Option('--tool-mode <mode>', 'layout the traced model saw, when the trace does not say').choices([...TOOL_MODES]))
    .option('--validate-args', 'check arguments against the toolset (bounce buckets), as `run --validate-args`')
    .option('--rules <file>', 'case-less rules (TOML) applied to every trace; see examples/rules.toml')
    .option('--annotate', "post each verdict to Phoenix as a span annotation on the trace's root span")
    .option('--phoenix-url <url>', 'Phoenix base URL for --annotate (default: derived from the telemetry endpoint)')
    .option('--langsmith-feedback', "with --annotate, post each verdict as LangSmith feedback on the root span's run (LANGSMITH_ENDPOINT, LANGSMITH_API_KEY)")
    .option('--export', 'send one verdict span per scored trace (linked to its root) to the OTLP endpoint')
    .option('--otlp-endpoint <url>', 'OTLP traces endpoint for --export (default: OTEL_EXPORTER_OTLP_* / runspec.toml)');
}

/** A commander parser for an integer option ≥ min; a bad value is a usage error (exit 2). */
export function intOption(name: string, min: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError('USAGE', `${name}: expected an integer ≥ ${min} (got ${JSON.stringify(v)})`);
    return n;
  };
}

interface ScoreFlags extends TraceScoringFlags {
  output: ScoreOutputFormat;
  out?: string;
  shard?: string;
  maxTraces?: number;
  maxOpenBytes?: number;
  failOnUnscorable?: boolean;
  /** Also write the verdicts as a results document (what `run` writes), for `report` and the console. */
  results?: string;
}

/** The results document in a `score --output` format other than jsonl: the renderers of `report`. */
async function renderDocument(doc: ResultsDocument, output: Exclude<ScoreOutputFormat, 'jsonl'>): Promise<string> {
  const { renderDocument: render } = await import('../../report/render.js');
  return render(doc, output).trimEnd();
}

async function score(ctx: CliContext, inputs: string[], flags: ScoreFlags): Promise<number> {
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
  let file: WriteStream | undefined;
  const streaming = flags.output === 'jsonl';
  if (flags.out) {
    const out = resolve(ctx.cwd, flags.out);
    file = createWriteStream(out, { fd: openOutputFile(out, '--out', 'w') });
  }
  // Lines are written as they are scored; while the output is behind (a full pipe), reading waits for it
  // to drain, so unwritten lines never pile up in memory (a slow reader of a pipe once held 60 MB of them).
  const output: NodeJS.WritableStream = file ?? ctx.stdout;
  let drained: Promise<void> | undefined;
  const write = (text: string): void => {
    // A stream asks to wait by returning false (a test's plain writer returns nothing: it never waits).
    if (output.write(text + '\n') !== false || drained || typeof output.once !== 'function') return;
    // A destroyed stream emits neither 'drain' nor 'close' again: waiting on it would never end.
    if ((output as { destroyed?: boolean }).destroyed === true) return;
    drained = new Promise<void>((r) => {
      const done = (): void => {
        output.off('drain', done);
        output.off('close', done);
        drained = undefined;
        r();
      };
      output.on('drain', done);
      // A stream that failed closes (its error is reported where it always was).
      output.on('close', done);
    });
  };
  const lines = createLineBatcher(write);
  const { shard: _spec, failOnUnscorable, results: resultsFile, ...scoring } = flags;
  const { scoreExitCode, scoreTraces } = await import('../../app/score-traces.js');
  const { verdictLineJson } = await import('../../report/verdict-line.js');
  // The scorer's live heap is bounded (--max-open-bytes), but it allocates fast, and V8 then lets the heap
  // grow to ~4× what survives a collection: 500 MB of JSON lines peaked at 350 MB RSS with ~70 MB live.
  // A 1.5× growing factor keeps it under 250 MB at any input size, for a few more collections (1.8× saved
  // ~3 % of CPU but peaked at 213 MB on 1.5 GB of input against 193 MB, and was still creeping up).
  capHeapGrowth();
  const { summary, document } = await scoreTraces(ctx, inputs, {
    ...scoring,
    stdin: ctx.stdin,
    ...(shard ? { shard } : {}),
    // Every output but the JSON-lines stream renders the results document `run` writes, with the
    // renderers of `report`; every trace is judged once, final, so both show the same verdicts.
    ...(resultsFile || !streaming ? { results: true } : {}),
    ...(streaming ? { onLine: (l) => lines.add(verdictLineJson(l)), outputReady: () => drained } : {}),
  }).finally(() => lines.flush());
  if (streaming) ctx.err(renderSummaryTable(summary));
  else if (document && flags.output !== 'jsonl') write(await renderDocument(document, flags.output));
  for (const f of summary.badFiles) ctx.err(`error: ${f}: nothing readable (expected OTLP JSON, JSON lines or length-prefixed protobuf)`);
  // Nothing read at all is bad input, not a clean pass with an empty report (an empty shard is fine).
  const nothingRead = summary.traces === 0 && summary.badFiles.length === 0 && !shard;
  if (nothingRead) ctx.err('error: no trace could be read from the input, so nothing was scored (expected OTLP JSON, JSON lines or length-prefixed protobuf)');
  if (file) await new Promise<void>((r) => file!.end(() => r()));
  if (resultsFile && document) {
    const { writeResultsDocument } = await import('../../report/results-docs.js');
    const path = resolve(ctx.cwd, resultsFile);
    writeResultsDocument(path, document);
    ctx.err(`results: ${path} (render it with \`runspec-eval report ${resultsFile} --output html\`)`);
  }
  return nothingRead ? 2 : scoreExitCode(summary, { failOnUnscorable: failOnUnscorable === true });
}

export const scoreCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('score')
      .description('Score OTLP traces offline (files, directories or - for stdin)')
      .argument('<inputs...>', 'OTLP JSON / JSON lines / length-prefixed protobuf files (gzip ok), directories, or -');
    addTraceScoringOptions(cmd)
      .addOption(
        new Option(
          '--output <format>',
          'jsonl (verdict lines, streamed; summary on stderr); table, json (the results document), junit or md render the results document as `report` does, with an inputs section (unmatched and uninterpretable traces, input problems)',
        )
          .choices([...SCORE_OUTPUT_FORMATS])
          .default('jsonl'),
      )
      .option('--out <file>', 'write the output to a file instead of stdout')
      .option('--shard <i/n>', SHARD_HELP)
      .option(
        '--results <file>',
        'also write the verdicts as a results JSON (one case per case or rule, one run per trace), as `run --out` does; `report` renders it',
      )
      .option('--max-traces <n>', 'open traces held in memory before the oldest is scored early (counted as evicted)', intOption('--max-traces', 1))
      .option(
        '--max-open-bytes <n>',
        'estimated bytes of open traces held before the oldest is scored early (default 32 MiB)',
        intOption('--max-open-bytes', 1024),
      )
      .option('--fail-on-unscorable', 'exit 1 when any verdict is unscorable (a needed check could not be judged) or incomplete')
      .addHelpText(
        'after',
        `
Input: whole ExportTraceServiceRequest / ExportLogsServiceRequest documents, one per line (the Collector
file exporter's json format), or its proto format (4-byte big-endian length prefix); gzip is detected by
its magic bytes; directories are read recursively. Span lists saved from Phoenix's REST API
(GET /v1/projects/{p}/spans, or .../spans/otlpv1) are read too. Log records with event.name gen_ai.choice join their
spans by trace and span id.
Completion: a trace is judged as soon as it is whole (every root span ended, every parent present; a
SERVER/CONSUMER span called from an uncollected service counts as a root), the
rest at the end of input (as "incomplete" when still not whole), so verdicts never depend on read speed and
--shard adds up to the unsharded run. A whole trace is held 1,000 more records for late spans, then judged
once: every line is final (revision 0, final: true); spans after that are counted as late. Memory is
bounded by the estimated bytes of open traces (--max-open-bytes).
Matching: runspec.eval.case_id on the trace, else a case's [match] rule (prompt regex / attributes);
--rules apply to every trace. Without cases and rules, one line per trace shows what was extracted.
Arguments exist only on traces recorded with content capture (run --capture-content,
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) or hashed capture (capture_content = "hashed",
re-checked with the same RUNSPEC_HASH_KEY). A check whose data is not on the trace is not checkable: the
verdict is then "unscorable" (naming what was missing), never a false failure or a false pass.
Exit: 0 no verdict fails, 1 some fail (or, with --fail-on-unscorable, some are unscorable), 2 bad input
(missing or unreadable file), 3 infrastructure.

Examples:
  runspec-eval score traces/ --rules rules.toml --output table
  zcat export.jsonl.gz | runspec-eval score - --cases evals/ --output junit --out score.xml
  runspec-eval score archive/ --shard 2/4 --export`,
      )
      .action(action(getContext, setExit, (ctx, inputs: string[], o: ScoreFlags) => score(ctx, inputs, o)));
  },
};
