// One case sample on an agent target: a root span for the case, the agent invoked under it (in process
// through the active context, over the wire through `traceparent`), the agent's trace waited for and
// normalised, and the Run completed with what the trace could not say (the case, the target, the reply's
// calls when no trace came). Agent trouble never throws: the Run ends with status error.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { caseInputOf } from '../../core/case-input.js';
import type { Case } from '../../types/case.js';
import type { Run, ToolCallRecord } from '../../types/run.js';
import { createWorktree, type Worktree } from '../worktree.js';
import type { RunCaseFn } from '../suite-runner.js';
import type { AgentReply, AgentTarget, TargetTracing } from './types.js';

/** Root span attributes naming the target (kept outside runspec.eval.*, which marks our own rendered traces). */
export const ATTR_TARGET_NAME = 'runspec.target.name';
export const ATTR_TARGET_KIND = 'runspec.target.kind';
export const ATTR_TARGET_CASE_ID = 'runspec.target.case_id';

/** @default 120000 */
export const DEFAULT_AGENT_TIMEOUT_MS = 120_000;

const propagator = new W3CTraceContextPropagator();

/** What to switch on when the agent's trace has no model spans, per kind. */
export function noModelSpansHint(kind: AgentTarget['kind'], otlpEndpoint: string): string {
  if (kind === 'module')
    return 'the module emitted no model spans: turn its instrumentation on (AI SDK 6: experimental_telemetry: { isEnabled: true }; AI SDK 7: registerTelemetry(new OpenTelemetry()) from @ai-sdk/otel and telemetry: { isEnabled: true }; LangChain.js: OpenInference LangChainInstrumentation.manuallyInstrument), or, when it registers its own tracer provider, export to ctx.otlpEndpoint';
  return `the agent's trace has no model spans: export its traces to OTEL_EXPORTER_OTLP_ENDPOINT=${otlpEndpoint} and continue the traceparent it is given${kind === 'http' ? ', or read calls from the response with response_tool_calls' : ''}`;
}

/**
 * The suite runner's per-sample function for an agent target.
 * @example runSuite({ ..., runCase: agentRunCase(target, tracing, { timeoutMs: 60_000 }) })
 */
export function agentRunCase(
  target: AgentTarget,
  tracing: TargetTracing,
  opts: { timeoutMs?: number; isDiscovery?: (name: string) => boolean } = {},
): RunCaseFn {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  const isDiscovery = opts.isDiscovery ?? (() => false);
  return async ({ case: c, sample, signal, keepWorktrees }) => {
    const startTimeMs = Date.now();
    const input = caseInputOf(c, target.defaults);
    let worktree: Worktree | undefined;
    if (c.mode === 'trajectory') {
      const place = c.source?.line ? `${c.source.file}:${c.source.line}` : (c.source?.file ?? c.id);
      worktree = await createWorktree(c.files ?? {}, { place: `${place}: case ${c.id}` });
    }
    const root = tracing.tracer.startSpan(
      `invoke_agent ${target.name}`,
      { kind: SpanKind.INTERNAL, attributes: { [ATTR_TARGET_NAME]: target.name, [ATTR_TARGET_KIND]: target.kind, [ATTR_TARGET_CASE_ID]: c.id } },
      ROOT_CONTEXT,
    );
    const parent = trace.setSpan(ROOT_CONTEXT, root);
    const carrier: Record<string, string> = {};
    propagator.inject(parent, carrier, { set: (k, key, v) => void (k[key] = v) });
    const traceparent = carrier.traceparent!;
    const { traceId } = root.spanContext();
    const timeout = AbortSignal.timeout(timeoutMs);
    const callSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let reply: AgentReply;
    try {
      reply = await context.with(parent, () =>
        target.invoke({
          case: c,
          sample,
          input: { ...input, files: c.files ?? {}, ...(worktree ? { worktree: worktree.root } : {}) },
          parent,
          traceparent,
          signal: callSignal,
        }),
      );
    } catch (err) {
      const message = timeout.aborted && !signal?.aborted ? `no answer within ${timeoutMs} ms` : err instanceof Error ? err.message : String(err);
      reply = { error: { code: timeout.aborted ? 'TARGET_TIMEOUT' : 'TARGET', message } };
    }
    if (reply.error) root.setStatus({ code: SpanStatusCode.ERROR, message: reply.error.message });
    root.end();
    if (signal?.aborted) {
      await worktree?.remove();
      return emptyRun(c, sample, target, startTimeMs, 'cancelled', { code: 'CANCELLED', message: 'the run was cancelled' });
    }
    const collected = await tracing.collect(traceId, { quietMs: target.quietMs, timeoutMs: target.traceTimeoutMs, ...(signal ? { signal } : {}) });
    const run = collected.status === 'ok' ? collected.run : emptyRun(c, sample, target, startTimeMs, 'ok');
    // The case root is the trace's root: telemetry re-exports the agent's spans under it by these ids.
    run.trace = { ...run.trace, traceId, rootSpanId: root.spanContext().spanId };
    run.caseId = c.id;
    run.sample = sample;
    run.mode = c.mode;
    run.provider = target.name;
    run.startTimeMs = startTimeMs;
    run.endTimeMs = Math.max(run.endTimeMs, Date.now());
    run.agent = { target: target.name, kind: target.kind, callsFrom: 'trace', ...(collected.status === 'ok' ? { producers: collected.producers } : {}) };
    const traced = run.modelCalls.length > 0;
    if (!traced && reply.replyCalls && reply.replyCalls.length > 0) {
      run.toolCalls = reply.replyCalls.map((call) => ({
        turn: 0,
        modelCallIndex: -1,
        call,
        startTimeMs,
        endTimeMs: run.endTimeMs,
        executed: c.mode !== 'decision',
      }));
      run.agent.callsFrom = 'response';
      if (reply.replyCallsPath) run.agent.responsePath = reply.replyCallsPath;
    } else if (!traced) {
      run.agent.unscorable = noModelSpansHint(target.kind, tracing.otlpEndpoint);
      if (collected.status === 'unreadable') run.agent.unscorable += ` (${collected.reason})`;
    }
    if (!collected.complete) run.agent.incomplete = `the trace did not complete within ${target.traceTimeoutMs} ms (trace timeout)`;
    if (c.mode === 'decision' && !run.terminal) {
      const first: ToolCallRecord | undefined = run.toolCalls.find((r) => !isDiscovery(r.call.name));
      if (first) run.terminal = first;
    }
    if (run.finalText === undefined && typeof reply.output === 'string') run.finalText = reply.output;
    if (reply.error) {
      run.status = 'error';
      run.error = reply.error;
    } else if (run.status === 'error' && !run.error) {
      run.status = 'ok';
    }
    if (worktree) {
      if (keepWorktrees) run.worktree = await worktree.keep();
      else await worktree.remove();
    }
    return run;
  };
}

function emptyRun(c: Case, sample: number, target: AgentTarget, startTimeMs: number, status: Run['status'], error?: Run['error']): Run {
  const run: Run = {
    caseId: c.id,
    sample,
    mode: c.mode,
    provider: target.name,
    startTimeMs,
    endTimeMs: Date.now(),
    modelCalls: [],
    toolCalls: [],
    status,
    usage: {},
  };
  if (error) run.error = error;
  return run;
}
