// Spans of one trace → the Run that scoring understands. Each producer family's reader (src/traces/producers/,
// each citing its convention; the readers of conventions we also write live beside their writers in
// telemetry/conventions/) says what a span is and what it carries (_read-spans.ts asks them in order);
// the call ledger (ledger.ts) joins the sightings so that a call seen several times (LLM output, a later
// input history, a tool span) is counted once; this file picks the root, classifies spans and builds the Run.
import { ATTR_GEN_AI_INPUT_MESSAGES, ATTR_GEN_AI_OUTPUT_MESSAGES, ATTR_GEN_AI_REQUEST_MODEL, ATTR_GEN_AI_RESPONSE_ID } from '../semconv/gen-ai.js';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { OpenInferenceSpanKind, SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { DISCOVERY_TOOLS } from '../toolset/layout.js';
import type { HiddenDecision, Message, ModelCallRecord, Run, ToolCall, ToolCallRecord, Usage } from '../types/run.js';
import { decodeJsonish, toStr } from '../telemetry/conventions/_json.js';
import { isRecord } from '../core/is-record.js';
import type { AssembledTrace } from './assembler.js';
import type { LogRecordEntry, SpanRecord } from './spans.js';
import { contentText, indexed, normaliseRole, toolCallsOf, type LlmOutput } from '../telemetry/conventions/_read.js';
import { genAiMessages } from '../telemetry/conventions/gen-ai.js';
import { isRunspecTrace, readRunspecCase, type RunspecCaseInfo } from '../telemetry/conventions/runspec.js';
import { byCodeUnits, sortSmall } from './_sort.js';
import { CallLedger, type ExecutedCall, type LedgerResult } from './ledger.js';
import { recogniseFamily } from './producers/index.js';
import type { FamilyName, ProducerFamily } from './producers/family.js';
import {
  isLlmSpan,
  isToolSpan,
  llmInput,
  llmOutput,
  providerOf,
  requestModelOf,
  responseModelOf,
  toolResultsOf,
  toolSpanCall,
  usageOf,
} from './_read-spans.js';

/** What the normaliser learned about a trace besides the Run (for matching, annotations and output). */
export interface TraceInfo {
  traceId: string;
  rootSpanId: string;
  rootName: string;
  caseId?: string;
  suite?: string;
  sample?: number;
  /** First user message, for a case's `match.prompt`. */
  firstUserMessage?: string;
  /** Resource attributes overlaid with the root span's attributes, for `match.attributes`. */
  rootAttributes: Record<string, unknown>;
  /** Every span's attributes, for `match.attributes` on any span. */
  spanAttributes: Array<Record<string, unknown>>;
  /** Readers that found something: runspec, openinference, gen_ai, openllmetry, vercel, gen_ai_events. */
  producers: string[];
  /** The producer family, recognised from structure alone (content on or off); absent when none is. */
  family?: FamilyName;
  llmSpanIds: string[];
  toolSpanIds: string[];
  /** Call id (or position `#n`) → span id of the span that carried the call. */
  callSpanIds: Record<string, string>;
}

export type NormaliseResult = { ok: true; run: Run; info: TraceInfo } | { ok: false; traceId: string; rootSpanId?: string; reason: string };

export interface NormaliseOptions {
  /** Discovery tools are not terminal in decision mode. @default DISCOVERY_TOOLS of src/toolset */
  isDiscovery?: (toolName: string) => boolean;
}

const DEFAULT_DISCOVERY = new Set<string>(DISCOVERY_TOOLS);
const isDefaultDiscovery = (n: string): boolean => DEFAULT_DISCOVERY.has(n);
const TOOL_FINISH_REASONS = new Set(['tool_calls', 'tool_call', 'tool-calls', 'tool_use', 'function_call']);

/** Finish reasons `tool_calls`, `tool_call`, `tool-calls`, `tool_use` and `function_call` all mean "called tools". */
export function isToolCallFinish(reason: string | undefined): boolean {
  return reason !== undefined && TOOL_FINISH_REASONS.has(reason.toLowerCase());
}

/** The latest end (or start, for a span that did not end) of the root and every span. */
function latestEnd(root: SpanRecord, spans: readonly SpanRecord[]): number {
  let end = root.endTimeMs ?? root.startTimeMs;
  for (const s of spans) end = Math.max(end, s.endTimeMs ?? s.startTimeMs);
  return end;
}

// Ties keep arrival order (the sort is stable): exporters send spans as they end, which orders calls made
// within the same millisecond; a span-id tie-break ordered them at random.
function byStart(x: SpanRecord, y: SpanRecord): number {
  return x.startTimeMs - y.startTimeMs;
}

/**
 * Normalise one assembled trace into a Run. Never throws: a trace it cannot read comes back with a reason.
 * @example const r = normaliseTrace(trace); if (r.ok) scoreRun(c, r.run);
 */
export function normaliseTrace(trace: AssembledTrace, options: NormaliseOptions = {}): NormaliseResult {
  return normaliseCaught(trace, options, true);
}

/**
 * normaliseTrace for the scorer, which replaces `run.trace` by the trace and root ids: the call id → span id
 * map is left out of it (its lazy getter alone cost a slow object-literal path per trace).
 */
export function normaliseTraceForScoring(trace: AssembledTrace, options: NormaliseOptions = {}): NormaliseResult {
  return normaliseCaught(trace, options, false);
}

function normaliseCaught(trace: AssembledTrace, options: NormaliseOptions, runSpanIds: boolean): NormaliseResult {
  try {
    return normaliseUnsafe(trace, options, runSpanIds);
  } catch (err) {
    return { ok: false, traceId: trace.traceId, reason: `could not interpret the trace (${(err as Error).message})` };
  }
}

const SMALL_TRACE_SPANS = 16;
const USAGE_KEYS = ['promptTokens', 'completionTokens', 'totalTokens'] as const;

/**
 * Whether following parents from some span never ends (a self-parent or a longer loop), without a map: a
 * walk over n spans that takes more than n steps went round a loop. For small traces only (linear lookups);
 * the span found for an id is the last one with it, as a map filled in order would give. True means only
 * "look closer": parentCycle then finds and words the loop as before.
 */
function hasParentLoop(spans: readonly SpanRecord[]): boolean {
  const n = spans.length;
  for (const s of spans) {
    if (s.parentSpanId === s.spanId) return true;
    let id = s.parentSpanId;
    for (let steps = 0; id !== undefined; steps++) {
      if (steps > n) return true;
      let parent: SpanRecord | undefined;
      for (let i = n - 1; i >= 0; i--) {
        if (spans[i]!.spanId === id) {
          parent = spans[i];
          break;
        }
      }
      if (parent === undefined) break;
      id = parent.parentSpanId;
    }
  }
  return false;
}

/** A span that is its own parent, or a loop of parents: the trace has no root to read from. */
function parentCycle(spans: readonly SpanRecord[]): string | undefined {
  if (spans.length <= SMALL_TRACE_SPANS && !hasParentLoop(spans)) return undefined;
  const parentOf = new Map<string, string | undefined>();
  for (const s of spans) parentOf.set(s.spanId, s.parentSpanId);
  for (const s of spans) if (s.parentSpanId === s.spanId) return `span ${s.spanId} is its own parent`;
  const clean = new Set<string>();
  // One path buffer for every walk; a set of its ids only for a deep one (a search is cheaper when short).
  const path: string[] = [];
  for (const s of spans) {
    path.length = 0;
    let onPath: Set<string> | undefined;
    let id: string | undefined = s.spanId;
    while (id !== undefined && parentOf.has(id) && !clean.has(id)) {
      if (onPath ? onPath.has(id) : path.includes(id)) return `parent cycle: ${[...path.slice(path.indexOf(id)), id].join(' → ')}`;
      path.push(id);
      if (onPath) onPath.add(id);
      else if (path.length > 8) onPath = new Set(path);
      id = parentOf.get(id);
    }
    for (const p of path) clean.add(p);
  }
  return undefined;
}

function normaliseUnsafe(trace: AssembledTrace, options: NormaliseOptions, runSpanIds: boolean): NormaliseResult {
  const isDiscovery = options.isDiscovery ?? isDefaultDiscovery;
  const spans = sortSmall([...trace.spans], byStart);
  if (spans.length === 0) {
    return { ok: false, traceId: trace.traceId, reason: trace.logs.length ? 'only log records, no spans' : 'no spans' };
  }
  const cycle = parentCycle(spans);
  if (cycle) return { ok: false, traceId: trace.traceId, reason: cycle };
  const root = spans.find((s) => s.parentSpanId === undefined) ?? ((ids) => spans.find((s) => !ids.has(s.parentSpanId!))!)(new Set(spans.map((s) => s.spanId)));
  const producers = new Set<string>();
  const logs = trace.logs;

  // Verdict carrier spans (ours or another evaluator's) are feedback about a trace, not an agent run.
  if (spans.every((s) => s.attributes[OI.OPENINFERENCE_SPAN_KIND] === OpenInferenceSpanKind.EVALUATOR)) {
    return { ok: false, traceId: trace.traceId, rootSpanId: root.spanId, reason: 'only evaluator (verdict) spans, no agent run' };
  }
  // Each span is a tool span, an LLM span, or neither (in span order, each list).
  const toolSpans: SpanRecord[] = [];
  let llmSpans: SpanRecord[] = [];
  for (const s of spans) {
    if (isToolSpan(s)) toolSpans.push(s);
    else if (isLlmSpan(s)) llmSpans.push(s);
  }
  // outputs[i] is what llmSpans[i] answered.
  // Pushed, not `.map`ped: see the trace scorer (a holey array from optimised code deoptimised modelCallsOf's reads).
  let outputs: LlmOutput[] = [];
  for (const s of llmSpans) outputs.push(llmOutput(s, logs, producers));
  // No per-call LLM spans: fall back to a summary span (agent/root, Vercel ai.generateText) that lists calls.
  if (llmSpans.length === 0) {
    for (const s of spans) {
      if (toolSpans.includes(s)) continue;
      const out = llmOutput(s, logs, new Set());
      if (out.calls.length || s.attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] !== undefined) {
        llmSpans = [s];
        outputs = [llmOutput(s, logs, producers)];
        break;
      }
    }
  }
  const executed: ExecutedCall[] = [];
  for (const s of toolSpans) {
    const c = toolSpanCall(s, producers);
    if (c) executed.push(c);
  }
  if (llmSpans.length === 0 && executed.length === 0) {
    return { ok: false, traceId: trace.traceId, rootSpanId: root.spanId, reason: 'no LLM or tool spans (not a GenAI agent trace)' };
  }
  const runspec = isRunspecTrace(spans);
  if (runspec) producers.add('runspec');

  const { modelCalls, inputs } = modelCallsOf(llmSpans, outputs, logs, root);
  const { toolCalls, callSpanPairs } = joinCalls({ llmSpans, outputs, executed, inputs, logs });

  const family = recogniseFamily(spans, logs);
  const hidden = hiddenDecisionOf(modelCalls, toolCalls, family);

  // Decision runs capture a call without running it; a trajectory call that failed before running
  // (denied, unknown, no mock) or was dropped at the parallel cap is not a capture.
  const decision = executed.some((e) => !e.executed && !e.isError && !e.dropped);
  const ra = root.attributes;
  const usage: Usage = {};
  const sum = (k: keyof Usage): number | undefined => {
    let total: number | undefined;
    for (const m of modelCalls) {
      const v = m.usage[k];
      if (v !== undefined) total = (total ?? 0) + v;
    }
    return total;
  };
  // The root's own counts fill only what no model call reported (read once, and only then).
  let rootUsage: Usage | undefined;
  for (const k of USAGE_KEYS) {
    const v = sum(k) ?? (rootUsage ??= usageOf(ra))[k];
    if (v !== undefined) usage[k] = v;
  }
  // Without any runspec.eval.* attribute (isRunspecTrace), none of the case attributes can be there.
  const ours: RunspecCaseInfo = runspec ? readRunspecCase(root, spans) : {};
  const caseId = ours.caseId;
  const run: Run = {
    caseId: caseId ?? trace.traceId,
    sample: ours.sample ?? 0,
    mode: decision ? 'decision' : 'trajectory',
    provider: providerOf(ra) ?? modelCalls[0]?.provider ?? 'unknown',
    startTimeMs: root.startTimeMs,
    endTimeMs: latestEnd(root, spans),
    modelCalls,
    toolCalls,
    status: root.statusCode === 2 ? 'error' : 'ok',
    usage,
    // The public normaliseTrace returns plain writable fields; the scorer never reads the map.
    trace: runSpanIds
      ? { traceId: trace.traceId, rootSpanId: root.spanId, spanIds: spanIdsByCall(callSpanPairs) }
      : { traceId: trace.traceId, rootSpanId: root.spanId },
  };
  const model = modelCalls.find((m) => m.responseModel ?? m.requestModel);
  if (model) run.model = (model.responseModel ?? model.requestModel)!;
  else if (toStr(ra[ATTR_GEN_AI_REQUEST_MODEL])) run.model = toStr(ra[ATTR_GEN_AI_REQUEST_MODEL])!;
  if (ours.toolMode) run.toolMode = ours.toolMode;
  if (hidden) run.hiddenDecision = hidden;
  if (root.statusCode === 2) run.error = { code: toStr(ra[ATTR_ERROR_TYPE]) ?? 'error', message: root.statusMessage ?? '' };
  if (decision) {
    // The call the live run captured without executing it; else the first non-discovery call.
    const terminal = toolCalls.find((c) => !c.executed && !isDiscovery(c.call.name)) ?? toolCalls.find((c) => !isDiscovery(c.call.name));
    if (terminal) {
      terminal.executed = false;
      run.terminal = terminal;
    }
  }
  let lastText: string | undefined;
  for (let i = modelCalls.length - 1; i >= 0 && lastText === undefined; i--) lastText = modelCalls[i]!.response?.text;
  if (lastText !== undefined) run.finalText = lastText;

  const info: TraceInfo = new LazyTraceInfo({
    traceId: trace.traceId,
    root,
    spanAttributes: spans.map((s) => s.attributes),
    llmSpanIds: llmSpans.map((s) => s.spanId),
    toolSpanIds: toolSpans.map((s) => s.spanId),
    callSpanPairs,
    callSpanIds: run.trace?.spanIds,
  });
  if (caseId !== undefined) info.caseId = caseId;
  if (ours.suite) info.suite = ours.suite;
  if (ours.sample !== undefined) info.sample = ours.sample;
  const first = firstUserMessage(inputs, root);
  if (first !== undefined) info.firstUserMessage = first;
  if (logs.length) producers.add('gen_ai_events');
  if (family) info.family = family.name;
  info.producers = sortSmall([...producers], byCodeUnits);
  return { ok: true, run, info };
}

interface LazyTraceInfoInit {
  traceId: string;
  root: SpanRecord;
  spanAttributes: Array<Record<string, unknown>>;
  llmSpanIds: string[];
  toolSpanIds: string[];
  callSpanPairs: readonly string[];
  /** The map already built (the public normaliseTrace gives the run the same object). */
  callSpanIds: Record<string, string> | undefined;
}

/**
 * A trace's info whose root attributes (resource overlaid with the root span's) and call id → span id map are
 * made on first read (most scorings read neither): like the other fields they are own, enumerable and
 * writable properties, in the same key order. Two shared accessors are defined on each instance: an object
 * literal with getters made four closures per trace and a dictionary-mode object (~800 bytes, ~1.2 µs).
 * It keeps alive only what the accessors read (the root span, the call pairs), not the parsed model calls,
 * spans or logs: serve holds a provisional verdict's info for its trace's re-open window.
 */
class LazyTraceInfo {
  declare traceId: string;
  declare rootSpanId: string;
  declare rootName: string;
  declare rootAttributes: Record<string, unknown>;
  declare spanAttributes: Array<Record<string, unknown>>;
  declare producers: string[];
  declare llmSpanIds: string[];
  declare toolSpanIds: string[];
  declare callSpanIds: Record<string, string>;
  #root: SpanRecord;
  #rootAttributes: Record<string, unknown> | undefined;
  #callSpanPairs: readonly string[];
  #callSpanIds: Record<string, string> | undefined;
  static #rootAttributesProperty: PropertyDescriptor;
  static #callSpanIdsProperty: PropertyDescriptor;
  static {
    // What an object literal's `get`/`set` pair defines: enumerable and configurable.
    LazyTraceInfo.#rootAttributesProperty = {
      enumerable: true,
      configurable: true,
      get(this: LazyTraceInfo) {
        return (this.#rootAttributes ??= { ...this.#root.resource, ...this.#root.attributes });
      },
      set(this: LazyTraceInfo, value: Record<string, unknown>) {
        this.#rootAttributes = value;
      },
    };
    LazyTraceInfo.#callSpanIdsProperty = {
      enumerable: true,
      configurable: true,
      // An object keyed by call ids gets a new property name per trace: a hidden-class transition each time.
      get(this: LazyTraceInfo) {
        return (this.#callSpanIds ??= spanIdsByCall(this.#callSpanPairs));
      },
      set(this: LazyTraceInfo, value: Record<string, string>) {
        this.#callSpanIds = value;
      },
    };
  }

  constructor(init: LazyTraceInfoInit) {
    this.#root = init.root;
    this.#callSpanPairs = init.callSpanPairs;
    this.#callSpanIds = init.callSpanIds;
    this.traceId = init.traceId;
    this.rootSpanId = init.root.spanId;
    this.rootName = init.root.name;
    Object.defineProperty(this, 'rootAttributes', LazyTraceInfo.#rootAttributesProperty);
    this.spanAttributes = init.spanAttributes;
    this.producers = [];
    this.llmSpanIds = init.llmSpanIds;
    this.toolSpanIds = init.toolSpanIds;
    Object.defineProperty(this, 'callSpanIds', LazyTraceInfo.#callSpanIdsProperty);
  }
}

/**
 * What the trace does not show of the model's decision: no call is visible (no output, tool span or
 * history names one) although a model call finished with tool calls, or no model call shows a finish
 * reason, text or call at all. Either way the model was called and the checks that need its decision
 * are not checkable; undefined when the decision is shown.
 */
function hiddenDecisionOf(
  modelCalls: readonly ModelCallRecord[],
  toolCalls: readonly ToolCallRecord[],
  family: ProducerFamily | undefined,
): HiddenDecision | undefined {
  if (toolCalls.length > 0 || modelCalls.length === 0) return undefined;
  let missing: HiddenDecision['missing'] | undefined;
  if (modelCalls.some((m) => isToolCallFinish(m.response?.finishReason))) missing = 'tool_calls';
  else if (modelCalls.every((m) => m.response?.finishReason === undefined && m.response?.text === undefined)) missing = 'answer';
  if (!missing) return undefined;
  const h: HiddenDecision = { missing };
  if (family) {
    h.family = family.name;
    h.captureSwitch = family.contentSwitch;
  }
  return h;
}

/** One model call per LLM span, in start order, with the request history each one saw. */
function modelCallsOf(
  llmSpans: SpanRecord[],
  outputs: LlmOutput[],
  logs: LogRecordEntry[],
  root: SpanRecord,
): { modelCalls: ModelCallRecord[]; inputs: Message[][] } {
  const modelCalls: ModelCallRecord[] = [];
  const inputs: Message[][] = [];
  llmSpans.forEach((s, index) => {
    const a = s.attributes;
    const out = outputs[index]!;
    const input = llmInput(s, logs);
    inputs.push(input);
    const rec: ModelCallRecord = {
      index,
      turn: index,
      startTimeMs: s.startTimeMs,
      endTimeMs: s.endTimeMs ?? s.startTimeMs,
      provider: providerOf(a) ?? providerOf(root.attributes) ?? 'unknown',
      request: { messages: input, tools: [], params: {} },
      response: { toolCalls: toolCallsOf(out.calls) },
      usage: usageOf(a),
    };
    const reqModel = requestModelOf(a);
    const resModel = responseModelOf(a);
    if (reqModel) rec.requestModel = reqModel;
    if (resModel) rec.responseModel = resModel;
    const respId = toStr(a[ATTR_GEN_AI_RESPONSE_ID]);
    if (respId) rec.responseId = respId;
    if (out.text !== undefined) rec.response!.text = out.text;
    if (out.finishReason !== undefined) rec.response!.finishReason = out.finishReason;
    if (s.statusCode === 2) rec.error = { code: toStr(a[ATTR_ERROR_TYPE]) ?? 'error', message: s.statusMessage ?? '' };
    modelCalls.push(rec);
  });

  return { modelCalls, inputs };
}

/**
 * Every tool call of the trace, counted once, through the call ledger: the LLM spans' requested calls,
 * then the tool spans, then calls only visible in the longest later history, then tool results recorded
 * in later histories and in log records.
 */
function joinCalls(input: {
  llmSpans: SpanRecord[];
  outputs: LlmOutput[];
  executed: ExecutedCall[];
  inputs: Message[][];
  logs: LogRecordEntry[];
}): LedgerResult {
  const { llmSpans, outputs, executed, inputs, logs } = input;
  const ledger = new CallLedger();
  llmSpans.forEach((span, turn) => {
    for (const c of outputs[turn]!.calls) ledger.request(c, { turn, span });
  });
  for (const e of executed) ledger.execute(e, llmSpans);
  let longest: { calls: ToolCall[]; at: number } = { calls: [], at: 0 };
  inputs.forEach((msgs, i) => {
    // Counted first: most histories hold no more calls than the longest so far, and need no list.
    let count = 0;
    for (const m of msgs) if (m.role === 'assistant') count += m.toolCalls?.length ?? 0;
    if (count > longest.calls.length)
      longest = { calls: msgs.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])), at: llmSpans[i]!.startTimeMs };
  });
  ledger.claimHistory(longest.calls, longest.at);
  for (const msgs of inputs) {
    for (const m of msgs) if (m.role === 'tool' && m.toolCallId) ledger.attachResult(m.toolCallId, m.content);
  }
  for (const r of toolResultsOf(logs)) ledger.attachResult(r.id, r.result);
  return ledger.finish();
}

function spanIdsByCall(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) out[pairs[i]!] = pairs[i + 1]!;
  return out;
}

function firstUserMessage(inputs: Message[][], root: SpanRecord): string | undefined {
  for (const msgs of inputs) {
    const m = msgs.find((x) => x.role === 'user' && x.content !== undefined);
    if (m) return m.content;
  }
  const rootMsgs = genAiMessages(root.attributes[ATTR_GEN_AI_INPUT_MESSAGES]).find((m) => m.role === 'user' && m.text !== undefined);
  if (rootMsgs) return rootMsgs.text;
  const input = root.attributes[OI.INPUT_VALUE];
  if (typeof input === 'string') {
    const parsed = decodeJsonish(input);
    if (typeof parsed === 'string') return parsed;
    if (isRecord(parsed)) {
      const msgs = indexed(parsed.messages);
      const u = msgs.find((m) => isRecord(m) && normaliseRole(m.role) === 'user');
      if (isRecord(u)) return contentText(u.content);
      const p = parsed.prompt ?? parsed.input ?? parsed.task;
      if (typeof p === 'string') return p;
    }
    return input;
  }
  return undefined;
}
