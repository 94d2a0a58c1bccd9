// The producer readers, in the order the normaliser asks them. Earlier readers win where two conventions
// describe the same thing on one span (a finish reason, the request history, a tool span's fields).
import { genAiEventsReader } from './gen-ai-events.js';
import { genAiReader } from './gen-ai.js';
import { openInferenceReader } from './openinference.js';
import { openLlmetryReader } from './openllmetry.js';
import type { ProducerReader } from './reader.js';
import { vercelReader } from './vercel.js';

export const READERS: readonly ProducerReader[] = [genAiReader, openInferenceReader, openLlmetryReader, vercelReader, genAiEventsReader];
