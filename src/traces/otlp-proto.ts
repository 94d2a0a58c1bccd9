// OTLP protobuf codec. The message types are declared here from the field numbers of
// open-telemetry/opentelemetry-proto (common/v1, resource/v1, trace/v1, logs/v1, collector/*/v1), and every
// decoded message is converted to the OTLP/JSON shape (otlp-types.ts) so both encodings share one model.
import protobuf from 'protobufjs';
import { TraceError } from '../errors.js';
import type { OtlpLogsRequest, OtlpTraceRequest, ProtoTraceRequest } from './otlp-types.js';
import { SPAN_KIND_NAMES, STATUS_NAMES } from './spans.js';

const { Root, Type, Field, OneOf, Enum } = protobuf;

function message(name: string, fields: Array<[string, number, string, ('repeated' | undefined)?]>): protobuf.Type {
  const type = new Type(name);
  for (const [fieldName, id, fieldType, rule] of fields) type.add(new Field(fieldName, id, fieldType, rule));
  return type;
}

function buildRoot(): protobuf.Root {
  const root = new Root();
  const anyValue = message('AnyValue', [
    ['stringValue', 1, 'string'],
    ['boolValue', 2, 'bool'],
    ['intValue', 3, 'int64'],
    ['doubleValue', 4, 'double'],
    ['arrayValue', 5, 'ArrayValue'],
    ['kvlistValue', 6, 'KeyValueList'],
    ['bytesValue', 7, 'bytes'],
  ]);
  anyValue.add(new OneOf('value', ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue']));
  root.add(anyValue);
  root.add(message('ArrayValue', [['values', 1, 'AnyValue', 'repeated']]));
  root.add(message('KeyValueList', [['values', 1, 'KeyValue', 'repeated']]));
  root.add(
    message('KeyValue', [
      ['key', 1, 'string'],
      ['value', 2, 'AnyValue'],
    ]),
  );
  root.add(
    message('InstrumentationScope', [
      ['name', 1, 'string'],
      ['version', 2, 'string'],
      ['attributes', 3, 'KeyValue', 'repeated'],
      ['droppedAttributesCount', 4, 'uint32'],
    ]),
  );
  // Removed from the proto in v0.19.0; old producers still wrote it at field 1000 of ResourceSpans.
  root.add(
    message('InstrumentationLibrary', [
      ['name', 1, 'string'],
      ['version', 2, 'string'],
    ]),
  );
  root.add(
    message('Resource', [
      ['attributes', 1, 'KeyValue', 'repeated'],
      ['droppedAttributesCount', 2, 'uint32'],
    ]),
  );
  root.add(new Enum('SpanKind', SPAN_KIND_NAMES));
  root.add(new Enum('StatusCode', STATUS_NAMES));
  root.add(
    message('Status', [
      ['message', 2, 'string'],
      ['code', 3, 'StatusCode'],
    ]),
  );
  root.add(
    message('Event', [
      ['timeUnixNano', 1, 'fixed64'],
      ['name', 2, 'string'],
      ['attributes', 3, 'KeyValue', 'repeated'],
      ['droppedAttributesCount', 4, 'uint32'],
    ]),
  );
  root.add(
    message('Link', [
      ['traceId', 1, 'bytes'],
      ['spanId', 2, 'bytes'],
      ['traceState', 3, 'string'],
      ['attributes', 4, 'KeyValue', 'repeated'],
      ['droppedAttributesCount', 5, 'uint32'],
      ['flags', 6, 'fixed32'],
    ]),
  );
  root.add(
    message('Span', [
      ['traceId', 1, 'bytes'],
      ['spanId', 2, 'bytes'],
      ['traceState', 3, 'string'],
      ['parentSpanId', 4, 'bytes'],
      ['flags', 16, 'fixed32'],
      ['name', 5, 'string'],
      ['kind', 6, 'SpanKind'],
      ['startTimeUnixNano', 7, 'fixed64'],
      ['endTimeUnixNano', 8, 'fixed64'],
      ['attributes', 9, 'KeyValue', 'repeated'],
      ['droppedAttributesCount', 10, 'uint32'],
      ['events', 11, 'Event', 'repeated'],
      ['droppedEventsCount', 12, 'uint32'],
      ['links', 13, 'Link', 'repeated'],
      ['droppedLinksCount', 14, 'uint32'],
      ['status', 15, 'Status'],
    ]),
  );
  root.add(
    message('ScopeSpans', [
      ['scope', 1, 'InstrumentationScope'],
      ['spans', 2, 'Span', 'repeated'],
      ['schemaUrl', 3, 'string'],
    ]),
  );
  root.add(
    message('InstrumentationLibrarySpans', [
      ['instrumentationLibrary', 1, 'InstrumentationLibrary'],
      ['spans', 2, 'Span', 'repeated'],
      ['schemaUrl', 3, 'string'],
    ]),
  );
  root.add(
    message('ResourceSpans', [
      ['resource', 1, 'Resource'],
      ['scopeSpans', 2, 'ScopeSpans', 'repeated'],
      ['schemaUrl', 3, 'string'],
      ['instrumentationLibrarySpans', 1000, 'InstrumentationLibrarySpans', 'repeated'],
    ]),
  );
  root.add(message('ExportTraceServiceRequest', [['resourceSpans', 1, 'ResourceSpans', 'repeated']]));
  root.add(
    message('ExportTracePartialSuccess', [
      ['rejectedSpans', 1, 'int64'],
      ['errorMessage', 2, 'string'],
    ]),
  );
  root.add(message('ExportTraceServiceResponse', [['partialSuccess', 1, 'ExportTracePartialSuccess']]));
  root.add(
    message('LogRecord', [
      ['timeUnixNano', 1, 'fixed64'],
      ['observedTimeUnixNano', 11, 'fixed64'],
      ['severityNumber', 2, 'int32'],
      ['severityText', 3, 'string'],
      ['body', 5, 'AnyValue'],
      ['attributes', 6, 'KeyValue', 'repeated'],
      ['droppedAttributesCount', 7, 'uint32'],
      ['flags', 8, 'fixed32'],
      ['traceId', 9, 'bytes'],
      ['spanId', 10, 'bytes'],
      ['eventName', 12, 'string'],
    ]),
  );
  root.add(
    message('ScopeLogs', [
      ['scope', 1, 'InstrumentationScope'],
      ['logRecords', 2, 'LogRecord', 'repeated'],
      ['schemaUrl', 3, 'string'],
    ]),
  );
  root.add(
    message('ResourceLogs', [
      ['resource', 1, 'Resource'],
      ['scopeLogs', 2, 'ScopeLogs', 'repeated'],
      ['schemaUrl', 3, 'string'],
    ]),
  );
  root.add(message('ExportLogsServiceRequest', [['resourceLogs', 1, 'ResourceLogs', 'repeated']]));
  root.add(
    message('ExportLogsPartialSuccess', [
      ['rejectedLogRecords', 1, 'int64'],
      ['errorMessage', 2, 'string'],
    ]),
  );
  root.add(message('ExportLogsServiceResponse', [['partialSuccess', 1, 'ExportLogsPartialSuccess']]));
  // google.rpc.Status: the body of an OTLP/HTTP error response (opentelemetry-proto docs/specification.md).
  root.add(
    message('Status_', [
      ['code', 1, 'int32'],
      ['message', 2, 'string'],
    ]),
  );
  root.resolveAll();
  return root;
}

const ROOT = buildRoot();
const TRACE_REQUEST = ROOT.lookupType('ExportTraceServiceRequest');
const TRACE_RESPONSE = ROOT.lookupType('ExportTraceServiceResponse');
const LOGS_REQUEST = ROOT.lookupType('ExportLogsServiceRequest');
const LOGS_RESPONSE = ROOT.lookupType('ExportLogsServiceResponse');
const RPC_STATUS = ROOT.lookupType('Status_');

// 64-bit integers become decimal strings and enums integers, as OTLP/JSON writes them.
const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String, defaults: false, oneofs: false };
const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

type Obj = Record<string, unknown>;

/** A base64 id field (how toObject renders bytes) as lowercase hex, in place; an empty id is dropped. */
function idToHex(obj: Obj, key: string, bytes: 8 | 16): void {
  const v = obj[key];
  if (typeof v !== 'string') return;
  const id = Buffer.from(v, 'base64');
  // A binary id of the wrong length is invalid (trace ids 16 bytes, span ids 8): dropped, so it is never read
  // again as another id's base64 text (the direct path, spans.ts protoId, drops it too).
  if (id.length !== bytes) delete obj[key];
  else obj[key] = id.toString('hex');
}

function each(value: unknown, visit: (o: Obj) => void): void {
  if (!Array.isArray(value)) return;
  for (const item of value) if (item !== null && typeof item === 'object') visit(item as Obj);
}

/**
 * Rewrite the ids of a decoded trace or logs request to hex where OTLP puts them (spans, span links,
 * log records), instead of walking every attribute value of the request looking for them.
 */
function idsToHex(obj: Obj): void {
  each(obj.resourceSpans, (rs) => {
    const visitSpans = (ss: Obj): void =>
      each(ss.spans, (span) => {
        idToHex(span, 'traceId', 16);
        idToHex(span, 'spanId', 8);
        idToHex(span, 'parentSpanId', 8);
        each(span.links, (link) => {
          idToHex(link, 'traceId', 16);
          idToHex(link, 'spanId', 8);
        });
      });
    each(rs.scopeSpans, visitSpans);
    each(rs.instrumentationLibrarySpans, visitSpans);
  });
  each(obj.resourceLogs, (rl) =>
    each(rl.scopeLogs, (sl) =>
      each(sl.logRecords, (rec) => {
        idToHex(rec, 'traceId', 16);
        idToHex(rec, 'spanId', 8);
      }),
    ),
  );
}

function decodeMessage(type: protobuf.Type, buf: Uint8Array, what: string): protobuf.Message {
  try {
    return type.decode(buf);
  } catch (err) {
    throw new TraceError('TRACE_INPUT', `${what}: expected an OTLP protobuf ${type.name} (${(err as Error).message})`, {
      hint: 'send application/x-protobuf bodies produced by an OTLP exporter, or application/json',
      cause: err,
    });
  }
}

function decodeWith(type: protobuf.Type, buf: Uint8Array, what: string): Record<string, unknown> {
  const obj = type.toObject(decodeMessage(type, buf, what), TO_OBJECT);
  idsToHex(obj);
  return obj;
}

/**
 * Decode a protobuf ExportTraceServiceRequest into the OTLP/JSON shape.
 * The pre-2022 `instrumentation_library_spans` field is folded into `scopeSpans`.
 * @throws TraceError (TRACE_INPUT) when the bytes are not a valid message.
 */
export function decodeTraceRequest(buf: Uint8Array): OtlpTraceRequest {
  const obj = decodeWith(TRACE_REQUEST, buf, 'trace request');
  const resourceSpans = (obj.resourceSpans ?? []) as Array<Record<string, unknown>>;
  for (const rs of resourceSpans) {
    const legacy = rs.instrumentationLibrarySpans as Array<Record<string, unknown>> | undefined;
    if (legacy) {
      const scopeSpans = (rs.scopeSpans ?? []) as Array<Record<string, unknown>>;
      for (const ils of legacy) {
        scopeSpans.push({ scope: ils.instrumentationLibrary, spans: ils.spans, schemaUrl: ils.schemaUrl });
      }
      rs.scopeSpans = scopeSpans;
      delete rs.instrumentationLibrarySpans;
    }
  }
  return obj as OtlpTraceRequest;
}

/**
 * Decode a protobuf ExportTraceServiceRequest as the decoder leaves it (no OTLP/JSON shape): for
 * spans.ts spansFromProtoRequest, which makes span records of it directly (the receivers' path).
 * @throws TraceError (TRACE_INPUT) when the bytes are not a valid message.
 */
export function decodeTraceMessage(buf: Uint8Array): ProtoTraceRequest {
  return decodeMessage(TRACE_REQUEST, buf, 'trace request') as ProtoTraceRequest;
}

/**
 * Decode a protobuf ExportLogsServiceRequest into the OTLP/JSON shape.
 * @throws TraceError (TRACE_INPUT) when the bytes are not a valid message.
 */
export function decodeLogsRequest(buf: Uint8Array): OtlpLogsRequest {
  return decodeWith(LOGS_REQUEST, buf, 'logs request') as OtlpLogsRequest;
}

function hexToBytesDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexToBytesDeep);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (ID_KEYS.has(key) && typeof v === 'string') out[key] = Buffer.from(v, 'hex');
    else if (key === 'bytesValue' && typeof v === 'string') out[key] = Buffer.from(v, 'base64');
    else if ((key === 'intValue' || key.endsWith('UnixNano')) && typeof v === 'number') out[key] = String(v);
    else out[key] = hexToBytesDeep(v);
  }
  return out;
}

/** Encode the OTLP/JSON shape as a protobuf ExportTraceServiceRequest (tests, file-exporter framing). */
export function encodeTraceRequest(req: OtlpTraceRequest): Uint8Array {
  return TRACE_REQUEST.encode(TRACE_REQUEST.fromObject(hexToBytesDeep(req) as Record<string, unknown>)).finish();
}

/** Encode the OTLP/JSON shape as a protobuf ExportLogsServiceRequest. */
export function encodeLogsRequest(req: OtlpLogsRequest): Uint8Array {
  return LOGS_REQUEST.encode(LOGS_REQUEST.fromObject(hexToBytesDeep(req) as Record<string, unknown>)).finish();
}

function partial(
  rejectedKey: string,
  r: { rejectedSpans?: number; rejectedLogRecords?: number; errorMessage?: string },
  rejected: number | undefined,
): Record<string, unknown> {
  if (!rejected && !r.errorMessage) return {};
  return { partialSuccess: { [rejectedKey]: String(rejected ?? 0), errorMessage: r.errorMessage ?? '' } };
}

/** Encode an ExportTraceServiceResponse; `partial_success` is set only when something was rejected or said. */
export function encodeTraceResponse(r: { rejectedSpans?: number; errorMessage?: string } = {}): Uint8Array {
  return TRACE_RESPONSE.encode(TRACE_RESPONSE.fromObject(partial('rejectedSpans', r, r.rejectedSpans))).finish();
}

/** Encode an ExportLogsServiceResponse; `partial_success` is set only when something was rejected or said. */
export function encodeLogsResponse(r: { rejectedLogRecords?: number; errorMessage?: string } = {}): Uint8Array {
  return LOGS_RESPONSE.encode(LOGS_RESPONSE.fromObject(partial('rejectedLogRecords', r, r.rejectedLogRecords))).finish();
}

/** Decode an ExportTraceServiceResponse (tests and clients). */
export function decodeTraceResponse(buf: Uint8Array): { partialSuccess?: { rejectedSpans?: string; errorMessage?: string } } {
  return decodeWith(TRACE_RESPONSE, buf, 'trace response') as { partialSuccess?: { rejectedSpans?: string; errorMessage?: string } };
}

/** Encode a google.rpc.Status error body (code 3 INVALID_ARGUMENT for bad payloads). */
export function encodeRpcStatus(s: { code: number; message: string }): Uint8Array {
  return RPC_STATUS.encode(RPC_STATUS.fromObject(s)).finish();
}

/** Decode a google.rpc.Status error body. */
export function decodeRpcStatus(buf: Uint8Array): { code?: number; message?: string } {
  return RPC_STATUS.toObject(RPC_STATUS.decode(buf)) as { code?: number; message?: string };
}
