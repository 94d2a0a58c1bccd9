// The producer readers, in the order the normaliser asks them. Earlier readers win where two conventions
// describe the same thing on one span (a finish reason, the request history, a tool span's fields).
import type { LogRecordEntry, SpanRecord } from '../spans.js';
import { aiSdk7Family } from './ai-sdk-7.js';
import { contribOpenAiFamily } from './contrib-openai.js';
import type { ProducerFamily } from './family.js';
import { genAiEventsReader, otelGenAiEventsFamily } from './gen-ai-events.js';
import { genAiReader, otelGenAiFamily } from './gen-ai.js';
import { openInferenceFamily, openInferenceReader } from './openinference.js';
import { openLlmetryFamily, openLlmetryLegacyFamily, openLlmetryReader } from './openllmetry.js';
import type { ProducerReader } from './reader.js';
import { runspecFamily } from './runspec.js';
import { aiSdkFamily, vercelReader } from './vercel.js';

export const READERS: readonly ProducerReader[] = [genAiReader, openInferenceReader, openLlmetryReader, vercelReader, genAiEventsReader];

/** Families, most specific first: a trace is the first family that recognises it. */
export const FAMILIES: readonly ProducerFamily[] = [
  runspecFamily,
  openInferenceFamily,
  openLlmetryFamily,
  openLlmetryLegacyFamily,
  contribOpenAiFamily,
  aiSdk7Family,
  aiSdkFamily,
  otelGenAiFamily,
  otelGenAiEventsFamily,
];

/** The trace's producer family, from structure alone; undefined when no family recognises it. */
export function recogniseFamily(spans: readonly SpanRecord[], logs: readonly LogRecordEntry[]): ProducerFamily | undefined {
  return FAMILIES.find((f) => f.recognise(spans, logs));
}
