import { describe, expect, it } from 'vitest';
import type { TelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry } from '../../src/telemetry/telemetry.js';
import type { SpanRecord } from '../../src/types/span.js';
import { ATTR_RUNSPEC_EVAL_CATEGORY } from '../../src/semconv/attributes.js';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, T0, decisionRun, decisionVerdict, otlpConfig } from './_fixtures.js';

function config(url: string): TelemetryConfig {
  return otlpConfig(url, { protocol: 'http/json', timeoutMs: 5000, project: 'evals' });
}

const TRACE = 'a'.repeat(32);
const ROOT = '1'.repeat(16);
const span = (spanId: string, parentSpanId: string | undefined, name: string, extra: Partial<SpanRecord> = {}): SpanRecord => ({
  traceId: TRACE,
  spanId,
  ...(parentSpanId ? { parentSpanId } : {}),
  name,
  kind: 1,
  startTimeMs: T0,
  endTimeMs: T0 + 10,
  attributes: {},
  events: [],
  links: [],
  statusCode: 0,
  resource: { 'service.name': 'agent' },
  scopeName: 'agent-scope',
  ...extra,
});

describe('an agent target case as telemetry', () => {
  it('exports the captured spans with their ids, once each, under the case root re-emitted with the verdict', async () => {
    const sink = await startOtlpSink();
    try {
      const telemetry = createTelemetry(config(sink.url));
      const captured = [
        span(ROOT, undefined, 'invoke_agent agent', { attributes: { 'runspec.target.case_id': DECISION_CASE.id } }),
        span('2'.repeat(16), ROOT, 'chat fake-model', {
          kind: 3,
          statusCode: 2,
          statusMessage: 'boom',
          attributes: { 'gen_ai.request.model': 'fake-model', nested: { a: 1 }, mixed: [1, 'x'], list: ['a', 'b'] },
        }),
        span('3'.repeat(16), '2'.repeat(16), 'execute_tool x', {
          events: [{ name: 'note', timeMs: T0 + 5, attributes: { k: 'v' } }],
          resource: { 'service.name': 'agent', 'openinference.project.name': 'own' },
        }),
      ];
      const ids = telemetry.emitAgentCase(
        { case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), result: DECISION_RESULT, runId: 'r' },
        { traceId: TRACE, rootSpanId: ROOT, spans: captured },
      );
      expect(ids).toMatchObject({ traceId: TRACE, rootSpanId: ROOT, llmSpanIds: [], toolSpanIds: [] });
      await telemetry.shutdown();
      const spans = sink.spans();
      const key = (s: { traceId: string; spanId: string; parentSpanId?: string }): string => `${s.traceId}/${s.spanId}/${s.parentSpanId ?? ''}`;
      expect(spans.map(key).toSorted((a, b) => a.localeCompare(b))).toEqual(captured.map(key).toSorted((a, b) => a.localeCompare(b)));
      const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
      const root = byName['invoke_agent agent']!;
      expect(root.attributes).toMatchObject({ 'runspec.target.case_id': DECISION_CASE.id, [ATTR_RUNSPEC_EVAL_CATEGORY]: decisionVerdict('dedup').category });
      expect(root.events.map((e) => e.name)).toEqual(['gen_ai.evaluation.result']);
      expect(root.resource['service.name']).toBe('runspec-test');
      const chat = byName['chat fake-model']!;
      expect(chat.kind).toBe(3);
      // Without content capture the status message (often a tool's error result) stays out.
      expect(chat.status).toEqual({ code: 2 });
      // What the API cannot carry as an attribute arrives as JSON text; the rest as it was.
      expect(chat.attributes).toEqual({ 'gen_ai.request.model': 'fake-model', nested: '{"a":1}', mixed: '[1,"x"]', list: ['a', 'b'] });
      expect(chat.scope.name).toBe('agent-scope');
      // The agent's resource stays its own; the run's project fills in only where it names none.
      expect(chat.resource).toEqual({ 'service.name': 'agent', 'openinference.project.name': 'evals' });
      const tool = byName['execute_tool x']!;
      expect(tool.resource).toEqual({ 'service.name': 'agent', 'openinference.project.name': 'own' });
      expect(tool.events).toMatchObject([{ name: 'note', attributes: { k: 'v' } }]);
      expect(BigInt(tool.startTimeUnixNano)).toBe(BigInt(T0) * 1_000_000n);
    } finally {
      await sink.close();
    }
  });

  it('keeps the nanoseconds the spans arrived with, and carries a rounded millisecond fraction into the second', async () => {
    const sink = await startOtlpSink();
    try {
      const telemetry = createTelemetry(config(sink.url));
      // 1700000000.999999999 s: a double in milliseconds cannot hold it (the reader's ms are rounded); the text can.
      const exact = {
        startTimeMs: 1_700_000_001_000,
        startTimeUnixNano: '1700000000999999999',
        endTimeMs: 1_700_000_001_000,
        endTimeUnixNano: '1700000001000000001',
      };
      const captured = [
        span(ROOT, undefined, 'invoke_agent agent'),
        span('2'.repeat(16), ROOT, 'exact', {
          ...exact,
          events: [{ name: 'e', timeMs: exact.startTimeMs, timeUnixNano: '1700000000999999999', attributes: {} }],
        }),
        // Only milliseconds (no OTLP text): 999.9999999 ms has a fraction that rounds to 1e6 ns, which moves into the next second.
        span('3'.repeat(16), ROOT, 'ms-only', { startTimeMs: 999.999_999_9, endTimeMs: 1500 }),
      ];
      telemetry.emitAgentCase(
        { case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), result: DECISION_RESULT, runId: 'r' },
        { traceId: TRACE, rootSpanId: ROOT, spans: captured },
      );
      await telemetry.shutdown();
      const byName = Object.fromEntries(sink.spans().map((s) => [s.name, s]));
      expect(byName.exact).toMatchObject({ startTimeUnixNano: '1700000000999999999', endTimeUnixNano: '1700000001000000001' });
      expect(byName.exact!.events[0]!.timeUnixNano).toBe('1700000000999999999');
      expect(byName['ms-only']).toMatchObject({ startTimeUnixNano: '1000000000', endTimeUnixNano: '1500000000' });
    } finally {
      await sink.close();
    }
  });
});
