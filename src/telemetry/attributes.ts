// Attribute helpers shared by every convention writer (src/telemetry/conventions/). Every span carries
// gen_ai.* (conventions/gen-ai.ts), OpenInference (conventions/openinference.ts), `langsmith.span.kind` and
// our `runspec.eval.*` registry (conventions/runspec.ts); docs/semconv.md lists them.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { dropUndefined } from '../core/drop-undefined.js';

/** Drop undefined values so spans never carry empty attributes. */
export function compact(attrs: Record<string, AttributeValue | undefined>): Attributes {
  return dropUndefined(attrs) as Attributes;
}
