// Builders for OTLP/JSON test traces that follow each producer's published conventions.
import type { OtlpAnyValue, OtlpKeyValue, OtlpLogRecord, OtlpLogsRequest, OtlpSpan, OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { createTraceAssembler } from '../../src/traces/assembler.js';
import type { AssembledTrace } from '../../src/traces/assembler.js';
import { logsFromRequest, spansFromRequest } from '../../src/traces/spans.js';

export const BASE_NS = 1_767_225_600_000_000_000n;

export function traceId(n: number): string {
  return n.toString(16).padStart(32, '0').replace(/^0/, 'a');
}
export function spanId(n: number): string {
  return n.toString(16).padStart(16, '0').replace(/^0/, 'b');
}

export function anyValue(v: unknown): OtlpAnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  if (v && typeof v === 'object') return { kvlistValue: { values: kv(v as Record<string, unknown>) } };
  return {};
}

export function kv(attrs: Record<string, unknown>): OtlpKeyValue[] {
  return Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export interface SpanSpec {
  trace: number;
  id: number;
  parent?: number;
  name: string;
  kind?: number;
  /** ms after BASE. */
  start: number;
  end?: number | null;
  attrs?: Record<string, unknown>;
  events?: Array<{ name: string; at?: number; attrs?: Record<string, unknown> }>;
  error?: boolean;
}

export function span(s: SpanSpec): OtlpSpan {
  const ns = (ms: number): string => String(BASE_NS + BigInt(Math.round(ms * 1e6)));
  const out: OtlpSpan = {
    traceId: traceId(s.trace),
    spanId: spanId(s.id),
    name: s.name,
    kind: s.kind ?? 1,
    startTimeUnixNano: ns(s.start),
    attributes: kv(s.attrs ?? {}),
  };
  if (s.end !== null) out.endTimeUnixNano = ns(s.end ?? s.start + 1);
  if (s.parent !== undefined) out.parentSpanId = spanId(s.parent);
  if (s.events) out.events = s.events.map((e) => ({ name: e.name, timeUnixNano: ns(e.at ?? s.start), attributes: kv(e.attrs ?? {}) }));
  if (s.error) out.status = { code: 2, message: 'failed' };
  return out;
}

export function request(spans: OtlpSpan[], resource: Record<string, unknown> = { 'service.name': 'agent' }): OtlpTraceRequest {
  return { resourceSpans: [{ resource: { attributes: kv(resource) }, scopeSpans: [{ scope: { name: 'test' }, spans }] }] };
}

export function logRecord(o: { trace: number; span: number; eventName: string; body: unknown; at?: number; viaAttribute?: boolean }): OtlpLogRecord {
  const rec: OtlpLogRecord = {
    traceId: traceId(o.trace),
    spanId: spanId(o.span),
    timeUnixNano: String(BASE_NS + BigInt(Math.round((o.at ?? 0) * 1e6))),
    body: anyValue(o.body),
  };
  if (o.viaAttribute) rec.attributes = kv({ 'event.name': o.eventName });
  else rec.eventName = o.eventName;
  return rec;
}

export function logsRequest(records: OtlpLogRecord[]): OtlpLogsRequest {
  return { resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] };
}

/** Spans (and logs) → assembled traces, in first-seen order. */
export function assemble(req: OtlpTraceRequest | OtlpTraceRequest[], logs?: OtlpLogsRequest): AssembledTrace[] {
  const asm = createTraceAssembler({ quiet: 1 });
  for (const r of Array.isArray(req) ? req : [req]) asm.addSpans(spansFromRequest(r, 'test').spans, 0);
  if (logs) asm.addLogs(logsFromRequest(logs, 'test', 'event.name').logs, 0);
  return asm.flush();
}

export function one(req: OtlpTraceRequest | OtlpTraceRequest[], logs?: OtlpLogsRequest): AssembledTrace {
  const traces = assemble(req, logs);
  if (traces.length !== 1) throw new Error(`expected one trace, got ${traces.length}`);
  return traces[0]!;
}
