// Attribute helpers shared by every convention writer (src/telemetry/conventions/). Every span carries
// gen_ai.* (conventions/gen-ai.ts), OpenInference (conventions/openinference.ts), `langsmith.span.kind` and
// our `runspec.eval.*` registry (conventions/runspec.ts); docs/semconv.md lists them.
import type { Attributes, AttributeValue } from '@opentelemetry/api';

/** Drop undefined values so spans never carry empty attributes. */
export function compact(attrs: Record<string, AttributeValue | undefined>): Attributes {
  // for...in over an object literal: no [key, value] pair allocated per attribute (this runs for every span).
  const out: Attributes = {};
  for (const k in attrs) {
    const v = attrs[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
