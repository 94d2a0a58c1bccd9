// An agent target's case as telemetry: the spans the agent emitted, exported as they arrived (same trace and
// span ids, same parents, names, times, attributes, events and resource), and the case's root span (the one
// whose traceparent the agent continued) re-emitted with the same ids and our verdict attributes on it. The
// Run normalised from those spans is not rendered again as chat/execute_tool spans: every span of the trace
// exists once. Model targets keep renderRunTrace.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, type Attributes, type AttributeValue, type HrTime, type Tracer } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { IdGenerator, ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { withoutContent } from './conventions/content.js';
import { addEvaluationEvent } from './conventions/gen-ai.js';
import type { SpanRecord } from '../types/span.js';
import { caseRootOf, type RenderedTrace, type RenderInput } from './render.js';
import { RecordSink } from './attributes.js';

/** One case sample's collected trace: its id, our case root span's id, and every span that arrived. */
export interface CapturedTrace {
  traceId: string;
  rootSpanId: string;
  spans: readonly SpanRecord[];
}

/**
 * Ids for the next span the SDK starts, when one is set: the case root is re-emitted through the SDK tracer
 * with the ids the agent already parented its spans to. Otherwise the wrapped generator's.
 */
export class PresetIdGenerator implements IdGenerator {
  // Each id is used once, whichever the SDK asks for first.
  private traceId: string | undefined;
  private spanId: string | undefined;

  constructor(private readonly inner: IdGenerator) {}

  /** Use these ids for the next root span (one trace id and one span id). */
  preset(traceId: string, spanId: string): void {
    this.traceId = traceId;
    this.spanId = spanId;
  }

  generateTraceId(): string {
    const id = this.traceId;
    this.traceId = undefined;
    return id ?? this.inner.generateTraceId();
  }

  generateSpanId(): string {
    const id = this.spanId;
    this.spanId = undefined;
    return id ?? this.inner.generateSpanId();
  }
}

export interface AgentTraceExport {
  /** The SDK tracer of the telemetry session, on a provider whose id generator is `ids`. */
  tracer: Tracer;
  ids: PresetIdGenerator;
  /** The session's processor (batching and export are the SDK's). */
  processor: SpanProcessor;
  /** Resource attributes added to an agent resource that lacks them (the Phoenix project, so the trace stays in one project). */
  resourceDefaults: Attributes;
}

/**
 * Export an agent target's case: its captured spans as they are, and the case root with the verdict on it.
 * Returns the ids, as renderRunTrace does (no llm or tool span ids: none are rendered).
 *
 * @example
 * const ids = exportAgentTrace(session, { case: c, run, verdict, result, runId, captureContent: false }, captured);
 */
export function exportAgentTrace(session: AgentTraceExport, input: RenderInput, captured: CapturedTrace): RenderedTrace {
  const resources = new Map<string, Resource>();
  const resourceOf = (attrs: Record<string, unknown>): Resource => {
    const key = JSON.stringify(attrs);
    let r = resources.get(key);
    if (!r) {
      r = resourceFromAttributes({ ...session.resourceDefaults, ...attributesOf(attrs) });
      resources.set(key, r);
    }
    return r;
  };
  // Without content capture (off or hashed, as render.ts) the agent's prompts, messages, tool arguments and
  // results, and its spans' status messages, stay out of telemetry.
  const content = input.captureContent;
  const attrsOf = (attrs: Record<string, unknown>, eventName?: string): Attributes => attributesOf(content ? attrs : withoutContent(attrs, eventName));
  const recordedRoot = captured.spans.find((s) => s.spanId === captured.rootSpanId);
  for (const span of captured.spans)
    if (span.spanId !== captured.rootSpanId) session.processor.onEnd(readableOf(span, resourceOf(span.resource), attrsOf, content));

  const root = caseRootOf(input);
  const startMs = recordedRoot?.startTimeMs ?? root.startMs;
  const endMs = recordedRoot?.endTimeMs ?? root.endMs;
  session.ids.preset(captured.traceId, captured.rootSpanId);
  // The recorded root's attributes, then ours over them (a key both have keeps its place and takes our value).
  const attributes = new RecordSink(attrsOf(recordedRoot?.attributes ?? {}));
  root.writeAttributes(attributes);
  const span = session.tracer.startSpan(
    recordedRoot?.name ?? root.name,
    { kind: SpanKind.INTERNAL, startTime: hr(startMs), attributes: attributes.attributes, root: true },
    ROOT_CONTEXT,
  );
  addEvaluationEvent(span, root.summary, hr(endMs));
  if (root.error) span.setStatus({ code: SpanStatusCode.ERROR, message: root.error.message });
  else if (recordedRoot?.statusCode === SpanStatusCode.ERROR)
    span.setStatus({ code: SpanStatusCode.ERROR, ...(content && recordedRoot.statusMessage ? { message: recordedRoot.statusMessage } : {}) });
  span.end(hr(endMs));
  return { traceId: span.spanContext().traceId, rootSpanId: span.spanContext().spanId, llmSpanIds: [], toolSpanIds: [] };
}

/** A collected span as the SDK's export input, ids and all; `attrsOf` converts (and, without content, strips) attributes. */
function readableOf(
  s: SpanRecord,
  resource: Resource,
  attrsOf: (attrs: Record<string, unknown>, eventName?: string) => Attributes,
  content: boolean,
): ReadableSpan {
  const start = nanosOf(s.startTimeMs, s.startTimeUnixNano);
  const end = s.endTimeMs === undefined ? start : nanosOf(s.endTimeMs, s.endTimeUnixNano);
  const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: s.name,
    // OTLP counts from "unspecified"; the API's kinds start at INTERNAL.
    kind: Math.max(0, s.kind - 1) as SpanKind,
    spanContext: () => context,
    ...(s.parentSpanId ? { parentSpanContext: { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: TraceFlags.SAMPLED } } : {}),
    startTime: hrOf(start),
    endTime: hrOf(end),
    status: { code: s.statusCode as SpanStatusCode, ...(content && s.statusMessage ? { message: s.statusMessage } : {}) },
    attributes: attrsOf(s.attributes),
    links: s.links.map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: TraceFlags.SAMPLED } })),
    events: s.events.map((e) => ({ name: e.name, time: hrOf(nanosOf(e.timeMs, e.timeUnixNano)), attributes: attrsOf(e.attributes, e.name) })),
    duration: hrOf(end > start ? end - start : 0n),
    ended: true,
    resource,
    instrumentationScope: { name: s.scopeName ?? '' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * Plain attribute values back as OpenTelemetry attributes: primitives and arrays of one primitive type as they
 * are; an OTLP kvlist, or an array of mixed or nested values, as its JSON text (the API has no such values).
 */
function attributesOf(attrs: Record<string, unknown>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) {
    const value = attributeValueOf(v);
    if (value !== undefined) out[k] = value;
  }
  return out;
}

function attributeValueOf(v: unknown): AttributeValue | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const types = new Set(v.map((x) => typeof x));
    if (v.length === 0 || (types.size === 1 && ['string', 'number', 'boolean'].includes([...types][0]!))) return v as AttributeValue;
  }
  return JSON.stringify(v);
}

/** A time as integer nanoseconds: the OTLP text when the span arrived with one, else from milliseconds (whole ms exactly). */
function nanosOf(ms: number, unixNano: string | undefined): bigint {
  if (unixNano !== undefined) return BigInt(unixNano);
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1_000_000));
}

/** Nanoseconds as [seconds, nanoseconds], the nanoseconds always below 1e9. */
function hrOf(ns: bigint): HrTime {
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
}

function hr(ms: number): HrTime {
  return hrOf(nanosOf(ms, undefined));
}
