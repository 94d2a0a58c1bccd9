// A Tracer for emitCase that builds the SDK's export input (ReadableSpan) directly and hands each ended
// span to the session's BatchSpanProcessor, which batches and exports it through the official exporter as
// before. The SDK's Span and Tracer classes check, copy and re-check every attribute, read two clocks and
// walk the processor chain per span: about two thirds of a trace's render cost in process. This class does
// what they do for the spans renderRunTrace makes, with the SDK's rules, in the SDK's order: ids from the
// SDK's IdGenerator, parent-based always-on sampling, attributes sanitised (invalid keys and values and
// null dropped, arrays copied) and counted against the limits, status and events as Span does them, end
// before start clamped, spans handed to the processor as they end. It is used only where the SDK would
// decide the same: the default sampler and no attribute value length limit (see directTracerEligible);
// anything else renders through the SDK's own Tracer. Wire bytes are the same either way
// (test/telemetry/direct-tracer.test.ts compares them against the installed SDK's Tracer, so a change of
// the SDK's rules fails it). Written against @opentelemetry/sdk-trace-base 2.12 (Span and Tracer of
// @opentelemetry/sdk-trace 2.12).
import {
  context as activeContext,
  diag,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';
import { addHrTimes, getNumberFromEnv, getStringFromEnv, hrTime, hrTimeDuration, isAttributeValue, isTimeInput, isTimeInputHrTime, isTracingSuppressed, millisToHrTime, otperformance, sanitizeAttributes, type InstrumentationScope } from '@opentelemetry/core';
import { ATTR_EXCEPTION_MESSAGE, ATTR_EXCEPTION_STACKTRACE, ATTR_EXCEPTION_TYPE } from '@opentelemetry/semantic-conventions';
import type { Resource } from '@opentelemetry/resources';
import type { IdGenerator, ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';

/** The span limits the session's provider runs with (its explicit ones; the rest as the SDK reads them). */
interface DirectSpanLimits {
  attributeCountLimit: number;
  eventCountLimit: number;
  linkCountLimit: number;
  attributePerEventCountLimit: number;
  attributePerLinkCountLimit: number;
}

/**
 * Whether the SDK would sample every span and leave attribute values untruncated: the environment the
 * SDK's BasicTracerProvider reads (OTEL_TRACES_SAMPLER, the value length limits) is read here through the
 * SDK's own readers. Returns the per-event and per-link attribute limits it would use, or undefined.
 */
export function directTracerEligible(): { sampler: DirectSampler; attributePerEventCountLimit: number; attributePerLinkCountLimit: number } | undefined {
  const sampler = getStringFromEnv('OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && sampler !== 'parentbased_always_on' && sampler !== 'always_on') return undefined;
  if (getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') !== undefined || getNumberFromEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') !== undefined) return undefined;
  return {
    sampler: sampler === 'always_on' ? 'always_on' : 'parentbased_always_on',
    attributePerEventCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT') ?? 128,
    attributePerLinkCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT') ?? 128,
  };
}

type DirectSampler = 'parentbased_always_on' | 'always_on';

interface DirectSetup {
  sampler: DirectSampler;
  resource: Resource;
  scope: InstrumentationScope;
  idGenerator: IdGenerator;
  /** Receives each span as it ends (the session's BatchSpanProcessor). */
  processor: Pick<SpanProcessor, 'onEnd'>;
  limits: DirectSpanLimits;
}

/**
 * A Tracer whose spans are ReadableSpans handed straight to `processor` when they end. A span takes over
 * the `attributes` object of its start options (renderRunTrace builds a fresh one per span).
 */
export function createDirectTracer(setup: DirectSetup): Tracer {
  const startSpan = (name: string, options: SpanOptions = {}, context: Context = activeContext.active()): Span => {
    // Tracer.startSpan: a root ignores the context's span; renderRunTrace always passes its context.
    const parent = options.root ? undefined : trace.getSpanContext(context);
    if (isTracingSuppressed(context)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const spanId = setup.idGenerator.generateSpanId();
    const valid = parent !== undefined && trace.isSpanContextValid(parent) ? parent : undefined;
    const traceId = valid ? valid.traceId : setup.idGenerator.generateTraceId();
    const traceState = valid?.traceState;
    // ParentBased(AlwaysOn): roots are sampled, children follow their parent's sampled flag; AlwaysOn
    // samples everything. An unsampled span is a non-recording one, as the SDK returns.
    const sampled = setup.sampler === 'always_on' || valid === undefined || (valid.traceFlags & TraceFlags.SAMPLED) !== 0;
    if (!sampled) return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.NONE, traceState });
    return new DirectSpan(setup, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, traceState }, name, options, valid);
  };
  // As the SDK's Tracer: (name, fn), (name, options, fn) or (name, options, context, fn); fn runs with the
  // span active in the context and its result is returned.
  const startActiveSpan = (name: string, ...rest: unknown[]): unknown => {
    const fn = rest[rest.length - 1];
    if (typeof fn !== 'function') return undefined;
    const options = rest.length >= 2 ? (rest[0] as SpanOptions | undefined) : undefined;
    const parent = (rest.length >= 3 ? (rest[1] as Context | undefined) : undefined) ?? activeContext.active();
    const span = startSpan(name, options, parent);
    return activeContext.with(trace.setSpan(parent, span), fn as (span: Span) => unknown, undefined, span);
  };
  return { startSpan, startActiveSpan } as Tracer;
}

class DirectSpan implements Span, ReadableSpan {
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  attributes: Attributes = {};
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  readonly startTime: HrTime;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  name: string;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  endTime: HrTime = [0, 0];
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  duration: HrTime = [-1, -1];
  ended = false;
  private attributesCount = 0;
  private readonly startTimeProvided: boolean;
  private readonly performanceStartTime: number;
  private readonly performanceOffset: number;

  constructor(
    private readonly setup: DirectSetup,
    private readonly context: SpanContext,
    name: string,
    options: SpanOptions,
    parent: SpanContext | undefined,
  ) {
    this.name = name;
    this.kind = options.kind ?? SpanKind.INTERNAL;
    this.parentSpanContext = parent;
    this.resource = setup.resource;
    this.instrumentationScope = setup.scope;
    const now = Date.now();
    this.performanceStartTime = otperformance.now();
    this.performanceOffset = now - (this.performanceStartTime + otperformance.timeOrigin);
    this.startTimeProvided = options.startTime != null;
    this.startTime = this.time(options.startTime ?? now);
    for (const link of options.links ?? []) this.addLink({ context: link.context, attributes: sanitizeAttributes(link.attributes) });
    // Tracer.startSpan sanitises the options' attributes (twice: before and after sampling) and Span sets
    // them one by one; the outcome is each valid, non-null value in order, arrays copied, up to the limit.
    // When every one is valid that is the object itself (arrays copied): it is taken over, not rebuilt.
    if (options.attributes) {
      if (this.adoptable(options.attributes)) this.attributes = options.attributes;
      else this.setAttributes(options.attributes);
    }
  }

  /**
   * True when setting these one by one would keep all of them as they are; then (and only then) their
   * arrays are copied in place, as the SDK copies them.
   */
  private adoptable(attributes: Attributes): boolean {
    // Object.keys lists what Span's for-in with its own-property check visits, in the same order.
    const keys = Object.keys(attributes);
    if (keys.length > this.setup.limits.attributeCountLimit) return false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = attributes[key];
      if (key.length === 0 || value == null || !isAttributeValue(value)) return false;
    }
    for (let i = 0; i < keys.length; i++) {
      const value = attributes[keys[i]!];
      if (Array.isArray(value)) attributes[keys[i]!] = value.slice();
    }
    this.attributesCount = keys.length;
    return true;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (value == null || this.isEnded()) return this;
    if (key.length === 0) {
      diag.warn(`Invalid attribute key: ${key}`);
      return this;
    }
    if (!isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      return this;
    }
    const isNewKey = !Object.prototype.hasOwnProperty.call(this.attributes, key);
    if (this.attributesCount >= this.setup.limits.attributeCountLimit && isNewKey) {
      this.droppedAttributesCount++;
      return this;
    }
    (this.attributes as Record<string, AttributeValue>)[key] = Array.isArray(value) ? value.slice() : value;
    if (isNewKey) this.attributesCount++;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, timeStamp?: TimeInput): this {
    if (this.isEnded()) return this;
    const { eventCountLimit, attributePerEventCountLimit } = this.setup.limits;
    if (eventCountLimit === 0) {
      diag.warn('No events allowed.');
      this.droppedEventsCount++;
      return this;
    }
    if (this.events.length >= eventCountLimit) {
      if (this.droppedEventsCount === 0) diag.debug('Dropping extra events.');
      this.events.shift();
      this.droppedEventsCount++;
    }
    if (isTimeInput(attributesOrStartTime)) {
      if (!isTimeInput(timeStamp)) timeStamp = attributesOrStartTime;
      attributesOrStartTime = undefined;
    }
    const { attributes, droppedAttributesCount } = limitedAttributes(attributesOrStartTime, attributePerEventCountLimit);
    this.events.push({ name, attributes, time: this.time(timeStamp), droppedAttributesCount });
    return this;
  }

  addLink(link: Link): this {
    if (this.isEnded()) return this;
    const { linkCountLimit, attributePerLinkCountLimit } = this.setup.limits;
    if (linkCountLimit === 0) {
      this.droppedLinksCount++;
      return this;
    }
    if (this.links.length >= linkCountLimit) {
      if (this.droppedLinksCount === 0) diag.debug('Dropping extra links.');
      this.links.shift();
      this.droppedLinksCount++;
    }
    const { attributes, count, droppedAttributesCount } = limitedAttributes(link.attributes, attributePerLinkCountLimit);
    const processed: Link = { context: link.context };
    if (count > 0) processed.attributes = attributes;
    if (droppedAttributesCount > 0) processed.droppedAttributesCount = droppedAttributesCount;
    this.links.push(processed);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.isEnded()) return this;
    if (status.code === SpanStatusCode.UNSET) return this;
    if (this.status.code === SpanStatusCode.OK) return this;
    const next: SpanStatus = { code: status.code };
    if (status.code === SpanStatusCode.ERROR) {
      if (typeof status.message === 'string') next.message = status.message;
      else if (status.message != null) diag.warn(`Dropping invalid status.message of type '${typeof status.message}', expected 'string'`);
    }
    this.status = next;
    return this;
  }

  updateName(name: string): this {
    if (this.isEnded()) return this;
    this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.isEnded()) {
      diag.error(`${this.name} ${this.context.traceId}-${this.context.spanId} - You can only call end() on a span once.`);
      return;
    }
    this.endTime = this.time(endTime);
    this.duration = hrTimeDuration(this.startTime, this.endTime);
    if (this.duration[0] < 0) {
      diag.warn('Inconsistent start and end time, startTime > endTime. Setting span duration to 0ms.', this.startTime, this.endTime);
      this.endTime = this.startTime.slice() as HrTime;
      this.duration = [0, 0];
    }
    if (this.droppedEventsCount > 0) diag.warn(`Dropped ${this.droppedEventsCount} events because eventCountLimit reached`);
    if (this.droppedLinksCount > 0) diag.warn(`Dropped ${this.droppedLinksCount} links because linkCountLimit reached`);
    this.ended = true;
    this.setup.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') {
      attributes[ATTR_EXCEPTION_MESSAGE] = exception;
    } else if (exception) {
      if (exception.code) attributes[ATTR_EXCEPTION_TYPE] = exception.code.toString();
      else if (exception.name) attributes[ATTR_EXCEPTION_TYPE] = exception.name;
      if (exception.message) attributes[ATTR_EXCEPTION_MESSAGE] = exception.message;
      if (exception.stack) attributes[ATTR_EXCEPTION_STACKTRACE] = exception.stack;
    }
    if (attributes[ATTR_EXCEPTION_TYPE] || attributes[ATTR_EXCEPTION_MESSAGE]) this.addEvent('exception', attributes, time);
    else diag.warn(`Failed to record an exception ${String(exception)}`);
  }

  private isEnded(): boolean {
    if (this.ended) diag.warn(`Cannot execute the operation on ended Span {traceId: ${this.context.traceId}, spanId: ${this.context.spanId}}`);
    return this.ended;
  }

  /** Span's _getTime. */
  private time(input: TimeInput | undefined): HrTime {
    if (typeof input === 'number' && input <= otperformance.now()) return hrTime(input + this.performanceOffset);
    if (typeof input === 'number') return millisToHrTime(input);
    if (input instanceof Date) return millisToHrTime(input.getTime());
    if (isTimeInputHrTime(input)) return input;
    if (this.startTimeProvided) return millisToHrTime(Date.now());
    const ms = otperformance.now() - this.performanceStartTime;
    return addHrTimes(this.startTime, millisToHrTime(ms));
  }
}

/** What Span's value length truncation returns with no limit: strings as they are, arrays copied. */
function copyValue(value: AttributeValue | undefined): AttributeValue | undefined {
  return Array.isArray(value) ? value.map((v: unknown) => v) as AttributeValue : value;
}

/** An event's or a link's attributes as the SDK keeps them: sanitised, values copied, at most `limit`. */
function limitedAttributes(input: Attributes | undefined, limit: number): { attributes: Attributes; count: number; droppedAttributesCount: number } {
  const sanitized = sanitizeAttributes(input);
  const attributes: Attributes = {};
  let droppedAttributesCount = 0;
  let count = 0;
  for (const key in sanitized) {
    if (!Object.prototype.hasOwnProperty.call(sanitized, key)) continue;
    if (count >= limit) {
      droppedAttributesCount++;
      continue;
    }
    attributes[key] = copyValue(sanitized[key]);
    count++;
  }
  return { attributes, count, droppedAttributesCount };
}
