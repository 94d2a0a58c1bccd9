// Renders a scored Run as one trace, after scoring, with the recorded timestamps:
// turn (root, invoke_agent) → llm (chat, one per model call) → tool (execute_tool, one per tool call).
// Only @opentelemetry/api is used here, so any Tracer (SDK, test, no-op) works.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type HrTime,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
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
  genAiToolDefinitions,
  genAiToolSpanAttributes,
  requestParamAttributes,
} from './conventions/gen-ai.js';
import {
  evaluationAttributes,
  MimeType,
  oiToolSpanAttributes,
  openInferenceMessages,
  openInferenceProvider,
  openInferenceTools,
} from './conventions/openinference.js';
import {
  evaluationIdentifier,
  runspecToolSpanAttributes,
  summarizeVerdict,
  verdictAttributes,
  type VerdictContext,
  type VerdictSummary,
} from './conventions/runspec.js';
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
  attributes: Attributes;
}

/**
 * The root span of a case sample as renderRunTrace writes it, and as an agent target's case root carries it
 * on top of the agent's own spans (agent-trace.ts).
 */
export function caseRootOf(input: RenderInput): CaseRoot {
  const { run, captureContent } = input;
  const caseId = input.case.id;
  const sample = run?.sample ?? input.verdict?.sample ?? input.sample ?? 0;
  const agent = input.agentName ?? DEFAULT_AGENT_NAME;
  const conversationId = `${input.runId}/${caseId}/${sample}`;
  const startMs = run?.startTimeMs ?? input.startTimeMs ?? Date.now();
  const endMs = run?.endTimeMs ?? input.endTimeMs ?? startMs;
  const error = run?.status === 'error' ? (run.error ?? input.error ?? { code: 'error', message: 'run failed' }) : input.error;

  const ctx: VerdictContext = {
    caseId,
    sample,
    runId: input.runId,
    captureContent,
    ...(input.case.suite !== undefined ? { suite: input.case.suite } : {}),
    ...(input.verdict ? { verdict: input.verdict } : {}),
    ...(error && !input.verdict ? { error } : {}),
    ...(input.result ? { result: input.result } : {}),
    ...(run?.toolMode ? { toolMode: run.toolMode } : {}),
    ...(run ? { status: run.status, usage: run.usage } : {}),
    ...(input.case.runspec?.args ? { expectedArgs: input.case.runspec.args } : {}),
  };
  const summary = summarizeVerdict(ctx);
  const metadata = {
    case_id: caseId,
    ...(input.case.suite !== undefined ? { suite: input.case.suite } : {}),
    sample,
    run_id: input.runId,
    mode: run?.mode ?? input.case.mode,
    dialect: input.case.dialect,
  };

  // gen_ai.provider.name is the provider that answered (a replay names the recorded one), not the display
  // name of the provider object (`replay`).
  const provider = run?.modelCalls[0]?.provider ?? run?.provider;
  // Assigned in order, skipping what is absent (a computed-key literal run through compact() cost several
  // times as much per attribute, on every trace). The key order is the wire order and stays as it was.
  const rootAttrs: Attributes = {};
  rootAttrs[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT;
  if (provider !== undefined) rootAttrs[ATTR_GEN_AI_PROVIDER_NAME] = provider;
  rootAttrs[ATTR_GEN_AI_AGENT_NAME] = agent;
  rootAttrs[ATTR_GEN_AI_CONVERSATION_ID] = conversationId;
  if (run?.model !== undefined) rootAttrs[ATTR_GEN_AI_REQUEST_MODEL] = run.model;
  if (run?.usage.promptTokens !== undefined) rootAttrs[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = run.usage.promptTokens;
  if (run?.usage.completionTokens !== undefined) rootAttrs[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = run.usage.completionTokens;
  rootAttrs[OI.OPENINFERENCE_SPAN_KIND] = OpenInferenceSpanKind.AGENT;
  rootAttrs[OI.AGENT_NAME] = agent;
  // One Phoenix session per run, so a run's samples group together; the conversation stays per sample.
  rootAttrs[OI.SESSION_ID] = input.runId;
  rootAttrs[OI.METADATA] = json(metadata);
  if (input.case.tags.length > 0) rootAttrs[OI.TAG_TAGS] = input.case.tags;
  rootAttrs[ATTR_LANGSMITH_SPAN_KIND] = LANGSMITH_SPAN_KIND_VALUE_CHAIN;
  if (captureContent) {
    if (input.case.prompt !== undefined) rootAttrs[OI.INPUT_VALUE] = input.case.prompt;
    rootAttrs[OI.INPUT_MIME_TYPE] = MimeType.TEXT;
    if (run?.finalText !== undefined && run.mode !== 'decision') {
      rootAttrs[OI.OUTPUT_VALUE] = run.finalText;
      rootAttrs[OI.OUTPUT_MIME_TYPE] = MimeType.TEXT;
    }
  }
  // Decision mode: the root's output is the decision and its verdict, so Phoenix's trace list reads well.
  if (run?.mode === 'decision') {
    rootAttrs[OI.OUTPUT_VALUE] = json(decisionOutput(run, input.verdict, summary, captureContent));
    rootAttrs[OI.OUTPUT_MIME_TYPE] = MimeType.JSON;
  }
  // Already compact: appended as they are rather than copied through compact() a second time.
  Object.assign(rootAttrs, verdictAttributes(ctx), evaluationAttributes(summary, evaluationIdentifier(caseId, sample)));
  return { name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agent}`, startMs, endMs, error, summary, conversationId, attributes: rootAttrs };
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
  const { name, startMs, endMs, error, summary, conversationId, attributes: rootAttrs } = caseRootOf(input);
  const root = startSpan(tracer, name, { kind: SpanKind.INTERNAL, startTime: hr(startMs), root: true }, rootAttrs, ROOT_CONTEXT);
  const rootCtx = trace.setSpan(ROOT_CONTEXT, root);

  const llmSpans = new Map<number, Span>();
  const llmSpanIds: string[] = [];
  const toolSpanIds: string[] = [];
  for (const call of run?.modelCalls ?? []) {
    const span = startSpan(
      tracer,
      `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${call.requestModel ?? call.responseModel ?? run?.model ?? 'unknown'}`,
      { kind: SpanKind.CLIENT, startTime: hr(call.startTimeMs) },
      llmAttributes(call, conversationId, input.runId, captureContent),
      rootCtx,
    );
    if (call.error) setError(span, call.error);
    llmSpans.set(call.index, span);
    llmSpanIds.push(span.spanContext().spanId);
  }
  // Tool spans sit under the agent span, beside the chat span that requested them, and are tied to it by
  // gen_ai.tool.call.id, as the GenAI agent conventions lay out an agent turn.
  for (const record of run?.toolCalls ?? []) {
    const span = startSpan(
      tracer,
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${record.call.name}`,
      { kind: SpanKind.INTERNAL, startTime: hr(record.startTimeMs) },
      toolAttributes(record, run!, input.toolset, captureContent, input.hashKey),
      rootCtx,
    );
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
  for (const call of run?.modelCalls ?? []) llmSpans.get(call.index)?.end(hr(call.endTimeMs));

  addEvaluationEvent(root, summary, hr(endMs));
  if (error) setError(root, error);
  root.end(hr(endMs));
  return { traceId: root.spanContext().traceId, rootSpanId: root.spanContext().spanId, llmSpanIds, toolSpanIds };
}

/**
 * Start a span, then set its attributes (built once, in wire order). Given in the start options, the SDK's
 * Tracer copies and checks them twice for the sampler before the span checks them again; the samplers a
 * run can have (parent-based or ratio, OTEL_TRACES_SAMPLER) decide on the trace id alone, so the spans on
 * the wire are the same.
 */
function startSpan(tracer: Tracer, name: string, options: SpanOptions, attributes: Attributes, parent: Context): Span {
  const span = tracer.startSpan(name, options, parent);
  span.setAttributes(attributes);
  return span;
}

/** `{ decision: {tool, command, host, autonomy, executed, args?}, verdict: {category, pass?, reason} }`. */
function decisionOutput(run: Run, verdict: Verdict | undefined, summary: VerdictSummary, captureContent: boolean): Record<string, unknown> {
  const terminal = run.terminal;
  const decision: Record<string, unknown> = terminal
    ? {
        tool: verdict?.observed.tool ?? terminal.call.name,
        ...(verdict?.observed.command !== undefined ? { command: verdict.observed.command } : {}),
        ...(verdict?.observed.host !== undefined ? { host: verdict.observed.host } : {}),
        ...(verdict?.observed.autonomy !== undefined ? { autonomy: verdict.observed.autonomy } : {}),
        executed: terminal.executed,
        ...(captureContent ? { args: terminal.call.arguments } : {}),
      }
    : { tool: null };
  return { decision, verdict: { category: summary.category, ...(summary.judged ? { pass: summary.pass } : {}), reason: summary.reason } };
}

function setError(span: Span, error: RunError): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.setAttribute(ATTR_ERROR_TYPE, error.code || '_OTHER');
}

function llmAttributes(call: ModelCallRecord, conversationId: string, sessionId: string, captureContent: boolean): Attributes {
  const oi = openInferenceProvider(call.provider);
  const u = call.usage;
  const total = totalTokens(u);
  const finish = call.response?.finishReason;
  // Assigned in order, skipping what is absent (see the root span's attributes).
  const attrs: Attributes = {};
  attrs[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_CHAT;
  attrs[ATTR_GEN_AI_PROVIDER_NAME] = call.provider;
  if (call.requestModel !== undefined) attrs[ATTR_GEN_AI_REQUEST_MODEL] = call.requestModel;
  if (call.responseModel !== undefined) attrs[ATTR_GEN_AI_RESPONSE_MODEL] = call.responseModel;
  if (call.responseId !== undefined) attrs[ATTR_GEN_AI_RESPONSE_ID] = call.responseId;
  if (finish !== undefined) attrs[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [finish];
  if (u.promptTokens !== undefined) attrs[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = u.promptTokens;
  if (u.completionTokens !== undefined) attrs[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = u.completionTokens;
  attrs[ATTR_GEN_AI_CONVERSATION_ID] = conversationId;
  if (call.serverAddress !== undefined) attrs[ATTR_SERVER_ADDRESS] = call.serverAddress;
  if (call.serverPort !== undefined) attrs[ATTR_SERVER_PORT] = call.serverPort;
  Object.assign(attrs, requestParamAttributes(call.request.params));
  attrs[OI.OPENINFERENCE_SPAN_KIND] = OpenInferenceSpanKind.LLM;
  const modelName = call.responseModel ?? call.requestModel;
  if (modelName !== undefined) attrs[OI.LLM_MODEL_NAME] = modelName;
  if (oi.provider !== undefined) attrs[OI.LLM_PROVIDER] = oi.provider;
  if (oi.system !== undefined) attrs[OI.LLM_SYSTEM] = oi.system;
  attrs[OI.LLM_INVOCATION_PARAMETERS] = json(call.request.params);
  if (u.promptTokens !== undefined) attrs[OI.LLM_TOKEN_COUNT_PROMPT] = u.promptTokens;
  if (u.completionTokens !== undefined) attrs[OI.LLM_TOKEN_COUNT_COMPLETION] = u.completionTokens;
  if (total !== undefined) attrs[OI.LLM_TOKEN_COUNT_TOTAL] = total;
  if (finish !== undefined) attrs[OI.LLM_FINISH_REASON] = finish;
  attrs[OI.SESSION_ID] = sessionId;
  attrs[ATTR_LANGSMITH_SPAN_KIND] = LANGSMITH_SPAN_KIND_VALUE_LLM;
  if (!captureContent) return attrs;
  const input = call.request.messages.map(genAiMessage);
  const output = genAiOutputMessages(call);
  const outMessages = call.response
    ? [{ role: 'assistant' as const, ...(call.response.text !== undefined ? { content: call.response.text } : {}), toolCalls: call.response.toolCalls }]
    : [];
  // The history grows each turn: serialise it once for both conventions.
  const inputJson = json(input);
  const outputJson = call.response ? json(output) : undefined;
  return {
    ...attrs,
    [ATTR_GEN_AI_INPUT_MESSAGES]: inputJson,
    ...(outputJson !== undefined ? { [ATTR_GEN_AI_OUTPUT_MESSAGES]: outputJson } : {}),
    ...(call.request.tools.length > 0 ? { [ATTR_GEN_AI_TOOL_DEFINITIONS]: json(genAiToolDefinitions(call.request.tools)) } : {}),
    ...openInferenceMessages(OI.LLM_INPUT_MESSAGES, call.request.messages),
    ...openInferenceMessages(OI.LLM_OUTPUT_MESSAGES, outMessages),
    ...openInferenceTools(call.request.tools),
    [OI.INPUT_VALUE]: inputJson,
    [OI.INPUT_MIME_TYPE]: MimeType.JSON,
    ...(outputJson !== undefined ? { [OI.OUTPUT_VALUE]: outputJson, [OI.OUTPUT_MIME_TYPE]: MimeType.JSON } : {}),
  };
}

function toolDescription(record: ToolCallRecord, run: Run, toolset: Toolset | undefined): string | undefined {
  const requested = run.modelCalls.find((c) => c.index === record.modelCallIndex);
  const offered = requested?.request.tools.find((t) => t.name === record.call.name);
  if (offered) return offered.description;
  const runnable = toolset?.runnables.find((r) => r.name === (record.resolved?.runnable ?? record.call.name));
  return runnable?.description;
}

function toolAttributes(record: ToolCallRecord, run: Run, toolset: Toolset | undefined, captureContent: boolean, hashKey?: string): Attributes {
  const description = toolDescription(record, run, toolset);
  // Each part is already compact: merged as they are, not copied through compact() again.
  const attrs: Attributes = Object.assign(
    {},
    genAiToolSpanAttributes(record.call, description),
    oiToolSpanAttributes(record.call, description),
    runspecToolSpanAttributes(record),
  );
  attrs[ATTR_LANGSMITH_SPAN_KIND] = LANGSMITH_SPAN_KIND_VALUE_TOOL;
  if (!captureContent && hashKey !== undefined) {
    // No value leaves the process: only HMACs of the values in the form the scorer compares.
    return { ...attrs, [ATTR_RUNSPEC_EVAL_ARGUMENT_HASHES]: json({ key: keyFingerprint(hashKey), args: hashArguments(hashKey, record.call.arguments) }) };
  }
  if (!captureContent) return attrs;
  const args = json(record.call.arguments);
  // Not-run calls carry the message the model was sent (permission denied, unknown tool, ...).
  const hasResult = record.result !== undefined;
  return {
    ...attrs,
    [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args,
    [OI.INPUT_VALUE]: args,
    [OI.INPUT_MIME_TYPE]: MimeType.JSON,
    ...(hasResult ? { [ATTR_GEN_AI_TOOL_CALL_RESULT]: record.result!, [OI.OUTPUT_VALUE]: record.result!, [OI.OUTPUT_MIME_TYPE]: MimeType.TEXT } : {}),
  };
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
      attributes: {
        [OI.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.EVALUATOR,
        ...verdictAttributes(ctx),
        ...evaluationAttributes(summary, evaluationIdentifier(caseId, input.verdict.sample, input.rule)),
      },
    },
    ROOT_CONTEXT,
  );
  addEvaluationEvent(span, summary, hr(now));
  span.end(hr(now));
  return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
}
