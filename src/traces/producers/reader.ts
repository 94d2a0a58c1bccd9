// What every producer reader offers the normaliser. One file per producer family implements it; the
// normaliser asks the readers in READERS order (src/traces/producers/index.ts) and joins what they found in
// the call ledger (src/traces/ledger.ts). Adding a producer is one new reader in one file.
import type { Message, Usage } from '../../types/run.js';
import type { LlmOutput, ToolSpanReading } from '../../telemetry/conventions/_read.js';
import type { LogRecordEntry, SpanRecord } from '../spans.js';

/** Names written to `TraceInfo.producers`: which readers found something in the trace. */
export type ProducerName = 'runspec' | 'gen_ai' | 'gen_ai_events' | 'openinference' | 'openllmetry' | 'vercel';

/**
 * How a reader's calls on an LLM span combine with the calls of the readers before it:
 * `all` adds them, `if_none` only when none were found yet, `union` adds those not already seen.
 */
export type OutputMerge = 'all' | 'if_none' | 'union';

/** Token counts one convention writes on a span (each optional). */
export type UsageReading = Pick<Usage, 'promptTokens' | 'completionTokens' | 'totalTokens'>;

export interface ProducerReader {
  readonly name: ProducerName;
  readonly outputMerge: OutputMerge;
  /**
   * Tool-span fields count even when `recognised` is false (GenAI: `gen_ai.tool.call.*` without
   * `gen_ai.tool.name`, the span name carrying the name).
   */
  readonly keepsUnrecognisedToolFields?: boolean;
  /** Whether the span executed a tool, in this convention. */
  isToolSpan?: (span: SpanRecord) => boolean;
  /** A decisive answer to "is this a model call?" from the convention's own marker; undefined when it has none. */
  isLlmSpanByMarker?: (span: SpanRecord) => boolean | undefined;
  /** A weaker "yes": the span carries this convention's model output (asked only when no marker decided). */
  isLlmSpanByContent?: (span: SpanRecord) => boolean;
  /** The finish reason the convention records beside (not inside) the output. */
  finishReason?: (attrs: Record<string, unknown>) => string | undefined;
  /** What the model answered (several answers for event-based conventions); undefined or empty when none. */
  readOutputs?: (span: SpanRecord, logs: LogRecordEntry[]) => LlmOutput[] | undefined;
  /**
   * Only the text of the answer, asked instead of readOutputs when an earlier reader already gave the
   * calls and this reader's would be dropped (`if_none`): parsing calls that are thrown away is the
   * costliest part of reading a span.
   */
  readOutputText?: (span: SpanRecord) => { text?: string } | undefined;
  /** The request history the model saw; undefined when the span has none in this convention. */
  readInput?: (span: SpanRecord, logs: LogRecordEntry[]) => Message[] | undefined;
  /** What a tool span says about the call it executed. */
  readToolSpan?: (span: SpanRecord) => ToolSpanReading;
  /** Tool results recorded apart from any span (log records): call id → result text. */
  readToolResults?: (logs: LogRecordEntry[]) => Array<{ id: string; result: string }>;
  usage?: (attrs: Record<string, unknown>) => UsageReading;
  provider?: (attrs: Record<string, unknown>) => string | undefined;
  requestModel?: (attrs: Record<string, unknown>) => string | undefined;
  responseModel?: (attrs: Record<string, unknown>) => string | undefined;
}
