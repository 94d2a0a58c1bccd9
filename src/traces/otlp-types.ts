// The OTLP/JSON shape (opentelemetry-proto docs/specification.md "JSON Protobuf Encoding"): the one model
// that JSON files, JSON lines, protobuf files and the OTLP/HTTP receiver all converge on. Ids are lowercase
// hex, 64-bit integers are decimal strings, enums are integers.

/** AnyValue: exactly one field is set; `{}` is the empty value. */
export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  /** Decimal string (numbers are accepted on input). */
  intValue?: string | number;
  doubleValue?: number | string;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  /** Base64. */
  bytesValue?: string;
}

export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

export interface OtlpResource {
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpInstrumentationScope {
  name?: string;
  version?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpSpanEvent {
  timeUnixNano?: string;
  name?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpSpanLink {
  traceId?: string;
  spanId?: string;
  traceState?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
}

export interface OtlpStatus {
  message?: string;
  /** 0 UNSET, 1 OK, 2 ERROR. */
  code?: number;
}

export interface OtlpSpan {
  /** 32 lowercase hex characters. */
  traceId?: string;
  /** 16 lowercase hex characters. */
  spanId?: string;
  traceState?: string;
  /** Empty or absent on a root span. */
  parentSpanId?: string;
  flags?: number;
  name?: string;
  /** 0 UNSPECIFIED, 1 INTERNAL, 2 SERVER, 3 CLIENT, 4 PRODUCER, 5 CONSUMER. */
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  events?: OtlpSpanEvent[];
  droppedEventsCount?: number;
  links?: OtlpSpanLink[];
  droppedLinksCount?: number;
  status?: OtlpStatus;
}

export interface OtlpScopeSpans {
  scope?: OtlpInstrumentationScope;
  spans?: OtlpSpan[];
  schemaUrl?: string;
}

export interface OtlpResourceSpans {
  resource?: OtlpResource;
  scopeSpans?: OtlpScopeSpans[];
  schemaUrl?: string;
}

/** ExportTraceServiceRequest (also the shape of one Collector file-exporter line). */
export interface OtlpTraceRequest {
  resourceSpans?: OtlpResourceSpans[];
}

export interface OtlpLogRecord {
  timeUnixNano?: string;
  observedTimeUnixNano?: string;
  severityNumber?: number;
  severityText?: string;
  body?: OtlpAnyValue;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
  /** Lowercase hex, empty when the record is not tied to a span. */
  traceId?: string;
  spanId?: string;
  eventName?: string;
}

export interface OtlpScopeLogs {
  scope?: OtlpInstrumentationScope;
  logRecords?: OtlpLogRecord[];
  schemaUrl?: string;
}

export interface OtlpResourceLogs {
  resource?: OtlpResource;
  scopeLogs?: OtlpScopeLogs[];
  schemaUrl?: string;
}

/** ExportLogsServiceRequest. */
export interface OtlpLogsRequest {
  resourceLogs?: OtlpResourceLogs[];
}

/** ExportTraceServiceResponse / ExportLogsServiceResponse partial success, as the receiver answers it. */
export interface OtlpPartialSuccess {
  rejected?: number;
  errorMessage?: string;
}

// The protobuf shape as the decoder leaves it (otlp-proto.ts decodeTraceMessage): fields present on the wire
// are own properties, absent ones are not (a prototype may supply a default); ids and bytes are byte arrays,
// 64-bit integers numbers or Long-like objects whose toString() is their decimal value, enums integers.

/**
 * A 64-bit integer as decoded: a number, or an object (protobufjs' Long: 32-bit halves and signedness)
 * printing as its decimal value.
 */
export type ProtoInt64 = number | { low?: number; high?: number; unsigned?: boolean; toString(): string };

export interface ProtoAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: ProtoInt64;
  doubleValue?: number;
  arrayValue?: { values?: ProtoAnyValue[] };
  kvlistValue?: { values?: ProtoKeyValue[] };
  bytesValue?: Uint8Array;
}

export interface ProtoKeyValue {
  key?: string;
  value?: ProtoAnyValue;
}

export interface ProtoSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: ProtoInt64;
  endTimeUnixNano?: ProtoInt64;
  attributes?: ProtoKeyValue[];
  events?: Array<{ timeUnixNano?: ProtoInt64; name?: string; attributes?: ProtoKeyValue[] }>;
  links?: Array<{ traceId?: Uint8Array; spanId?: Uint8Array }>;
  status?: { code?: number; message?: string };
}

export interface ProtoScopeSpans {
  scope?: { name?: string };
  spans?: ProtoSpan[];
}

export interface ProtoTraceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: ProtoKeyValue[] };
    scopeSpans?: ProtoScopeSpans[];
    /** Pre-v0.19 field 1000. */
    instrumentationLibrarySpans?: Array<{ instrumentationLibrary?: { name?: string }; spans?: ProtoSpan[] }>;
  }>;
}
