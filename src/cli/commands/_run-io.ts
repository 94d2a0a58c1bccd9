// What only a terminal front end adds to a suite run: Ctrl-C handling, the progress bar, and printing
// the outcome. The run itself is `runEvalSuite` in app/.

import { closeSync, openSync, readSync } from 'node:fs';
import { problemsOf, type ExecuteResult, type RunEvalOutcome, type RunProgress } from '../../app/run-suite.js';
import { renderComparison, type ComparisonFormat } from '../../report/comparison.js';
import type { OutputFormat } from '../../report/formats.js';
import type { CliContext } from '../context.js';
import { ensureNewline } from './_run-options.js';
import { loadConfigFile } from '../../config/file.js';
import { handleInterrupts } from './_interrupt.js';
import { createEventLoopTurns } from '../../core/event-loop-turns.js';

/**
 * Run `fn` with a signal that the first SIGINT or SIGTERM aborts (in-flight samples finish as
 * cancelled); a second one kills running commands and exits at once.
 */
export async function withInterrupt<T>(ctx: CliContext, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const stop = handleInterrupts(ctx, ac);
  try {
    return await fn(ac.signal);
  } finally {
    stop();
  }
}

/** A progress bar on stderr when it is a terminal; otherwise none (and cli-progress never loads). */
export async function progressBar(ctx: CliContext): Promise<RunProgress | undefined> {
  return ctx.stderr.isTTY ? (await import('./_progress-bar.js')).terminalProgressBar(ctx) : undefined;
}

/** Print what went wrong besides verdicts (stale recording, provider down, interruption). */
export function reportProblems(ctx: CliContext, r: ExecuteResult): void {
  for (const line of problemsOf(r)) ctx.err(line);
}

/**
 * Print a suite run's outcome: the report on stdout (the comparison with `compare`), where results and
 * the recording went, and problems on stderr. Returns the exit code.
 */
export async function printOutcome(ctx: CliContext, command: string, outcome: RunEvalOutcome, format: OutputFormat | undefined): Promise<number> {
  if (outcome.noCases) {
    ctx.err(`${command}: no cases selected`);
    return 2;
  }
  if (outcome.comparison) {
    for (const { label, result } of outcome.runs) {
      if (!result.interrupted) ctx.err(`results (${label}): ${result.finalFile}`);
      reportProblems(ctx, result);
    }
    // runEvalSuite refused any other format before running.
    const f: ComparisonFormat = format === 'json' || format === 'md' ? format : 'table';
    ctx.stdout.write(ensureNewline(renderComparison(outcome.comparison, f)));
    return outcome.exitCode;
  }
  const run = outcome.runs[0];
  if (!run) return outcome.exitCode;
  const r = run.result;
  if (outcome.recording) ctx.err(`recording: ${outcome.recording}`);
  if (outcome.recording && !r.interrupted) ctx.err(`results: ${r.finalFile}`);
  await writeRunReport(ctx, r, format ?? 'table');
  if (!outcome.recording && !r.interrupted) ctx.err(`results: ${r.finalFile}`);
  reportProblems(ctx, r);
  return outcome.exitCode;
}

/**
 * Print the report of a run. `json` is the results file itself, copied in chunks (a large run never
 * holds its document); other formats read the document back and render it (the renderers load then).
 */
async function writeRunReport(ctx: CliContext, r: ExecuteResult, format: OutputFormat): Promise<void> {
  if (format === 'json' && !r.interrupted) {
    const fd = openSync(r.finalFile, 'r');
    try {
      // Bytes as they are, through one buffer while stdout takes each chunk at once (a file or a pipe:
      // synchronous on Linux); a stream that queues a chunk keeps its buffer, and the next read gets a new
      // one. A fresh copy (or a decoded string) per chunk added ~20 MB of garbage to a 100,000-case run's peak.
      // The event loop gets a turn every few milliseconds: a 100,000-case document is 200 MB.
      let buf = Buffer.allocUnsafe(1 << 20);
      const turns = createEventLoopTurns();
      for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
        ctx.stdout.write(buf.subarray(0, n));
        if ((ctx.stdout as { writableLength?: number }).writableLength !== 0) buf = Buffer.allocUnsafe(1 << 20);
        if (turns.due()) await turns.take();
      }
    } finally {
      closeSync(fd);
    }
    return;
  }
  const { renderDocument } = await import('../../report/render.js');
  ctx.stdout.write(ensureNewline(renderDocument(r.doc, format, format === 'html' ? traceUrlOf(ctx.projectDir) : {})));
}

/**
 * `[telemetry] trace_url` of runspec.toml (a Phoenix or LangSmith link template with `{trace_id}`) for the
 * HTML report, read loosely: a config without the key, or one that does not load, gives no links.
 */
export function traceUrlOf(projectDir: string): { traceUrl?: string } {
  try {
    const t = loadConfigFile(projectDir).telemetry as Record<string, unknown> | undefined;
    return typeof t?.trace_url === 'string' ? { traceUrl: t.trace_url } : {};
  } catch {
    return {};
  }
}
