// The JSON line of `score` and `serve`: a trace's judgement as a run entry of the results document (one
// schema, results-schema.ts), built by runEntryOf like every sample of a run, plus where the trace lives,
// what graded it and its revision. A line read back (the console, `report`) is decoded as any run entry.
import type { ObservedCallLine, TraceVerdictLine } from '../types/trace-verdict.js';
import type { ToolCall } from '../types/run.js';
import { matchToJson, observedToJson, replioToJson, runEntryOf } from './results-encode.js';
import { sampleScore } from '../scoring/summary.js';
import type { RunEntry } from './results-schema.js';

/**
 * A trace's judgement as a run entry: `status` `scored` with its verdict, or `unmatched` (verdict null) when
 * no case or rule applied; `pass` null where the verdict is not an evaluation (unscorable, incomplete, error).
 * @example JSON.stringify(traceRunEntry(line)) // {"trace_id":"…","root_span_id":"…","case":"restart-nginx","sample":0,"status":"scored",…}
 */
export function traceRunEntry(line: TraceVerdictLine): RunEntry {
  // The trace's calls as the sample's calls (the verdict's observed arguments point into them, as in a run).
  const calls: ToolCall[] = line.calls.map((c) => ({ id: c.id ?? '', name: c.name, arguments: c.arguments }));
  const entry: RunEntry = line.verdict
    ? {
        ...runEntryOf({ status: 'scored', sample: line.sample, verdict: { ...line.verdict, calls }, elapsedMs: 0, tokens: line.verdict.replio?.tokens ?? 0 }),
        pass: line.pass,
      }
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

/**
 * One JSON line per judgement (the stable machine format of `score --output jsonl` and `serve`):
 * `JSON.stringify(traceRunEntry(line))`, byte for byte. A scored line is written field by field in the run
 * entry's order instead, without building the entry (with its copies of the verdict and of every call):
 * at 50 MB of traces the entries were a tenth of all allocation. test/report/verdict-line-json.test.ts
 * compares the two.
 */
export function verdictLineJson(line: TraceVerdictLine): string {
  const v = line.verdict;
  if (!v) return JSON.stringify(traceRunEntry(line));
  // The nested parts read only the calls' names and arguments, which the trace's calls carry.
  const calls = line.calls as readonly ObservedCallLine[] as unknown as readonly ToolCall[];
  const m = v.match;
  let names = '';
  let args = '';
  let seen = '';
  for (let i = 0; i < calls.length; i++) {
    const c = line.calls[i]!;
    const sep = i === 0 ? '' : ',';
    const name = S(c.name);
    names += sep + name;
    args += c.arguments === undefined ? `${sep}{}` : `${sep}{${name}:${S(c.arguments)}}`;
    seen += `${sep}{${c.id ? `"id":${S(c.id)},` : ''}"name":${name}${field(',"executed":', c.executed)}${c.isError ? ',"is_error":true' : ''}${c.reconstructed ? ',"reconstructed":true' : ''}}`;
  }
  const e = v.expected;
  let verdict = `{${field('"category":', v.category)}${field(',"reason":', v.reason)}${field(',"dialect":', v.dialect)}`;
  verdict += `,"expected":${S({ tool: e.tool, command: e.command, host: e.host, autonomy: e.autonomy, no_run: e.noRun })}`;
  verdict += `,"observed":${S(observedToJson(v.observed, calls))},"tool_mode":${S(v.toolMode ?? null)}`;
  if (v.checks) verdict += `,"checks":${S(v.checks)}`;
  if (v.trace) verdict += field(',"trace_id":', v.trace.traceId) + field(',"root_span_id":', v.trace.rootSpanId);
  if (v.trace?.url) verdict += `,"trace_url":${S(v.trace.url)}`;
  let out = `{"trace_id":${S(line.traceId)},"root_span_id":${S(line.rootSpanId)}`;
  if (line.case !== undefined) out += `,"case":${S(line.case)}`;
  if (line.rule !== undefined) out += `,"rule":${S(line.rule)}`;
  if (line.suite !== undefined) out += `,"suite":${S(line.suite)}`;
  out += `${field(',"sample":', line.sample)},"status":"scored"${field(',"pass":', line.pass)},"score":${S(sampleScore(v))}`;
  out += m
    ? `,"matched":${S(m.matched)},"unmatched":${S(m.unmatched)},"extra_tools":${S(m.extraTools)}${field(',"detail":', m.detail)}`
    : `,"matched":[],"unmatched":[],"extra_tools":[]${field(',"detail":', v.reason)}`;
  out += `,"tool_sequence":[${names}],"tool_args":[${args}],"elapsed":0,"elapsed_ms":0,"tokens":${S(v.replio?.tokens ?? 0)}`;
  out += `${field(',"json_dump":', v.jsonDump)}${field(',"run_status":', v.status)},"verdict":${verdict}}`;
  out += `,"replio":${v.replio ? S(replioToJson(v.replio, calls)) : 'null'},"match":${m ? S(matchToJson(m)) : 'null'}`;
  out += `,"calls":[${seen}],"error":null${field(',"revision":', line.revision)}${field(',"final":', line.final)}${field(',"mode":', line.mode)}`;
  out += field(',"producers":', line.producers);
  if (line.family !== undefined) out += `,"family":${S(line.family)}`;
  if (line.traceUrl !== undefined) out += `,"trace_url":${S(line.traceUrl)}`;
  if (line.supersedes) out += ',"supersedes":true';
  if (line.incomplete) out += ',"incomplete":true';
  if (line.evicted) out += ',"evicted":true';
  return `${out}}`;
}

const S = JSON.stringify;

/** `"key":value` after `prefix`, or nothing for an undefined value (as JSON.stringify leaves the key out). */
function field(prefix: string, value: unknown): string {
  return value === undefined ? '' : prefix + S(value);
}
