// A span as the trace readers hold it and an agent target's trace export takes it back (traces/spans.ts reads
// OTLP into it; telemetry/agent-trace.ts exports it again).

/** A span with its attributes as plain values (kvlist → object, array → array, int64 → number). */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind number (0 unspecified … 5 consumer). */
  kind: number;
  startTimeMs: number;
  /** The OTLP start time as it arrived (decimal nanoseconds), when it was one: exact where `startTimeMs` rounds. */
  startTimeUnixNano?: string;
  /** Absent while the span has not ended (or the writer left it 0). */
  endTimeMs?: number;
  endTimeUnixNano?: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; timeMs: number; timeUnixNano?: string; attributes: Record<string, unknown> }>;
  links: Array<{ traceId: string; spanId: string }>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
  resource: Record<string, unknown>;
  scopeName?: string;
  /** Attributes whose string value was cut at MAX_ATTRIBUTE_CHARS (their original lengths). */
  cutAttributes?: Array<{ key: string; chars: number }>;
}
