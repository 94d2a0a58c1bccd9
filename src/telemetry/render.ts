// Renders a scored Run as one trace, after scoring, with the recorded timestamps:
// turn (root, invoke_agent) → llm (chat, one per model call) → tool (execute_tool, one per tool call).
// Only @opentelemetry/api is used here, so any Tracer (SDK, test, no-op) works.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type HrTime, type Span, type Tracer } from '@opentelemetry/api';
import { SemanticConventions as OI, OpenInferenceSpanKind } from '@arizeai/openinference-semantic-conventions';
import { hashArguments, keyFingerprint } from '../scoring/arg-hash.js';
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '../semconv/gen-ai.js';
import { ATTR_LANGSMITH_SPAN_KIND, LANGSMITH_SPAN_KIND_VALUE_CHAIN, LANGSMITH_SPAN_KIND_VALUE_LLM, LANGSMITH_SPAN_KIND_VALUE_TOOL } from '../semconv/vendor.js';
import { ATTR_RUNSPEC_EVAL_ARGUMENT_HASHES } from '../semconv/attributes.js';
import type { Case } from '../types/case.js';
import type { ModelCallRecord, Run, RunError, ToolCallRecord } from '../types/run.js';
import type { Toolset } from '../types/toolset.js';
import type { CaseResult, Verdict } from '../types/verdict.js';
import {
  addEvaluationEvent,
  genAiMessage,
  genAiOutputMessages,
  genAiToolDefinitionsJson,
  writeGenAiToolSpanAttributes,
  writeRequestParamAttributes,
} from './conventions/gen-ai.js';
import {
  MimeType,
  openInferenceProvider,
  writeEvaluationAttributes,
  writeOiToolSpanAttributes,
  writeOpenInferenceMessages,
  writeOpenInferenceTools,
} from './conventions/openinference.js';
import {
  evaluationIdentifier,
  summarizeVerdict,
  writeRunspecToolSpanAttributes,
  writeVerdictAttributes,
  type VerdictContext,
  type VerdictSummary,
} from './conventions/runspec.js';
import { RecordSink, type AttributeSink } from './attributes.js';
import { totalTokens } from '../core/tokens.js';

/** What one case sample's trace is rendered from. */
export interface RenderInput {
  case: Case;
  /** Absent when the sample errored before any Run existed (the root span then carries `error`). */
  run?: Run;
  verdict?: Verdict;
  /** The case's aggregate (pass rate, threshold), so every sample's root span carries it. */
  result?: CaseResult;
  runId: string;
  /** Attach prompts, messages, arguments and results. */
  captureContent: boolean;
  /** Hashed capture: without content, each tool span carries its arguments' keyed hashes. */
  hashKey?: string;
  /** `gen_ai.agent.name`. @default "runspec-eval" */
  agentName?: string;
  toolset?: Toolset;
  /** Sample index when there is no Run. */
  sample?: number;
  /** Error of a sample without a Run. */
  error?: RunError;
  /** Span times of a sample without a Run (epoch ms). */
  startTimeMs?: number;
  endTimeMs?: number;
}

/** Ids of what was rendered (lowercase hex), e.g. to key Phoenix annotations. */
export interface RenderedTrace {
  traceId: string;
  rootSpanId: string;
  /** `[telemetry] trace_url` filled in for this trace (set by the telemetry session). */
  url?: string;
  llmSpanIds: string[];
  toolSpanIds: string[];
}

export const DEFAULT_AGENT_NAME = 'runspec-eval';

function hr(ms: number): HrTime {
  const whole = Math.floor(ms);
  return [Math.floor(whole / 1000), (whole % 1000) * 1_000_000 + Math.round((ms - whole) * 1_000_000)];
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

/** The case root span of a sample: its name, times, error, verdict summary and attributes (verdict ones included). */
export interface CaseRoot {
  name: string;
  startMs: number;
  endMs: number;
  error: RunError | undefined;
  summary: VerdictSummary;
  conversationId: string;
  /** Write the root's attributes onto `sink`, in wire order. */
  writeAttributes(sink: AttributeSink): void;
}

/**
 * The root span of a case sample as renderRunTrace writes it, and as an agent target's case root carries it
 * on top of the agent's own spans (agent-trace.ts).
 */
export function caseRootOf(input: RenderInput): CaseRoot {
  const { run, captureContent } = input;
  const caseId = input.case.id;
  const suite = input.case.suite;
  const sample = run?.sample ?? input.verdict?.sample ?? input.sample ?? 0;
  const agent = input.agentName ?? DEFAULT_AGENT_NAME;
  const conversationId = `${input.runId}/${caseId}/${sample}`;
  const startMs = run?.startTimeMs ?? input.startTimeMs ?? Date.now();
  const endMs = run?.endTimeMs ?? input.endTimeMs ?? startMs;
  const error = run?.status === 'error' ? (run.error ?? input.error ?? { code: 'error', message: 'run failed' }) : input.error;

  // Built by assignment in the same key order as before: conditional spreads made a throwaway object each.
  const ctx: VerdictContext = { caseId, sample, runId: input.runId, captureContent };
  if (suite !== undefined) ctx.suite = suite;
  if (input.verdict) ctx.verdict = input.verdict;
  else if (error) ctx.error = error;
  if (input.result) ctx.result = input.result;
  if (run?.toolMode) ctx.toolMode = run.toolMode;
  if (run) {
    ctx.status = run.status;
    ctx.usage = run.usage;
  }
  if (input.case.runspec?.args) ctx.expectedArgs = input.case.runspec.args;
  const summary = summarizeVerdict(ctx);

  const writeAttributes = (sink: AttributeSink): void => {
    // gen_ai.provider.name is the provider that answered (a replay names the recorded one), not the display
    // name of the provider object (`replay`).
    const provider = run?.modelCalls[0]?.provider ?? run?.provider;
    // Written in order, skipping what is absent. The key order is the wire order and stays as it was.
    sink.setAttribute(ATTR_GEN_AI_OPERATION_NAME, GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    if (provider !== undefined) sink.setAttribute(ATTR_GEN_AI_PROVIDER_NAME, provider);
    sink.setAttribute(ATTR_GEN_AI_AGENT_NAME, agent);
    sink.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, conversationId);
    if (run?.model !== undefined) sink.setAttribute(ATTR_GEN_AI_REQUEST_MODEL, run.model);
    if (run?.usage.promptTokens !== undefined) sink.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, run.usage.promptTokens);
    if (run?.usage.completionTokens !== undefined) sink.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, run.usage.completionTokens);
    sink.setAttribute(OI.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKind.AGENT);
    sink.setAttribute(OI.AGENT_NAME, agent);
    // One Phoenix session per run, so a run's samples group together; the conversation stays per sample.
    sink.setAttribute(OI.SESSION_ID, input.runId);
    sink.setAttribute(OI.METADATA, metadataJson(input, caseId, sample));
    if (input.case.tags.length > 0) sink.setAttribute(OI.TAG_TAGS, input.case.tags);
    sink.setAttribute(ATTR_LANGSMITH_SPAN_KIND, LANGSMITH_SPAN_KIND_VALUE_CHAIN);
    if (captureContent) {
      if (input.case.prompt !== undefined) sink.setAttribute(OI.INPUT_VALUE, input.case.prompt);
      sink.setAttribute(OI.INPUT_MIME_TYPE, MimeType.TEXT);
      if (run?.finalText !== undefined && run.mode !== 'decision') {
        sink.setAttribute(OI.OUTPUT_VALUE, run.finalText);
        sink.setAttribute(OI.OUTPUT_MIME_TYPE, MimeType.TEXT);
      }
    }
    // Decision mode: the root's output is the decision and its verdict, so Phoenix's trace list reads well.
    if (run?.mode === 'decision') {
      sink.setAttribute(OI.OUTPUT_VALUE, json(decisionOutput(run, input.verdict, summary, captureContent)));
      sink.setAttribute(OI.OUTPUT_MIME_TYPE, MimeType.JSON);
    }
    writeVerdictAttributes(sink, ctx, summary);
    writeEvaluationAttributes(sink, summary, evaluationIdentifier(caseId, sample));
  };
  return { name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agent}`, startMs, endMs, error, summary, conversationId, writeAttributes };
}

/** OpenInference `metadata`: `{case_id, suite?, sample, run_id, mode, dialect}` as JSON. */
function metadataJson(input: RenderInput, caseId: string, sample: number): string {
  const metadata: Record<string, unknown> = { case_id: caseId };
  if (input.case.suite !== undefined) metadata.suite = input.case.suite;
  metadata.sample = sample;
  metadata.run_id = input.runId;
  metadata.mode = input.run?.mode ?? input.case.mode;
  metadata.dialect = input.case.dialect;
  return json(metadata);
}

/**
 * Render one case sample as a trace: root `invoke_agent {agent}` → `chat {model}` per model call →
 * `execute_tool {tool}` per tool call (child of the model call that requested it).
 *
 * @example
 * const ids = renderRunTrace(tracer, { case: c, run, verdict, result, runId, captureContent: false });
 */
export function renderRunTrace(tracer: Tracer, input: RenderInput): RenderedTrace {
  const { run, captureContent } = input;
  const caseRoot = caseRootOf(input);
  const { startMs, endMs, error, summary, conversationId } = caseRoot;
  // Attributes are set after the start rather than given in the start options: there the SDK's Tracer
  // copies and checks them twice for the sampler before the span checks them again. The samplers a run can
  // have (parent-based or ratio, OTEL_TRACES_SAMPLER) decide on the trace id alone, so the spans on the wire
  // are the same.
  const root = tracer.startSpan(caseRoot.name, { kind: SpanKind.INTERNAL, startTime: hr(startMs), root: true }, ROOT_CONTEXT);
  caseRoot.writeAttributes(root);
  const rootCtx = trace.setSpan(ROOT_CONTEXT, root);

  const modelCalls = run?.modelCalls ?? [];
  const llmSpans: Span[] = [];
  const llmSpanIds: string[] = [];
  const toolSpanIds: string[] = [];
  for (const call of modelCalls) {
    const span = tracer.startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${call.requestModel ?? call.responseModel ?? run?.model ?? 'unknown'}`,
      { kind: SpanKind.CLIENT, startTime: hr(call.startTimeMs) },
      rootCtx,
    );
    writeLlmAttributes(span, call, conversationId, input.runId, captureContent);
    if (call.error) setError(span, call.error);
    llmSpans.push(span);
    llmSpanIds.push(span.spanContext().spanId);
  }
  // Tool spans sit under the agent span, beside the chat span that requested them, and are tied to it by
  // gen_ai.tool.call.id, as the GenAI agent conventions lay out an agent turn.
  for (const record of run?.toolCalls ?? []) {
    const span = tracer.startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${record.call.name}`,
      { kind: SpanKind.INTERNAL, startTime: hr(record.startTimeMs) },
      rootCtx,
    );
    writeToolAttributes(span, record, run!, input.toolset, captureContent, input.hashKey);
    // A failed call is an error whether the tool ran (tool_error) or not (unknown_tool,
    // permission_denied, not_implemented, ...); decision-mode terminal calls carry no error.
    if (record.isError && !record.dropped) {
      // The message can quote arguments (an unmatched mock names them): only with content capture.
      span.setStatus({ code: SpanStatusCode.ERROR, ...(captureContent && record.errorType && record.result ? { message: record.result } : {}) });
      span.setAttribute(ATTR_ERROR_TYPE, record.errorType ?? 'tool_error');
    }
    span.end(hr(record.endTimeMs));
    toolSpanIds.push(span.spanContext().spanId);
  }
  for (let i = 0; i < modelCalls.length; i++) llmSpans[i]!.end(hr(modelCalls[i]!.endTimeMs));

  addEvaluationEvent(root, summary, hr(endMs));
  if (error) setError(root, error);
  root.end(hr(endMs));
  return { traceId: root.spanContext().traceId, rootSpanId: root.spanContext().spanId, llmSpanIds, toolSpanIds };
}

/** `{ decision: {tool, command, host, autonomy, executed, args?}, verdict: {category, pass?, reason} }`. */
function decisionOutput(run: Run, verdict: Verdict | undefined, summary: VerdictSummary, captureContent: boolean): Record<string, unknown> {
  const terminal = run.terminal;
  // Assigned in key order (the JSON's order); conditional spreads made a throwaway object each.
  let decision: Record<string, unknown>;
  if (terminal) {
    const observed = verdict?.observed;
    decision = { tool: observed?.tool ?? terminal.call.name };
    if (observed?.command !== undefined) decision.command = observed.command;
    if (observed?.host !== undefined) decision.host = observed.host;
    if (observed?.autonomy !== undefined) decision.autonomy = observed.autonomy;
    decision.executed = terminal.executed;
    if (captureContent) decision.args = terminal.call.arguments;
  } else decision = { tool: null };
  const judged: Record<string, unknown> = { category: summary.category };
  if (summary.judged) judged.pass = summary.pass;
  judged.reason = summary.reason;
  return { decision, verdict: judged };
}

function setError(span: Span, error: RunError): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.setAttribute(ATTR_ERROR_TYPE, error.code || '_OTHER');
}

function writeLlmAttributes(sink: AttributeSink, call: ModelCallRecord, conversationId: string, sessionId: string, captureContent: boolean): void {
  const oi = openInferenceProvider(call.provider);
  const u = call.usage;
  const total = totalTokens(u);
  const finish = call.response?.finishReason;
  // Written in order, skipping what is absent (see the root span's attributes).
  sink.setAttribute(ATTR_GEN_AI_OPERATION_NAME, GEN_AI_OPERATION_NAME_VALUE_CHAT);
  sink.setAttribute(ATTR_GEN_AI_PROVIDER_NAME, call.provider);
  if (call.requestModel !== undefined) sink.setAttribute(ATTR_GEN_AI_REQUEST_MODEL, call.requestModel);
  if (call.responseModel !== undefined) sink.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, call.responseModel);
  if (call.responseId !== undefined) sink.setAttribute(ATTR_GEN_AI_RESPONSE_ID, call.responseId);
  if (finish !== undefined) sink.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [finish]);
  if (u.promptTokens !== undefined) sink.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, u.promptTokens);
  if (u.completionTokens !== undefined) sink.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, u.completionTokens);
  sink.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, conversationId);
  if (call.serverAddress !== undefined) sink.setAttribute(ATTR_SERVER_ADDRESS, call.serverAddress);
  if (call.serverPort !== undefined) sink.setAttribute(ATTR_SERVER_PORT, call.serverPort);
  writeRequestParamAttributes(sink, call.request.params);
  sink.setAttribute(OI.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKind.LLM);
  const modelName = call.responseModel ?? call.requestModel;
  if (modelName !== undefined) sink.setAttribute(OI.LLM_MODEL_NAME, modelName);
  if (oi.provider !== undefined) sink.setAttribute(OI.LLM_PROVIDER, oi.provider);
  if (oi.system !== undefined) sink.setAttribute(OI.LLM_SYSTEM, oi.system);
  sink.setAttribute(OI.LLM_INVOCATION_PARAMETERS, json(call.request.params));
  if (u.promptTokens !== undefined) sink.setAttribute(OI.LLM_TOKEN_COUNT_PROMPT, u.promptTokens);
  if (u.completionTokens !== undefined) sink.setAttribute(OI.LLM_TOKEN_COUNT_COMPLETION, u.completionTokens);
  if (total !== undefined) sink.setAttribute(OI.LLM_TOKEN_COUNT_TOTAL, total);
  if (finish !== undefined) sink.setAttribute(OI.LLM_FINISH_REASON, finish);
  sink.setAttribute(OI.SESSION_ID, sessionId);
  sink.setAttribute(ATTR_LANGSMITH_SPAN_KIND, LANGSMITH_SPAN_KIND_VALUE_LLM);
  if (!captureContent) return;
  const outMessages = call.response
    ? [{ role: 'assistant' as const, ...(call.response.text !== undefined ? { content: call.response.text } : {}), toolCalls: call.response.toolCalls }]
    : [];
  // The history grows each turn: serialise it once for both conventions.
  const inputJson = json(call.request.messages.map(genAiMessage));
  const outputJson = call.response ? json(genAiOutputMessages(call)) : undefined;
  sink.setAttribute(ATTR_GEN_AI_INPUT_MESSAGES, inputJson);
  if (outputJson !== undefined) sink.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, outputJson);
  if (call.request.tools.length > 0) sink.setAttribute(ATTR_GEN_AI_TOOL_DEFINITIONS, genAiToolDefinitionsJson(call.request.tools));
  writeOpenInferenceMessages(sink, OI.LLM_INPUT_MESSAGES, call.request.messages);
  writeOpenInferenceMessages(sink, OI.LLM_OUTPUT_MESSAGES, outMessages);
  writeOpenInferenceTools(sink, call.request.tools);
  sink.setAttribute(OI.INPUT_VALUE, inputJson);
  sink.setAttribute(OI.INPUT_MIME_TYPE, MimeType.JSON);
  if (outputJson !== undefined) {
    sink.setAttribute(OI.OUTPUT_VALUE, outputJson);
    sink.setAttribute(OI.OUTPUT_MIME_TYPE, MimeType.JSON);
  }
}

function toolDescription(record: ToolCallRecord, run: Run, toolset: Toolset | undefined): string | undefined {
  const requested = run.modelCalls.find((c) => c.index === record.modelCallIndex);
  const offered = requested?.request.tools.find((t) => t.name === record.call.name);
  if (offered) return offered.description;
  const runnable = toolset?.runnables.find((r) => r.name === (record.resolved?.runnable ?? record.call.name));
  return runnable?.description;
}

function writeToolAttributes(
  sink: AttributeSink,
  record: ToolCallRecord,
  run: Run,
  toolset: Toolset | undefined,
  captureContent: boolean,
  hashKey: string | undefined,
): void {
  const description = toolDescription(record, run, toolset);
  writeGenAiToolSpanAttributes(sink, record.call, description);
  writeOiToolSpanAttributes(sink, record.call, description);
  writeRunspecToolSpanAttributes(sink, record);
  sink.setAttribute(ATTR_LANGSMITH_SPAN_KIND, LANGSMITH_SPAN_KIND_VALUE_TOOL);
  if (!captureContent && hashKey !== undefined) {
    // No value leaves the process: only HMACs of the values in the form the scorer compares.
    sink.setAttribute(ATTR_RUNSPEC_EVAL_ARGUMENT_HASHES, json({ key: keyFingerprint(hashKey), args: hashArguments(hashKey, record.call.arguments) }));
    return;
  }
  if (!captureContent) return;
  const args = json(record.call.arguments);
  sink.setAttribute(ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, args);
  sink.setAttribute(OI.INPUT_VALUE, args);
  sink.setAttribute(OI.INPUT_MIME_TYPE, MimeType.JSON);
  // Not-run calls carry the message the model was sent (permission denied, unknown tool, ...).
  if (record.result !== undefined) {
    sink.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, record.result);
    sink.setAttribute(OI.OUTPUT_VALUE, record.result);
    sink.setAttribute(OI.OUTPUT_MIME_TYPE, MimeType.TEXT);
  }
}

/** What a verdict carrier span is built from. */
export interface VerdictSpanInput {
  /** The root span of the scored trace (lowercase hex ids). */
  target: { traceId: string; spanId: string };
  verdict: Verdict;
  caseId?: string;
  /** Offline rule that produced the verdict when no case matched. */
  rule?: string;
  runId?: string;
  /** Export the verdict's full reason, which may quote the trace's arguments. @default false */
  captureContent?: boolean;
}

/**
 * Emit a verdict for an already-ended trace: a new span (OpenInference kind EVALUATOR) with exactly one
 * span link to the target, carrying `runspec.eval.*`, `evaluations.0.evaluation.*` and a
 * `gen_ai.evaluation.result` event (OpenInference spec/annotations.md: ended spans are immutable).
 */
export function emitVerdictSpan(tracer: Tracer, input: VerdictSpanInput): { traceId: string; spanId: string } {
  const caseId = input.caseId ?? input.verdict.caseId;
  const ctx: VerdictContext = {
    caseId,
    sample: input.verdict.sample,
    verdict: input.verdict,
    captureContent: input.captureContent ?? false,
    ...(input.rule !== undefined ? { rule: input.rule } : {}),
    ...(input.runId !== undefined ? { runId: input.runId } : {}),
  };
  const summary = summarizeVerdict(ctx);
  const now = Date.now();
  const span = tracer.startSpan(
    `evaluate ${summary.name}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: hr(now),
      root: true,
      links: [{ context: { traceId: input.target.traceId, spanId: input.target.spanId, traceFlags: 1, isRemote: true } }],
      attributes: evaluatorAttributes(ctx, summary, evaluationIdentifier(caseId, input.verdict.sample, input.rule)),
    },
    ROOT_CONTEXT,
  );
  addEvaluationEvent(span, summary, hr(now));
  span.end(hr(now));
  return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
}

/** The carrier span's attributes: its OpenInference kind, then the verdict's, in wire order. */
function evaluatorAttributes(ctx: VerdictContext, summary: VerdictSummary, identifier: string): Attributes {
  const sink = new RecordSink();
  sink.setAttribute(OI.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKind.EVALUATOR);
  writeVerdictAttributes(sink, ctx, summary);
  writeEvaluationAttributes(sink, summary, identifier);
  return sink.attributes;
}
