// Attribute builders shared by the trace renderer and the verdict carrier span. Every span carries both
// conventions (docs/semconv.md): gen_ai.* (semantic-conventions v1.41.0,
// vendored in src/semconv/gen-ai.ts from the incubating entry point) for LangSmith and generic backends, OpenInference
// (`@arizeai/openinference-semantic-conventions`) for Phoenix, plus `langsmith.span.kind` and our
// `runspec.eval.*` registry. Structured values are JSON strings and OpenInference lists are flattened (Arize-ai/openinference: spec/semantic_conventions.md).
import type { Attributes, AttributeValue, Span, TimeInput } from '@opentelemetry/api';
import { SemanticConventions as OI, LLMProvider, LLMSystem, MimeType } from '@arizeai/openinference-semantic-conventions';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  EVENT_GEN_AI_EVALUATION_RESULT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_INFERENCE,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_COHERE,
  GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEN_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_GROQ,
  GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY,
  GEN_AI_PROVIDER_NAME_VALUE_X_AI,
} from '../semconv/gen-ai.js';
import { ATTR_RUNSPEC_EVAL_ACCURACY, ATTR_RUNSPEC_EVAL_CALLS, ATTR_RUNSPEC_EVAL_CASE_ID, ATTR_RUNSPEC_EVAL_CATEGORY, ATTR_RUNSPEC_EVAL_DIALECT, ATTR_RUNSPEC_EVAL_ERRORS, ATTR_RUNSPEC_EVAL_EXPECTED_AUTONOMY, ATTR_RUNSPEC_EVAL_EXPECTED_COMMAND, ATTR_RUNSPEC_EVAL_EXPECTED_HOST, ATTR_RUNSPEC_EVAL_EXPECTED_TOOL, ATTR_RUNSPEC_EVAL_JSON_DUMP, ATTR_RUNSPEC_EVAL_MATCH_MODE, ATTR_RUNSPEC_EVAL_MEETS_THRESHOLD, ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY, ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND, ATTR_RUNSPEC_EVAL_OBSERVED_HOST, ATTR_RUNSPEC_EVAL_OBSERVED_TOOL, ATTR_RUNSPEC_EVAL_PASS, ATTR_RUNSPEC_EVAL_PASS_RATE, ATTR_RUNSPEC_EVAL_PASS_RATE_HIGH, ATTR_RUNSPEC_EVAL_PASS_RATE_LOW, ATTR_RUNSPEC_EVAL_REASON, ATTR_RUNSPEC_EVAL_REDUNDANT, ATTR_RUNSPEC_EVAL_RULE, ATTR_RUNSPEC_EVAL_RUN_ID, ATTR_RUNSPEC_EVAL_SAMPLE, ATTR_RUNSPEC_EVAL_SAMPLES, ATTR_RUNSPEC_EVAL_SCORE, ATTR_RUNSPEC_EVAL_STATUS, ATTR_RUNSPEC_EVAL_SUITE, ATTR_RUNSPEC_EVAL_THRESHOLD, ATTR_RUNSPEC_EVAL_TOKENS, ATTR_RUNSPEC_EVAL_TOOL_MODE, ATTR_RUNSPEC_EVAL_ARGS_PASS, ATTR_RUNSPEC_EVAL_EXPECTED_ARGS_HASH } from '../semconv/attributes.js';
import { RUNSPEC_EVALUATION_NAME, RUNSPEC_RULE_EVALUATION_PREFIX, RUNSPEC_TRAJECTORY_EVALUATION_NAME } from '../semconv/vendor.js';
import type { ArgExpectation } from '../types/case.js';
import type { Message, ModelCallRecord, RunError, RunStatus, ToolCall, Usage } from '../types/run.js';
import type { ToolDefinition, ToolMode } from '../types/toolset.js';
import type { CaseResult, Verdict, VerdictCategory } from '../types/verdict.js';
import { contentFreeReason } from './content-free.js';
import { expectationsHash } from '../scoring/arg-hash.js';
import { isUnjudgedCategory } from '../scoring/samples.js';
import { totalTokens } from '../core/tokens.js';

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

// ---------------------------------------------------------------- verdict (runspec.eval.*)

/** What the verdict attributes are built from; `verdict` is absent when the sample errored before scoring. */
export interface VerdictContext {
  caseId: string;
  sample?: number;
  suite?: string;
  runId?: string;
  rule?: string;
  verdict?: Verdict;
  /** The error of a sample that never produced a verdict. */
  error?: RunError;
  result?: CaseResult;
  /** Content capture on: the verdict's full reason (which may quote arguments) is exported. */
  captureContent?: boolean;
  /** The case's argument expectations (runspec `expect_args`): their fingerprint goes on the root span. */
  expectedArgs?: Record<string, ArgExpectation>;
  /** Fallbacks when the verdict lacks them. */
  toolMode?: ToolMode;
  status?: RunStatus;
  usage?: Usage;
}

/** What every verdict form (attributes, event, annotation) shares. */
export interface VerdictSummary {
  pass: boolean;
  category: VerdictCategory;
  reason: string;
  /**
   * A real verdict to score and alert on. False for infrastructure errors and for `unscorable` /
   * `incomplete` verdicts: those export no score and no `runspec.eval.pass`, so a mean score or an alert on
   * `pass=false` counts only real verdicts.
   */
  judged: boolean;
  /** `error.type` of an errored sample (the error code). */
  errorType?: string;
  /** Evaluator name: tool selection, trajectory, or one per offline rule. */
  name: string;
}

/** The evaluator (annotation) name of a verdict: distinct per kind so Phoenix does not average them together. */
export function evaluationName(verdict: Pick<Verdict, 'dialect' | 'caseId'> | undefined, rule?: string): string {
  if (rule !== undefined) return `${RUNSPEC_RULE_EVALUATION_PREFIX}${rule}`;
  if (verdict?.dialect === 'rule') return `${RUNSPEC_RULE_EVALUATION_PREFIX}${verdict.caseId}`;
  if (verdict?.dialect === 'replio' || verdict?.dialect === 'turnstone') return RUNSPEC_TRAJECTORY_EVALUATION_NAME;
  return RUNSPEC_EVALUATION_NAME;
}

/** Without content capture the reason is rebuilt from names only: it may quote argument values. */
export function summarizeVerdict(ctx: Pick<VerdictContext, 'verdict' | 'error' | 'captureContent' | 'rule'>): VerdictSummary {
  const name = evaluationName(ctx.verdict, ctx.rule);
  if (ctx.verdict) {
    const v = ctx.verdict;
    const reason = ctx.captureContent ? v.reason : contentFreeReason(v);
    const s: VerdictSummary = { pass: v.pass, category: v.category, reason, judged: v.category !== 'error' && !isUnjudgedCategory(v.category), name };
    if (v.category === 'error') s.errorType = errorTypeOf(v);
    return s;
  }
  return {
    pass: false,
    category: 'error',
    reason: ctx.error ? `${ctx.error.code}: ${ctx.error.message}` : 'no verdict',
    judged: false,
    errorType: ctx.error?.code || '_OTHER',
    name,
  };
}

/** The error code recorded in the verdict's `run_status` check (`_OTHER` when there is none). */
function errorTypeOf(v: Verdict): string {
  const observed = v.checks?.find((k) => k.check === 'run_status')?.observed;
  return typeof observed === 'string' && observed !== '' ? observed : '_OTHER';
}

/** Whether the argument checks of a verdict all held (true), one failed (false), or were not all judged. */
function argsPass(v: Verdict | undefined): boolean | undefined {
  const checks = (v?.checks ?? []).filter((k) => k.check === 'args' || k.check.startsWith('args.'));
  if (!checks.length || checks.some((k) => !k.judged)) return undefined;
  return checks.every((k) => k.pass === true);
}

/** `runspec.eval.*` attributes: always attached, independent of content capture. */
export function verdictAttributes(ctx: VerdictContext): Attributes {
  const v = ctx.verdict;
  const s = summarizeVerdict(ctx);
  const r = ctx.result;
  // A case with no judged sample (all errored or unscorable) has no pass rate: absent, not 0, so an outage
  // never reads as a regression on a pass_rate or meets_threshold alert.
  const judgedSamples = r ? r.samples.filter((x) => x.status === 'scored').length - (r.unscorable ?? 0) : 0;
  const rated = r && (judgedSamples > 0 || (!r.errored && !r.unscorable)) ? r : undefined;
  // Absent, not 0, when nothing reported usage (replio's metric counts unknown as 0).
  const tokens = v?.replio?.tokens ? v.replio.tokens : totalTokens(ctx.usage);
  return compact({
    [ATTR_RUNSPEC_EVAL_CASE_ID]: ctx.caseId,
    [ATTR_RUNSPEC_EVAL_SUITE]: ctx.suite,
    [ATTR_RUNSPEC_EVAL_SAMPLE]: ctx.sample ?? v?.sample,
    [ATTR_RUNSPEC_EVAL_RUN_ID]: ctx.runId,
    [ATTR_RUNSPEC_EVAL_RULE]: ctx.rule,
    [ATTR_RUNSPEC_EVAL_DIALECT]: v?.dialect,
    [ATTR_RUNSPEC_EVAL_PASS]: s.judged ? s.pass : undefined,
    [ATTR_RUNSPEC_EVAL_CATEGORY]: s.category,
    [ATTR_RUNSPEC_EVAL_REASON]: s.reason,
    [ATTR_RUNSPEC_EVAL_STATUS]: v ? v.status : ctx.error ? 'error' : ctx.status,
    [ATTR_RUNSPEC_EVAL_TOOL_MODE]: v?.toolMode ?? ctx.toolMode,
    [ATTR_RUNSPEC_EVAL_EXPECTED_TOOL]: v?.expected.tool && v.expected.tool.length > 0 ? v.expected.tool.join('|') : undefined,
    [ATTR_RUNSPEC_EVAL_OBSERVED_TOOL]: v?.observed.tool,
    [ATTR_RUNSPEC_EVAL_EXPECTED_COMMAND]: v?.expected.command,
    [ATTR_RUNSPEC_EVAL_OBSERVED_COMMAND]: v?.observed.command,
    [ATTR_RUNSPEC_EVAL_EXPECTED_HOST]: v?.expected.host,
    [ATTR_RUNSPEC_EVAL_OBSERVED_HOST]: v?.observed.host,
    [ATTR_RUNSPEC_EVAL_EXPECTED_AUTONOMY]: v?.expected.autonomy,
    [ATTR_RUNSPEC_EVAL_OBSERVED_AUTONOMY]: v?.observed.autonomy,
    [ATTR_RUNSPEC_EVAL_JSON_DUMP]: v?.jsonDump,
    [ATTR_RUNSPEC_EVAL_CALLS]: v ? v.replio?.calls ?? v.calls.length : undefined,
    [ATTR_RUNSPEC_EVAL_REDUNDANT]: v?.replio?.redundant,
    [ATTR_RUNSPEC_EVAL_ERRORS]: v?.replio?.errors,
    [ATTR_RUNSPEC_EVAL_ACCURACY]: v?.replio?.accuracy ?? undefined,
    [ATTR_RUNSPEC_EVAL_SCORE]: v?.match?.score,
    [ATTR_RUNSPEC_EVAL_MATCH_MODE]: v?.match?.matchMode,
    [ATTR_RUNSPEC_EVAL_TOKENS]: tokens,
    [ATTR_RUNSPEC_EVAL_SAMPLES]: r?.samples.length,
    [ATTR_RUNSPEC_EVAL_PASS_RATE]: rated?.passRate,
    [ATTR_RUNSPEC_EVAL_PASS_RATE_LOW]: rated?.passRateLow,
    [ATTR_RUNSPEC_EVAL_PASS_RATE_HIGH]: rated?.passRateHigh,
    [ATTR_RUNSPEC_EVAL_THRESHOLD]: r?.threshold,
    [ATTR_RUNSPEC_EVAL_MEETS_THRESHOLD]: rated?.meetsThreshold,
    [ATTR_RUNSPEC_EVAL_EXPECTED_ARGS_HASH]: ctx.expectedArgs ? expectationsHash(ctx.expectedArgs) : undefined,
    [ATTR_RUNSPEC_EVAL_ARGS_PASS]: ctx.expectedArgs ? argsPass(v) : undefined,
  });
}

/** The stable annotation/evaluation identifier of a (case, sample): re-runs upsert rather than duplicate. */
export function evaluationIdentifier(caseId: string, sample: number | undefined, rule?: string): string {
  return `${rule ?? caseId}#${sample ?? 0}`;
}

/** OpenInference span-scope feedback attributes (spec/annotations.md): `evaluations.0.evaluation.*`. */
export function evaluationAttributes(s: VerdictSummary, identifier: string): Attributes {
  const key = (field: string): string => `${OI.EVALUATIONS}.0.${field}`;
  return compact({
    [key(OI.EVALUATION_NAME)]: s.name,
    [key(OI.EVALUATION_SCORE)]: s.judged ? (s.pass ? 1 : 0) : undefined,
    [key(OI.EVALUATION_LABEL)]: s.category,
    [key(OI.EVALUATION_EXPLANATION)]: s.reason,
    [key(OI.EVALUATION_ANNOTATOR_KIND)]: 'CODE',
    [key(OI.EVALUATION_IDENTIFIER)]: identifier,
  });
}

/** The `gen_ai.evaluation.result` span event (semantic-conventions v1.38+). */
export function addEvaluationEvent(span: Span, s: VerdictSummary, time: TimeInput): void {
  span.addEvent(
    EVENT_GEN_AI_EVALUATION_RESULT,
    // An infrastructure error is not an evaluation: error.type and no score (semconv gen-ai events).
    compact({
      [ATTR_GEN_AI_EVALUATION_NAME]: s.name,
      [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: s.judged ? (s.pass ? 1 : 0) : undefined,
      [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: s.category,
      [ATTR_GEN_AI_EVALUATION_EXPLANATION]: s.reason,
      [ATTR_ERROR_TYPE]: s.errorType,
    }),
    time,
  );
}

// ---------------------------------------------------------------- providers

/**
 * gen_ai.provider.name → OpenInference (llm.provider, llm.system). The two vocabularies differ; mapping
 * follows Phoenix's converter (Arize-ai/phoenix src/phoenix/trace/gen_ai/conversion.py).
 */
const PROVIDERS: Record<string, { provider?: string; system?: string }> = {
  [GEN_AI_PROVIDER_NAME_VALUE_OPENAI]: { provider: LLMProvider.OPENAI, system: LLMSystem.OPENAI },
  [GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC]: { provider: LLMProvider.ANTHROPIC, system: LLMSystem.ANTHROPIC },
  [GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI]: { provider: LLMProvider.AZURE, system: LLMSystem.OPENAI },
  [GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_INFERENCE]: { provider: LLMProvider.AZURE },
  [GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI]: { provider: LLMProvider.GOOGLE, system: LLMSystem.VERTEXAI },
  [GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI]: { provider: LLMProvider.GOOGLE, system: LLMSystem.VERTEXAI },
  [GEN_AI_PROVIDER_NAME_VALUE_GCP_GEN_AI]: { provider: LLMProvider.GOOGLE, system: LLMSystem.VERTEXAI },
  [GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK]: { provider: LLMProvider.AWS },
  [GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI]: { provider: LLMProvider.MISTRALAI, system: LLMSystem.MISTRALAI },
  [GEN_AI_PROVIDER_NAME_VALUE_COHERE]: { provider: LLMProvider.COHERE, system: LLMSystem.COHERE },
  [GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK]: { provider: LLMProvider.DEEPSEEK },
  [GEN_AI_PROVIDER_NAME_VALUE_GROQ]: { provider: LLMProvider.GROQ },
  [GEN_AI_PROVIDER_NAME_VALUE_X_AI]: { provider: LLMProvider.XAI },
  [GEN_AI_PROVIDER_NAME_VALUE_PERPLEXITY]: { provider: LLMProvider.PERPLEXITY },
};

export function openInferenceProvider(genAiProvider: string): { provider?: string; system?: string } {
  return PROVIDERS[genAiProvider] ?? {};
}

// ---------------------------------------------------------------- messages

/** Canonical `finish_reason` of gen_ai output messages (7.1.5); provider values stay in finish_reasons. */
export function canonicalFinishReason(reason: string | undefined, hasToolCalls: boolean): string {
  switch (reason) {
    case 'tool_calls':
    case 'tool_use':
    case 'tool-calls':
    case 'function_call':
    case 'tool_call':
      return 'tool_call';
    case 'end_turn':
    case 'stop_sequence':
    case 'stop':
      return 'stop';
    case 'max_tokens':
    case 'length':
      return 'length';
    case undefined:
      return hasToolCalls ? 'tool_call' : 'stop';
    default:
      return reason;
  }
}

type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_call_response'; id: string | null; response: string };

/** A message in the gen_ai.input.messages schema (gen-ai-input-messages.json). */
export function genAiMessage(m: Message): { role: string; parts: GenAiPart[]; name?: string } {
  const parts: GenAiPart[] = [];
  if (m.role === 'tool') {
    parts.push({ type: 'tool_call_response', id: m.toolCallId ?? null, response: m.content ?? '' });
  } else {
    if (m.content !== undefined && m.content !== '') parts.push({ type: 'text', content: m.content });
    for (const c of m.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments });
  }
  return m.name !== undefined ? { role: m.role, parts, name: m.name } : { role: m.role, parts };
}

export function genAiOutputMessages(call: ModelCallRecord): Array<ReturnType<typeof genAiMessage> & { finish_reason: string }> {
  const r = call.response;
  if (!r) return [];
  const msg = genAiMessage({ role: 'assistant', ...(r.text !== undefined ? { content: r.text } : {}), toolCalls: r.toolCalls });
  return [{ ...msg, finish_reason: canonicalFinishReason(r.finishReason, r.toolCalls.length > 0) }];
}

/** gen_ai.tool.definitions: flat `{type:"function", name, description, parameters}` (gen-ai-tool-definitions.json). */
export function genAiToolDefinitions(tools: ToolDefinition[]): unknown[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }));
}

/** Flattened OpenInference message attributes under `prefix.{i}.message.*` (spec/semantic_conventions.md). */
export function openInferenceMessages(prefix: string, messages: Message[]): Attributes {
  const out: Record<string, AttributeValue | undefined> = {};
  messages.forEach((m, i) => {
    const base = `${prefix}.${i}.`;
    out[base + OI.MESSAGE_ROLE] = m.role;
    if (m.content !== undefined) out[base + OI.MESSAGE_CONTENT] = m.content;
    if (m.role === 'tool' && m.toolCallId !== undefined) out[base + OI.MESSAGE_TOOL_CALL_ID] = m.toolCallId;
    if (m.name !== undefined) out[base + OI.MESSAGE_NAME] = m.name;
    Object.assign(out, openInferenceToolCalls(`${base}${OI.MESSAGE_TOOL_CALLS}`, m.toolCalls ?? []));
  });
  return compact(out);
}

function openInferenceToolCalls(prefix: string, calls: ToolCall[]): Attributes {
  const out: Attributes = {};
  calls.forEach((c, j) => {
    const base = `${prefix}.${j}.`;
    out[base + OI.TOOL_CALL_ID] = c.id;
    out[base + OI.TOOL_CALL_FUNCTION_NAME] = c.name;
    out[base + OI.TOOL_CALL_FUNCTION_ARGUMENTS_JSON] = JSON.stringify(c.arguments);
  });
  return out;
}

/** `llm.tools.{i}.tool.json_schema` in OpenAI's `{type, function:{name, description, parameters}}` form. */
export function openInferenceTools(tools: ToolDefinition[]): Attributes {
  const out: Attributes = {};
  tools.forEach((t, i) => {
    out[`${OI.LLM_TOOLS}.${i}.${OI.TOOL_JSON_SCHEMA}`] = JSON.stringify({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    });
  });
  return out;
}

// ---------------------------------------------------------------- request parameters

/** Sampling parameters actually sent → gen_ai.request.* (only the ones with a convention, well typed). */
export function requestParamAttributes(params: Record<string, unknown>): Attributes {
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const int = (v: unknown): number | undefined => (Number.isInteger(v) ? (v as number) : undefined);
  const stop = params.stop ?? params.stop_sequences;
  const stops = typeof stop === 'string' ? [stop] : Array.isArray(stop) && stop.every((s) => typeof s === 'string') ? (stop as string[]) : undefined;
  const n = int(params.n);
  return compact({
    [ATTR_GEN_AI_REQUEST_TEMPERATURE]: num(params.temperature),
    [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: int(params.max_tokens ?? params.max_completion_tokens),
    [ATTR_GEN_AI_REQUEST_TOP_P]: num(params.top_p),
    [ATTR_GEN_AI_REQUEST_TOP_K]: num(params.top_k),
    [ATTR_GEN_AI_REQUEST_SEED]: int(params.seed),
    [ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY]: num(params.frequency_penalty),
    [ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY]: num(params.presence_penalty),
    [ATTR_GEN_AI_REQUEST_STOP_SEQUENCES]: stops,
    [ATTR_GEN_AI_REQUEST_CHOICE_COUNT]: n !== undefined && n !== 1 ? n : undefined,
  });
}

export { MimeType };
