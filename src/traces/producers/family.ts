// Producer families, recognised from what each always writes, content capture on or off: its operation
// and span-kind markers, system/provider, model, request type, token usage, finish reasons, and the
// instrumentation scope. A verdict line names the family, and an `unscorable` verdict names the family's
// switch that would have recorded what the trace is missing.
import type { LogRecordEntry, SpanRecord } from '../spans.js';

export type FamilyName =
  'runspec' | 'openinference' | 'openllmetry' | 'openllmetry-legacy' | 'otel-contrib-openai' | 'ai-sdk-7' | 'ai-sdk' | 'otel-genai' | 'otel-genai-events';

export interface ProducerFamily {
  readonly name: FamilyName;
  /** Whether the trace is this family's, from structure alone (never from message content). */
  readonly recognise: (spans: readonly SpanRecord[], logs: readonly LogRecordEntry[]) => boolean;
  /** The setting that records what the model decided (call names, arguments, text) in this family. */
  readonly contentSwitch: string;
}

/** Whether some span has the attribute (any value). */
export function someSpanHas(spans: readonly SpanRecord[], key: string): boolean {
  for (const s of spans) if (s.attributes[key] !== undefined) return true;
  return false;
}
