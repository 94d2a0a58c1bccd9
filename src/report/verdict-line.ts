// The JSON line of `score` and `serve`: a trace's judgement as a run entry of the results document (one
// schema, results-schema.ts), built by runEntryOf like every sample of a run, plus where the trace lives,
// what graded it and its revision. A line read back (the console, `report`) is decoded as any run entry.
import type { TraceVerdictLine } from '../types/trace-verdict.js';
import type { ToolCall } from '../types/run.js';
import { runEntryOf } from './results-encode.js';
import type { RunEntry } from './results-schema.js';

/**
 * A trace's judgement as a run entry: `status` `scored` with its verdict, or `unmatched` (verdict null) when
 * no case or rule applied; `pass` null where the verdict is not an evaluation (unscorable, incomplete, error).
 * @example JSON.stringify(traceRunEntry(line)) // {"trace_id":"…","root_span_id":"…","case":"restart-nginx","sample":0,"status":"scored",…}
 */
export function traceRunEntry(line: TraceVerdictLine): RunEntry {
  // The trace's calls as the sample's calls (the verdict's observed arguments point into them, as in a run).
  // Pushed, not `.map`ped: optimised code's inlined `.map` makes holey arrays, which deoptimised runEntryOf's
  // readers once ("wrong map"); Array.from costs more than that deopt.
  const calls: ToolCall[] = [];
  for (const c of line.calls) calls.push({ id: c.id ?? '', name: c.name, arguments: c.arguments });
  const entry: RunEntry = line.verdict
    ? withPass(
        runEntryOf({ status: 'scored', sample: line.sample, verdict: { ...line.verdict, calls }, elapsedMs: 0, tokens: line.verdict.replio?.tokens ?? 0 }),
        line.pass,
      )
    : {
        sample: line.sample,
        status: 'unmatched',
        pass: null,
        score: 0,
        matched: [],
        unmatched: [],
        extra_tools: [],
        detail: line.reason,
        tool_sequence: calls.map((c) => c.name),
        tool_args: calls.map((c) => ({ [c.name]: c.arguments })),
        elapsed: 0,
        elapsed_ms: 0,
        tokens: 0,
        json_dump: false,
        run_status: null,
        verdict: null,
        replio: null,
        match: null,
        calls: [],
        error: null,
      };
  entry.calls = line.calls.map((c) => {
    // Two literals, not a spread of a conditional one (V8 clones that slowly: ~3 µs a call).
    const call: RunEntry['calls'][number] = c.id ? { id: c.id, name: c.name, executed: c.executed } : { name: c.name, executed: c.executed };
    if (c.isError) call.is_error = true;
    if (c.reconstructed) call.reconstructed = true;
    return call;
  });
  const out: RunEntry = {
    trace_id: line.traceId,
    root_span_id: line.rootSpanId,
    ...(line.case !== undefined ? { case: line.case } : {}),
    ...(line.rule !== undefined ? { rule: line.rule } : {}),
    ...(line.suite !== undefined ? { suite: line.suite } : {}),
    ...entry,
    revision: line.revision,
    final: line.final,
    mode: line.mode,
    producers: line.producers,
  };
  if (line.family !== undefined) out.family = line.family;
  if (line.traceUrl !== undefined) out.trace_url = line.traceUrl;
  if (line.supersedes) out.supersedes = true;
  if (line.incomplete) out.incomplete = true;
  if (line.evicted) out.evicted = true;
  return out;
}

/** A fresh run entry with the line's `pass` set where it stands (a spread copied the whole entry for it). */
function withPass(entry: RunEntry, pass: boolean | null): RunEntry {
  entry.pass = pass;
  return entry;
}

/** One JSON line per judgement (the stable machine format of `score --output jsonl` and `serve`). */
export function verdictLineJson(line: TraceVerdictLine): string {
  return JSON.stringify(traceRunEntry(line));
}
