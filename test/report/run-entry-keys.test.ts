// A run entry's keys in the order its JSON shows them, whichever optional parts a sample or verdict has:
// results documents and verdict lines are compared byte for byte, so moving a key is a change of output.
import { describe, expect, it } from 'vitest';
import { runEntryOf } from '../../src/report/results-encode.js';
import type { SampleOutcome, Verdict } from '../../src/types/verdict.js';
import { trajectoryVerdict } from '../telemetry/_fixtures.js';

const ENTRY_KEYS = [
  'sample',
  'status',
  'pass',
  'score',
  'matched',
  'unmatched',
  'extra_tools',
  'detail',
  'tool_sequence',
  'tool_args',
  'elapsed',
  'elapsed_ms',
  'tokens',
  'json_dump',
  'run_status',
  'verdict',
  'replio',
  'match',
  'calls',
  'error',
];
const VERDICT_KEYS = ['category', 'reason', 'dialect', 'expected', 'observed', 'tool_mode'];

function verdictWith(parts: { checks?: boolean; trace?: boolean; url?: boolean; toolMode?: boolean }): Verdict {
  const v = trajectoryVerdict();
  v.calls = [{ id: 'c1', name: 'file_read', arguments: { path: 'a' } }];
  if (parts.checks) v.checks = [{ check: 'max_calls', judged: true, pass: true, expected: 3, observed: 1 }];
  if (parts.trace) v.trace = parts.url ? { traceId: 't1', rootSpanId: 's1', url: 'https://example.test/t1' } : { traceId: 't1', rootSpanId: 's1' };
  if (parts.toolMode) v.toolMode = 'dedup';
  return v;
}

describe('runEntryOf key order', () => {
  it.each([
    { name: 'no optional verdict keys', parts: {}, extra: [] },
    { name: 'checks', parts: { checks: true }, extra: ['checks'] },
    { name: 'trace', parts: { trace: true }, extra: ['trace_id', 'root_span_id'] },
    { name: 'trace with url', parts: { trace: true, url: true }, extra: ['trace_id', 'root_span_id', 'trace_url'] },
    {
      name: 'checks, trace with url and tool mode',
      parts: { checks: true, trace: true, url: true, toolMode: true },
      extra: ['checks', 'trace_id', 'root_span_id', 'trace_url'],
    },
  ])('writes the verdict keys in order with $name', ({ parts, extra }) => {
    const entry = runEntryOf({ status: 'scored', sample: 0, verdict: verdictWith(parts), elapsedMs: 5, tokens: 7 });
    expect(Object.keys(entry)).toEqual(ENTRY_KEYS);
    expect(Object.keys(entry.verdict!)).toEqual([...VERDICT_KEYS, ...extra]);
    expect(entry.verdict!.tool_mode).toBe(parts.toolMode ? 'dedup' : null);
  });

  it.each([
    { name: 'a tool log', sample: { toolLog: [{ tool: 'file_read', args: { path: 'a' }, turn: 0 }] }, extra: ['tool_log'] },
    { name: 'a sample trace', sample: { trace: { startTimeMs: 1, durationMs: 2, status: 'ok' as const, steps: [] } }, extra: ['trace'] },
    {
      name: 'both',
      sample: { toolLog: [{ tool: 'file_read', args: { path: 'a' }, turn: 0 }], trace: { startTimeMs: 1, durationMs: 2, status: 'ok' as const, steps: [] } },
      extra: ['tool_log', 'trace'],
    },
  ])('puts $name after the entry keys', ({ sample, extra }) => {
    const outcome: SampleOutcome = { status: 'scored', sample: 0, verdict: verdictWith({ checks: true }), elapsedMs: 5, tokens: 7, ...sample };
    const entry = runEntryOf(outcome);
    expect(Object.keys(entry)).toEqual([...ENTRY_KEYS, ...extra]);
    // The entry's copies are its own: changing them leaves the sample as it was.
    entry.verdict!.checks![0]!.pass = false;
    expect(outcome.verdict.checks![0]!.pass).toBe(true);
  });
});
