// Attribute helpers shared by every convention writer (src/telemetry/conventions/). Every span carries
// gen_ai.* (conventions/gen-ai.ts), OpenInference (conventions/openinference.ts), `langsmith.span.kind` and
// our `runspec.eval.*` registry (conventions/runspec.ts); docs/semconv.md lists them.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { dropUndefined } from '../core/drop-undefined.js';

/** Drop undefined values so spans never carry empty attributes. */
export function compact(attrs: Record<string, AttributeValue | undefined>): Attributes {
  return dropUndefined(attrs) as Attributes;
}

/**
 * Where a convention writer puts attributes, one at a time and in wire order: a span (whose setAttribute
 * checks each value once) or a plain record. Writers skip absent values themselves (the API leaves an
 * undefined value undefined behaviour). Writing straight onto the span builds no intermediate
 * object per span and part: a record of a root span's ~46 keys, merged with Object.assign and walked again
 * by setAttributes, cost as much as the SDK's own checks.
 */
export interface AttributeSink {
  setAttribute(key: string, value: AttributeValue): unknown;
}

/** A sink that assigns into `attributes` (a fresh record unless given). */
export class RecordSink implements AttributeSink {
  constructor(readonly attributes: Attributes = {}) {}

  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
}
