// OTLP/JSON request → flat span and log records with plain attribute values. Tolerant of the
// non-conforming writers seen in the wild (open-telemetry/opentelemetry-proto: docs/specification.md, CHANGELOG.md):
// int64 as string or number, kind as int or SPAN_KIND_* string, ids in any hex case or base64,
// `instrumentationLibrarySpans`, kvlistValue/arrayValue values. Bad items are reported, never thrown.
import type {
  OtlpAnyValue,
  OtlpKeyValue,
  OtlpLogsRequest,
  OtlpTraceRequest,
  ProtoAnyValue,
  ProtoInt64,
  ProtoKeyValue,
  ProtoSpan,
  ProtoTraceRequest,
} from './otlp-types.js';
import { isRecord as isObject } from '../core/is-record.js';
import type { SpanRecord } from '../types/span.js';

// The span shape lives in types/ (telemetry/agent-trace.ts takes it too); re-exported for the traces barrel.
export type { SpanRecord } from '../types/span.js';

/** A log record (event) tied to a span. */
export interface LogRecordEntry {
  traceId: string;
  spanId: string;
  eventName: string;
  timeMs: number;
  body: unknown;
  attributes: Record<string, unknown>;
}

/** Something in the input that could not be used; counted, never fatal. */
export interface InputProblem {
  /** Where: `file:line`, `file#frame`, or `http`. */
  place: string;
  reason: string;
}

/** OTLP's SpanKind and StatusCode enum values by name (also the protobuf decoder's enums, otlp-proto.ts). */
export const SPAN_KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
export const STATUS_NAMES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/** Largest string attribute value kept; longer values are cut so one enormous attribute cannot exhaust memory. */
export const MAX_ATTRIBUTE_CHARS = 1_000_000;

/** Parse an OTLP int64 (decimal string or number) to a JS number; undefined when it is not an integer. */
export function parseInt64(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

/** An OTLP time as exact decimal nanoseconds (a digit string, or a safe integer), to keep beside its milliseconds. */
function nanosText(v: unknown): string | undefined {
  if (typeof v === 'string') {
    const s = v.trim();
    return s.length > 0 && s.length <= 21 && isDigits(s) ? s : undefined;
  }
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : undefined;
}

function nanosToMs(v: unknown): number | undefined {
  if (typeof v === 'string' && v.length > 6 && v.length <= 21 && isDigits(v)) {
    // The common case (a decimal string, no spaces), read without slicing: the millisecond part has at most
    // 15 digits, so it is accumulated exactly, and the result equals the general path's below.
    let ms = 0;
    const cut = v.length - 6;
    for (let i = 0; i < cut; i++) ms = ms * 10 + (v.charCodeAt(i) - 48);
    let frac = 0;
    for (let i = cut; i < v.length; i++) frac = frac * 10 + (v.charCodeAt(i) - 48);
    return ms + frac / 1e6;
  }
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) {
    const s = v.trim();
    // Split the digits so the millisecond part keeps full precision past 2^53 nanoseconds.
    if (s.length <= 6) return Number(s) / 1e6;
    return Number(s.slice(0, -6)) + Number(s.slice(-6)) / 1e6;
  }
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v / 1e6;
  return undefined;
}

/**
 * Normalise an id to lowercase hex of `bytes` bytes: hex in any case, or base64 (non-conforming proto-JSON
 * writers) when the string is not hex and decodes to exactly that many bytes. Undefined when neither.
 */
export function normaliseId(v: unknown, bytes: 8 | 16): string | undefined {
  if (typeof v !== 'string') return undefined;
  if (v.length === bytes * 2 && isLowerHex(v)) return isAllZero(v) ? undefined : v;
  const s = v.trim();
  if (s.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(s)) return /^0+$/.test(s) ? undefined : s.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) {
    const buf = Buffer.from(s, 'base64');
    if (buf.length === bytes) {
      const hex = buf.toString('hex');
      return /^0+$/.test(hex) ? undefined : hex;
    }
  }
  return undefined;
}

function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Lowercase hex digits only (what conforming writers send): such an id is used as it is. */
function isLowerHex(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

function isAllZero(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== 48) return false;
  return true;
}

/** AnyValue → plain JS value (kvlist → object, array → array, int64 → number, bytes → base64 string). */
export function anyValueToPlain(v: unknown, depth = 0): unknown {
  if (!isObject(v) || depth > 32) return undefined;
  if ('stringValue' in v) {
    const s = v.stringValue;
    if (typeof s !== 'string') return s === undefined || s === null ? undefined : String(s);
    return s.length > MAX_ATTRIBUTE_CHARS ? s.slice(0, MAX_ATTRIBUTE_CHARS) : s;
  }
  if ('boolValue' in v) return v.boolValue === true || v.boolValue === 'true';
  if ('intValue' in v) return parseInt64(v.intValue);
  if ('doubleValue' in v) {
    const d = v.doubleValue;
    if (typeof d === 'number') return d;
    if (d === 'NaN') return NaN;
    if (d === 'Infinity') return Infinity;
    if (d === '-Infinity') return -Infinity;
    return typeof d === 'string' && d.trim() !== '' && Number.isFinite(Number(d)) ? Number(d) : undefined;
  }
  if ('arrayValue' in v) {
    const values = isObject(v.arrayValue) && Array.isArray(v.arrayValue.values) ? v.arrayValue.values : [];
    return values.map((x) => anyValueToPlain(x, depth + 1));
  }
  if ('kvlistValue' in v) {
    const values = isObject(v.kvlistValue) && Array.isArray(v.kvlistValue.values) ? v.kvlistValue.values : [];
    return attributesToPlain(values as OtlpKeyValue[], depth + 1);
  }
  if ('bytesValue' in v) return typeof v.bytesValue === 'string' ? v.bytesValue : undefined;
  return undefined;
}

/** A KeyValue list → record; entries without a string key are skipped. */
export function attributesToPlain(list: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue;
    const value = anyValueToPlain(kv.value as OtlpAnyValue, depth);
    if (value !== undefined) out[kv.key] = value;
  }
  return out;
}

function kindOf(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 5) return v;
  if (typeof v === 'string') {
    if (Object.hasOwn(SPAN_KIND_NAMES, v)) return SPAN_KIND_NAMES[v]!;
    const n = parseInt64(v);
    if (n !== undefined && n >= 0 && n <= 5) return n;
  }
  return 0;
}

function statusCodeOf(v: unknown): number {
  // Only OTLP's three codes (own keys: "toString" or "constructor" is no status name).
  const n = typeof v === 'number' ? v : typeof v === 'string' ? (Object.hasOwn(STATUS_NAMES, v) ? STATUS_NAMES[v] : parseInt64(v)) : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= 2 ? n : 0;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * A span's events. Most spans have none: a loop, not filter + map, so such a span costs one empty array (each
 * span's own: the record's lists are the caller's to change) and no per-span callbacks.
 */
function eventsOf(v: unknown, startTimeMs: number): SpanRecord['events'] {
  const events: SpanRecord['events'] = [];
  if (!Array.isArray(v)) return events;
  for (const e of v) {
    if (!isObject(e)) continue;
    const timeMs = nanosToMs(e.timeUnixNano);
    const timeUnixNano = timeMs === undefined ? undefined : nanosText(e.timeUnixNano);
    const name = typeof e.name === 'string' ? e.name : '';
    const attributes = attributesToPlain(e.attributes);
    events.push(
      timeUnixNano !== undefined ? { name, timeMs: timeMs ?? startTimeMs, timeUnixNano, attributes } : { name, timeMs: timeMs ?? startTimeMs, attributes },
    );
  }
  return events;
}

/** A span's links with a valid trace and span id (the others are dropped). */
function linksOf(v: unknown): SpanRecord['links'] {
  const links: SpanRecord['links'] = [];
  if (!Array.isArray(v)) return links;
  for (const l of v) {
    if (!isObject(l)) continue;
    const traceId = normaliseId(l.traceId, 16);
    const spanId = normaliseId(l.spanId, 8);
    if (traceId && spanId) links.push({ traceId, spanId });
  }
  return links;
}

/** The spans of one ExportTraceServiceRequest, plus a problem per span that had to be skipped. */
export function spansFromRequest(req: unknown, place: string): { spans: SpanRecord[]; problems: InputProblem[] } {
  const spans: SpanRecord[] = [];
  const problems: InputProblem[] = [];
  if (!isObject(req) || (!Array.isArray(req.resourceSpans) && req.resourceSpans !== undefined)) {
    problems.push({ place, reason: 'not an ExportTraceServiceRequest (expected an object with resourceSpans[])' });
    return { spans, problems };
  }
  for (const rs of asArray((req as OtlpTraceRequest).resourceSpans)) {
    if (!isObject(rs)) continue;
    const resource = attributesToPlain(isObject(rs.resource) ? rs.resource.attributes : undefined);
    // instrumentationLibrarySpans: the pre-v0.15 name of scopeSpans (open-telemetry/opentelemetry-proto: CHANGELOG.md, 0.15.0).
    const scopes = [...asArray(rs.scopeSpans), ...asArray(rs.instrumentationLibrarySpans)];
    for (const ss of scopes) {
      if (!isObject(ss)) continue;
      const scope = isObject(ss.scope) ? ss.scope : isObject(ss.instrumentationLibrary) ? ss.instrumentationLibrary : undefined;
      const scopeName = scope && typeof scope.name === 'string' ? scope.name : undefined;
      for (const raw of asArray(ss.spans)) {
        collectSpan(toSpanRecord(raw, resource, scopeName), place, spans, problems);
      }
    }
  }
  return { spans, problems };
}

function toSpanRecord(raw: unknown, resource: Record<string, unknown>, scopeName: string | undefined): SpanRecord | string {
  if (!isObject(raw)) return 'span is not an object';
  const traceId = normaliseId(raw.traceId, 16);
  if (!traceId) return `span ${JSON.stringify(String(raw.name ?? '')).slice(0, 80)}: missing or invalid traceId`;
  const spanId = normaliseId(raw.spanId, 8);
  if (!spanId) return `span ${JSON.stringify(String(raw.name ?? '')).slice(0, 80)}: missing or invalid spanId`;
  const startTimeMs = nanosToMs(raw.startTimeUnixNano) ?? 0;
  const end = nanosToMs(raw.endTimeUnixNano);
  const status = isObject(raw.status) ? raw.status : {};
  const span: SpanRecord = {
    traceId,
    spanId,
    name: typeof raw.name === 'string' ? raw.name : '',
    kind: kindOf(raw.kind),
    startTimeMs,
    attributes: attributesToPlain(raw.attributes),
    events: eventsOf(raw.events, startTimeMs),
    links: linksOf(raw.links),
    statusCode: statusCodeOf(status.code),
    resource,
  };
  const parent = normaliseId(raw.parentSpanId, 8);
  if (parent) span.parentSpanId = parent;
  if (end !== undefined && end > 0) span.endTimeMs = end;
  // The exact nanoseconds too, for re-export (telemetry/agent-trace.ts): milliseconds as a double round them.
  const startText = nanosText(raw.startTimeUnixNano);
  if (startText !== undefined && startTimeMs > 0) span.startTimeUnixNano = startText;
  const endText = nanosText(raw.endTimeUnixNano);
  if (endText !== undefined && span.endTimeMs !== undefined) span.endTimeUnixNano = endText;
  if (typeof status.message === 'string' && status.message !== '') span.statusMessage = status.message;
  if (scopeName !== undefined) span.scopeName = scopeName;
  const cut = cutAttributesOf(raw.attributes);
  if (cut) span.cutAttributes = cut;
  return span;
}

/** Top-level string attributes over MAX_ATTRIBUTE_CHARS (anyValueToPlain cuts them), with their lengths. */
function cutAttributesOf(list: unknown): Array<{ key: string; chars: number }> | undefined {
  if (!Array.isArray(list)) return undefined;
  let out: Array<{ key: string; chars: number }> | undefined;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string' || !isObject(kv.value)) continue;
    const s = kv.value.stringValue;
    if (typeof s === 'string' && s.length > MAX_ATTRIBUTE_CHARS) (out ??= []).push({ key: kv.key, chars: s.length });
  }
  return out;
}

// ---- The protobuf path: decoded messages straight to span records, without the OTLP/JSON shape between.
// It gives exactly what spansFromRequest gives for the same request in OTLP/JSON form (as
// otlp-proto.ts decodeTraceRequest writes it: ids hex, bytes base64, 64-bit integers decimal strings;
// test/traces/proto-spans.test.ts compares the two), field by field below.

const own = Object.hasOwn;

/** A decoded id as decodeTraceRequest renders it (hex; an empty one is absent), normalised the same way. */
function protoId(v: Uint8Array | undefined, bytes: 8 | 16): string | undefined {
  // A binary id of the wrong length is invalid (OTLP: trace ids are 16 bytes, span ids 8), never re-read as base64 text.
  if (v === undefined || v.length !== bytes) return undefined;
  // What normaliseId makes of the hex (lowercase, the right length): the id, or nothing when all zero.
  let any = 0;
  for (let i = 0; i < bytes; i++) any |= v[i]!;
  return any === 0 ? undefined : Buffer.from(v.buffer, v.byteOffset, v.length).toString('hex');
}

/** A decoded 64-bit integer as its decimal text (what the JSON shape carries). */
function int64Text(v: ProtoInt64 | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return String(v);
  // protobufjs gives a Long (two 32-bit halves): read through a BigInt, several times faster than
  // Long#toString (a loop of 64-bit divisions), for the same text.
  if (typeof v.low === 'number' && typeof v.high === 'number') {
    const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
    return (v.unsigned ? bits : BigInt.asIntN(64, bits)).toString();
  }
  return v.toString();
}

/**
 * A decoded 64-bit integer as a number, as parseInt64 reads its decimal text: a Long's halves summed (the
 * high half times 2^32 is exact, so the one rounding of the sum is Number(text)'s).
 */
function int64Number(v: ProtoInt64 | undefined): number | undefined {
  if (v !== undefined && typeof v !== 'number' && typeof v.low === 'number' && typeof v.high === 'number') {
    return (v.unsigned ? v.high >>> 0 : v.high | 0) * 4294967296 + (v.low >>> 0);
  }
  return parseInt64(int64Text(v));
}

function protoValueToPlain(v: ProtoAnyValue | undefined, depth: number): unknown {
  if (v === undefined || v === null || depth > 32) return undefined;
  if (own(v, 'stringValue')) {
    const s = v.stringValue!;
    return s.length > MAX_ATTRIBUTE_CHARS ? s.slice(0, MAX_ATTRIBUTE_CHARS) : s;
  }
  if (own(v, 'boolValue')) return v.boolValue === true;
  if (own(v, 'intValue')) return int64Number(v.intValue);
  if (own(v, 'doubleValue')) return v.doubleValue;
  if (own(v, 'arrayValue')) {
    const values = v.arrayValue?.values ?? [];
    const out: unknown[] = new Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = protoValueToPlain(values[i], depth + 1);
    return out;
  }
  if (own(v, 'kvlistValue')) return protoAttributes(v.kvlistValue?.values, depth + 1);
  if (own(v, 'bytesValue')) {
    const b = v.bytesValue!;
    return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
  }
  return undefined;
}

function protoAttributes(list: ProtoKeyValue[] | undefined, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (list === undefined) return out;
  for (const kv of list) {
    if (!own(kv, 'key')) continue;
    const value = protoValueToPlain(own(kv, 'value') ? kv.value : undefined, depth);
    if (value !== undefined) out[kv.key!] = value;
  }
  return out;
}

/** The spans of one decoded protobuf ExportTraceServiceRequest, plus a problem per span that had to be skipped. */
export function spansFromProtoRequest(req: ProtoTraceRequest, place: string): { spans: SpanRecord[]; problems: InputProblem[] } {
  const spans: SpanRecord[] = [];
  const problems: InputProblem[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = protoAttributes(own(rs, 'resource') ? rs.resource!.attributes : undefined);
    const visit = (scope: { name?: string } | undefined, list: ProtoSpan[] | undefined): void => {
      const scopeName = scope !== undefined && own(scope, 'name') ? scope.name : undefined;
      for (const raw of list ?? []) {
        collectSpan(protoSpanRecord(raw, resource, scopeName), place, spans, problems);
      }
    };
    for (const ss of rs.scopeSpans ?? []) visit(own(ss, 'scope') ? ss.scope : undefined, ss.spans);
    for (const ils of rs.instrumentationLibrarySpans ?? []) visit(own(ils, 'instrumentationLibrary') ? ils.instrumentationLibrary : undefined, ils.spans);
  }
  return { spans, problems };
}

function protoSpanRecord(raw: ProtoSpan, resource: Record<string, unknown>, scopeName: string | undefined): SpanRecord | string {
  const name = own(raw, 'name') ? raw.name! : '';
  const traceId = protoId(raw.traceId, 16);
  if (!traceId) return `span ${JSON.stringify(name).slice(0, 80)}: missing or invalid traceId`;
  const spanId = protoId(raw.spanId, 8);
  if (!spanId) return `span ${JSON.stringify(name).slice(0, 80)}: missing or invalid spanId`;
  const startRaw = own(raw, 'startTimeUnixNano') ? int64Text(raw.startTimeUnixNano) : undefined;
  const endRaw = own(raw, 'endTimeUnixNano') ? int64Text(raw.endTimeUnixNano) : undefined;
  const startTimeMs = nanosToMs(startRaw) ?? 0;
  const end = nanosToMs(endRaw);
  const status = own(raw, 'status') ? raw.status! : undefined;
  const events = own(raw, 'events') ? raw.events! : [];
  const links = own(raw, 'links') ? raw.links! : [];
  const span: SpanRecord = {
    traceId,
    spanId,
    name,
    kind: own(raw, 'kind') ? kindOf(raw.kind) : 0,
    startTimeMs,
    attributes: protoAttributes(own(raw, 'attributes') ? raw.attributes : undefined),
    events:
      events.length === 0
        ? []
        : events.map((e) => {
            const text = own(e, 'timeUnixNano') ? int64Text(e.timeUnixNano) : undefined;
            const timeMs = nanosToMs(text);
            const timeUnixNano = timeMs === undefined ? undefined : nanosText(text);
            return {
              name: own(e, 'name') ? e.name! : '',
              timeMs: timeMs ?? startTimeMs,
              ...(timeUnixNano !== undefined ? { timeUnixNano } : {}),
              attributes: protoAttributes(own(e, 'attributes') ? e.attributes : undefined),
            };
          }),
    links:
      links.length === 0
        ? []
        : links.flatMap((l) => {
            const t = protoId(l.traceId, 16);
            const s = protoId(l.spanId, 8);
            return t && s ? [{ traceId: t, spanId: s }] : [];
          }),
    statusCode: status !== undefined && own(status, 'code') ? statusCodeOf(status.code) : 0,
    resource,
  };
  const parent = protoId(raw.parentSpanId, 8);
  if (parent) span.parentSpanId = parent;
  if (end !== undefined && end > 0) span.endTimeMs = end;
  const startText = nanosText(startRaw);
  if (startText !== undefined && startTimeMs > 0) span.startTimeUnixNano = startText;
  const endText = nanosText(endRaw);
  if (endText !== undefined && span.endTimeMs !== undefined) span.endTimeUnixNano = endText;
  if (status !== undefined && own(status, 'message') && status.message !== '') span.statusMessage = status.message!;
  if (scopeName !== undefined) span.scopeName = scopeName;
  let cut: Array<{ key: string; chars: number }> | undefined;
  for (const kv of raw.attributes ?? []) {
    if (!own(kv, 'key') || !own(kv, 'value')) continue;
    const v = kv.value!;
    if (own(v, 'stringValue') && v.stringValue!.length > MAX_ATTRIBUTE_CHARS) (cut ??= []).push({ key: kv.key!, chars: v.stringValue!.length });
  }
  if (cut) span.cutAttributes = cut;
  return span;
}

/** The span-bound log records of one ExportLogsServiceRequest; records without trace/span ids are skipped. */
export function logsFromRequest(req: unknown, place: string, eventNameKey: string): { logs: LogRecordEntry[]; problems: InputProblem[] } {
  const logs: LogRecordEntry[] = [];
  const problems: InputProblem[] = [];
  if (!isObject(req) || (!Array.isArray(req.resourceLogs) && req.resourceLogs !== undefined)) {
    problems.push({ place, reason: 'not an ExportLogsServiceRequest (expected an object with resourceLogs[])' });
    return { logs, problems };
  }
  for (const rl of asArray((req as OtlpLogsRequest).resourceLogs)) {
    if (!isObject(rl)) continue;
    for (const sl of [...asArray(rl.scopeLogs), ...asArray(rl.instrumentationLibraryLogs)]) {
      if (!isObject(sl)) continue;
      for (const rec of asArray(sl.logRecords)) {
        if (!isObject(rec)) continue;
        const traceId = normaliseId(rec.traceId, 16);
        const spanId = normaliseId(rec.spanId, 8);
        if (!traceId || !spanId) continue;
        const attributes = attributesToPlain(rec.attributes);
        const eventName =
          typeof rec.eventName === 'string' && rec.eventName !== ''
            ? rec.eventName
            : typeof attributes[eventNameKey] === 'string'
              ? (attributes[eventNameKey] as string)
              : '';
        logs.push({
          traceId,
          spanId,
          eventName,
          timeMs: nanosToMs(rec.timeUnixNano) ?? nanosToMs(rec.observedTimeUnixNano) ?? 0,
          body: anyValueToPlain(rec.body),
          attributes,
        });
      }
    }
  }
  return { logs, problems };
}

/** Keep a converted span, or the reason it could not be; an attribute cut at the limit is an input problem too. */
function collectSpan(span: SpanRecord | string, place: string, spans: SpanRecord[], problems: InputProblem[]): void {
  if (typeof span === 'string') {
    problems.push({ place, reason: span });
    return;
  }
  spans.push(span);
  for (const c of span.cutAttributes ?? []) {
    problems.push({
      place,
      reason: `trace ${span.traceId} span ${span.spanId}: attribute ${c.key} cut at ${MAX_ATTRIBUTE_CHARS} characters (it had ${c.chars}); the verdict names the checks it affects`,
    });
  }
}
