// Spans read back from Phoenix's REST API, saved as JSON (Arize-ai/phoenix REST API: GET /v1/projects/{project_identifier}/spans), so traces already in Phoenix can
// be scored offline too:
// - `GET /v1/projects/{p}/spans`: `{data: [{context: {trace_id, span_id}, parent_id, name, span_kind,
//   start_time, end_time (ISO), status_code, status_message, attributes (flat dotted keys), events}]}`;
//   `openinference.span.kind` is moved into `span_kind`.
// - `GET /v1/projects/{p}/spans/otlpv1`: OTLP-like spans with snake_case keys (`trace_id`,
//   `start_time_unix_nano`, `attributes: [{key, value: {string_value}}]`).
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { spansFromRequest, normaliseId } from './spans.js';
import type { InputProblem, SpanRecord } from './spans.js';
import { isRecord } from '../core/is-record.js';

function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** snake_case keys → lowerCamelCase, recursively, except inside attribute keys' own names. */
function camelKeys(v: unknown, depth = 0): unknown {
  if (depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => camelKeys(x, depth + 1));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k === 'key' ? k : camel(k)] = k === 'key' ? x : camelKeys(x, depth + 1);
  return out;
}

function isoToMs(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : undefined;
}

const STATUS: Record<string, number> = { UNSET: 0, OK: 1, ERROR: 2 };

/** Phoenix span JSON → span records; undefined when the document is not a Phoenix span list. */
export function spansFromPhoenix(doc: unknown, place: string): { spans: SpanRecord[]; problems: InputProblem[] } | undefined {
  if (!isRecord(doc) || !Array.isArray(doc.data) || doc.data.length === 0) return undefined;
  const first = doc.data[0];
  if (!isRecord(first)) return undefined;
  if ('trace_id' in first && 'span_id' in first) {
    // otlpv1 flavour: OTLP with snake_case keys.
    return spansFromRequest({ resourceSpans: [{ scopeSpans: [{ spans: camelKeys(doc.data) }] }] }, place);
  }
  if (!isRecord(first.context)) return undefined;
  const spans: SpanRecord[] = [];
  const problems: InputProblem[] = [];
  for (const raw of doc.data) {
    if (!isRecord(raw) || !isRecord(raw.context)) {
      problems.push({ place, reason: 'Phoenix span without context' });
      continue;
    }
    const traceId = normaliseId(raw.context.trace_id, 16);
    const spanId = normaliseId(raw.context.span_id, 8);
    if (!traceId || !spanId) {
      problems.push({ place, reason: `Phoenix span ${JSON.stringify(String(raw.name ?? '')).slice(0, 80)}: missing or invalid trace_id/span_id` });
      continue;
    }
    const attributes: Record<string, unknown> = isRecord(raw.attributes) ? { ...raw.attributes } : {};
    if (typeof raw.span_kind === 'string' && raw.span_kind !== 'UNKNOWN') attributes[OI.OPENINFERENCE_SPAN_KIND] ??= raw.span_kind;
    const startTimeMs = isoToMs(raw.start_time) ?? 0;
    const span: SpanRecord = {
      traceId,
      spanId,
      name: typeof raw.name === 'string' ? raw.name : '',
      kind: 1,
      startTimeMs,
      attributes,
      events: (Array.isArray(raw.events) ? raw.events : []).filter(isRecord).map((e) => ({
        name: typeof e.name === 'string' ? e.name : '',
        timeMs: isoToMs(e.timestamp) ?? startTimeMs,
        attributes: isRecord(e.attributes) ? e.attributes : {},
      })),
      links: [],
      statusCode: typeof raw.status_code === 'string' ? (STATUS[raw.status_code] ?? 0) : 0,
      resource: {},
    };
    const end = isoToMs(raw.end_time);
    if (end !== undefined) span.endTimeMs = end;
    const parent = normaliseId(raw.parent_id, 8);
    if (parent) span.parentSpanId = parent;
    if (typeof raw.status_message === 'string' && raw.status_message) span.statusMessage = raw.status_message;
    spans.push(span);
  }
  return { spans, problems };
}
