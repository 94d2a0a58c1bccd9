import type { CaseMode } from './case.js';
import type { ResolvedCall, ToolDefinition, ToolMode } from './toolset.js';

export interface Usage {
  promptTokens?: number;
  completionTokens?: number;
  /** Falls back to prompt + completion when the provider gives no total. */
  totalTokens?: number;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments; unparseable JSON becomes `{ _raw: text }` (turnstone `_raw` rule). */
  arguments: Record<string, unknown>;
  /**
   * The source recorded no arguments for this call (content capture off): `arguments` is then empty and
   * argument checks are not checkable, not failed.
   */
  argumentsAbsent?: boolean;
  /** Hashed capture: per argument, the keyed hash of its tolerant-canonical value (hex). */
  argumentHashes?: Record<string, string>;
  /** Fingerprint of the key the hashes were made with ({@link keyFingerprint} in scoring/arg-hash). */
  argumentHashKey?: string;
  /** Split back out of one call the producer garbled (merged streamed parallel calls). */
  reconstructed?: boolean;
}

export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string;
  toolCalls?: ToolCall[];
  /** On tool messages: the call this answers. */
  toolCallId?: string;
  /** On tool messages: the tool name. */
  name?: string;
  /** On tool messages: the call failed (Anthropic `tool_result.is_error`). */
  isError?: boolean;
  /**
   * On assistant messages: the provider's reasoning blocks (Anthropic `thinking` / `redacted_thinking`,
   * signature included), sent back unchanged on the next turn as the API requires during tool use.
   */
  reasoning?: Array<Record<string, unknown>>;
}

export type RunStatus = 'ok' | 'truncated' | 'error' | 'cancelled';

export interface RunError {
  code: string;
  message: string;
  /**
   * The harness, not the model, failed in a way a fresh attempt may not (an MCP server died under a call
   * and is restarted for the next one): the suite runner runs the sample once more. Never written out.
   */
  retryable?: boolean;
}

export interface ModelCallRecord {
  index: number;
  turn: number;
  startTimeMs: number;
  endTimeMs: number;
  /** gen_ai.provider.name value: 'openai', 'anthropic', or the preset/profile kind. */
  provider: string;
  requestModel?: string;
  responseModel?: string;
  responseId?: string;
  serverAddress?: string;
  serverPort?: number;
  request: {
    messages: Message[];
    tools: ToolDefinition[];
    /** Sampling parameters actually sent (temperature, max_tokens, ...). */
    params: Record<string, unknown>;
  };
  response?: {
    text?: string;
    toolCalls: ToolCall[];
    /** Provider value as sent (stop, tool_calls, tool_use, end_turn, ...). */
    finishReason?: string;
  };
  usage: Usage;
  /** Wall time of the attempt that answered, retries excluded (end - start includes them). */
  latencyMs?: number;
  error?: RunError;
}

export interface ToolCallRecord {
  /** Model turn (0-based) that requested it. */
  turn: number;
  /** Index into Run.modelCalls of the call that requested it; -1 when unknown (offline traces). */
  modelCallIndex: number;
  call: ToolCall;
  startTimeMs: number;
  endTimeMs: number;
  /** Decision-mode terminal calls are captured, never executed. */
  executed: boolean;
  result?: string;
  /** The result is an error (denied, failed, or a result starting with "Error"). */
  isError?: boolean;
  /**
   * Why the call failed, for its span's `error.type`: `unknown_tool`, `permission_denied`,
   * `not_implemented` (no implementation and no mock), `no_mock_match`, `tool_timeout`, `mcp_error`,
   * `mcp_unavailable`, `cancelled`; absent for a tool that ran and answered with an error (`tool_error`).
   */
  errorType?: string;
  /** Beyond the per-turn parallel cap: not run, and not counted as a call or an error of the model. */
  dropped?: boolean;
  /** The result came from `tool_mocks`. */
  mocked?: boolean;
  /** MCP `structuredContent` of the result, as the server sent it. */
  structuredContent?: Record<string, unknown>;
  resolved?: ResolvedCall;
}

export interface Run {
  caseId: string;
  /** 0-based sample index. */
  sample: number;
  mode: CaseMode;
  provider: string;
  model?: string;
  toolMode?: ToolMode;
  startTimeMs: number;
  endTimeMs: number;
  modelCalls: ModelCallRecord[];
  /** Every tool call in order, executed or not. */
  toolCalls: ToolCallRecord[];
  /** Decision mode: the first call to a runnable (never executed). */
  terminal?: ToolCallRecord;
  finalText?: string;
  status: RunStatus;
  error?: RunError;
  usage: Usage;
  /** Trajectory mode with keepWorktrees: where the worktree was left. */
  worktree?: string;
  /** Set when an agent target (module, http, command) ran the case: what it was and where its calls came from. */
  agent?: AgentRunInfo;
  /** Set when the Run was read back from a trace. */
  trace?: { traceId: string; rootSpanId?: string; spanIds?: Record<string, string> };
  /** Read back from a trace that shows the model was called but not what it decided (content capture off). */
  hiddenDecision?: HiddenDecision;
}

/**
 * What a trace does not show of the model's decision. `tool_calls`: it finished with tool calls whose
 * names the trace does not record; `answer`: nothing shows whether it called tools or answered.
 */
export interface HiddenDecision {
  missing: 'tool_calls' | 'answer';
  /** The producer family that wrote the trace, when recognised. */
  family?: string;
  /** The producer's setting that would have recorded it. */
  captureSwitch?: string;
}

/** How an agent target's Run was observed. */
export interface AgentRunInfo {
  target: string;
  kind: 'module' | 'http' | 'command';
  /** Where the calls were read: the agent's own trace, or its HTTP response (no trace arrived). */
  callsFrom: 'trace' | 'response';
  /** With `callsFrom: 'response'`: where in the response the calls were found. */
  responsePath?: string;
  /** The trace carried no model spans: the verdict is `unscorable`, and this says what to switch on. */
  unscorable?: string;
  /** The trace did not complete in time (`--trace-timeout`): the verdict is `incomplete`. */
  incomplete?: string;
  /** Producer families the normaliser recognised in the trace. */
  producers?: string[];
}

/** The turnstone/replio tool-call log entry derived from a Run. */
export interface ToolLogEntry {
  tool: string;
  args: Record<string, unknown>;
  /** Cut to 500 characters. */
  result?: string;
  turn: number;
}
