// The team's own agent as the thing under test. Each kind (module.ts, http.ts, command.ts) knows how to
// hand a case to the agent; run.ts runs that under a per-case root span, waits for the agent's trace and
// turns it into a Run. Span collection and trace normalisation are injected (app/ wires the run's tracer
// provider, its OTLP receiver and traces/' normalisers), so the engine stays on the OpenTelemetry API.
import type { Context, Tracer, TracerProvider } from '@opentelemetry/api';
import type { Case, CaseMessage, CaseVars } from '../../types/case.js';
import type { AgentRunInfo, Run, ToolCall } from '../../types/run.js';
import type { MockResult } from '../../types/toolset.js';

/** What the agent gets for one case (a module's first argument; the http template's and command's values). */
export interface AgentInput {
  prompt: string;
  /** History before the prompt. */
  messages: CaseMessage[];
  system?: string;
  vars: CaseVars;
  /** Worktree files of the case (relative path → content). */
  files: Record<string, string>;
  /** The case's worktree (trajectory cases), with `files` written into it. */
  worktree?: string;
}

/** A module target's second argument. */
export interface AgentContext {
  signal: AbortSignal;
  case: Case;
  sample: number;
  /** A tracer of the run's provider: spans made with it join the case's trace. */
  tracer: Tracer;
  tracerProvider: TracerProvider;
  /** W3C `traceparent` of the case's root span, for calls the agent makes to other services. */
  traceparent: string;
  /** OTLP/HTTP base URL of the run's receiver (for a module that registers its own tracer provider). */
  otlpEndpoint: string;
  /** The run's environment (the CLI's is the process's; a library caller passes its own). */
  env: Readonly<Record<string, string | undefined>>;
  /** The case's (or toolset's) canned result of a tool call, so nothing executes in decision mode; undefined when none is mocked. */
  mockTool(name: string, args: Record<string, unknown>): MockResult | undefined;
}

/** What one invocation of the agent gave back, beside the spans it emitted. */
export interface AgentReply {
  /** The function's return value, the response body (parsed when JSON) or the process's stdout. */
  output?: unknown;
  /** Calls read from the reply itself (http response mapping), used when the trace has no model spans. */
  replyCalls?: ToolCall[];
  /** How `replyCalls` were found (`tool_calls`, `choices.0.message.tool_calls`, ...). */
  replyCallsPath?: string;
  /** The agent failed (threw, answered 5xx, exited non-zero). */
  error?: { code: string; message: string };
}

/** One kind of agent target, opened for a run. */
export interface AgentTarget {
  readonly name: string;
  readonly kind: AgentRunInfo['kind'];
  /** Case defaults the target sets (`system`, `vars`). */
  readonly defaults: { system?: string; vars?: CaseVars };
  /** The quiet window and the longest wait for a case's trace. */
  readonly quietMs: number;
  readonly traceTimeoutMs: number;
  /** Check every case before anything runs (unknown placeholders are bad input, exit 2). */
  prepare?(cases: readonly Case[]): void;
  /** Hand one case to the agent with `parent` (the case's root span) as the active context. */
  invoke(call: { case: Case; sample: number; input: AgentInput; parent: Context; traceparent: string; signal: AbortSignal }): Promise<AgentReply>;
  close?(): Promise<void>;
}

/** A case's trace, waited for and normalised. */
export type CollectedRun = { status: 'ok'; run: Run; producers: string[]; complete: boolean } | { status: 'unreadable'; reason: string; complete: boolean };

/** The run's span collection, as the targets see it (app/agent-tracing.ts implements it). */
export interface TargetTracing {
  tracer: Tracer;
  tracerProvider: TracerProvider;
  /** OTLP/HTTP base URL of the run's receiver on loopback (`http://127.0.0.1:PORT`). */
  otlpEndpoint: string;
  /**
   * Wait until the trace is complete (its root ended and `quietMs` passed with no span for it) or
   * `timeoutMs` passed, then normalise it.
   */
  collect(traceId: string, opts: { quietMs: number; timeoutMs: number; signal?: AbortSignal }): Promise<CollectedRun>;
}
