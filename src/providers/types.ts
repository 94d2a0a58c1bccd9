import type { TlsFiles } from '../core/http-client.js';
import type { ReachabilityWatch } from '../core/reachability.js';
import type { Message, ToolCall, Usage } from '../types/run.js';
import type { ToolDefinition } from '../types/toolset.js';

export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Identifies one model call of one case sample; record/replay and the mock provider key on it. */
export interface ChatKey {
  caseId: string;
  sample: number;
  turn: number;
}

/** One model call in the neutral form; each provider renders it to its wire protocol. */
export interface ChatRequest {
  messages: Message[];
  tools: ToolDefinition[];
  /** Overrides the provider's model for this call. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: ReasoningEffort;
  /** Aborting cancels the HTTP request and any retry wait. */
  signal?: AbortSignal;
  key?: ChatKey;
}

/** The model's answer plus what was actually sent and where. */
export interface ChatResponse {
  text?: string;
  toolCalls: ToolCall[];
  /** Reasoning blocks to send back with this turn (Anthropic thinking blocks), opaque. */
  reasoning?: Array<Record<string, unknown>>;
  /** Provider value as sent (stop, tool_calls, end_turn, tool_use, ...). */
  finishReason?: string;
  usage: Usage;
  responseId?: string;
  requestModel?: string;
  responseModel?: string;
  /** Sampling parameters actually sent (temperature, max_tokens, reasoning_effort, ...). */
  params: Record<string, unknown>;
  serverAddress?: string;
  serverPort?: number;
  /** Wall time of the successful attempt, in milliseconds. */
  latencyMs: number;
}

/** A chat model behind one protocol. `chat` throws ProviderError after its retries are spent. */
export interface Provider {
  /** Display name: the preset or profile name (`ollama`, `openai`, `my-profile`). */
  readonly name: string;
  /** gen_ai.provider.name value: `openai`, `anthropic`, ... */
  readonly system: string;
  readonly model?: string;
  readonly baseUrl?: string;
  /** The model's context window in tokens, when configured (turnstone `--context-window`). */
  readonly contextWindow?: number;
  /** The system prompt a recording was made with (replay): a run without its own uses it. */
  readonly systemPrompt?: string;
  chat(req: ChatRequest): Promise<ChatResponse>;
  /** Releases connections; safe to call twice. */
  close(): Promise<void>;
}

/** A retry is about to happen (for verbose logs and tests; never carries secrets). */
export interface RetryInfo {
  /** 1-based number of the attempt that failed. */
  attempt: number;
  /** Wait before the next attempt, in milliseconds (Retry-After honoured, capped). */
  delayMs: number;
  /** One line: HTTP status or connection error. */
  reason: string;
}

/** Options shared by the HTTP providers. */
export interface HttpProviderOptions {
  baseUrl?: string;
  /** The key itself; pass the value read from the environment, it is never logged or serialised. */
  apiKey?: string;
  /** Name of the environment variable the key came from, used only in error hints. */
  apiKeyEnv?: string;
  /** Model name; when absent the first model of `GET {baseUrl}/models` is used. */
  model?: string;
  /** @default 0.7 (OpenAI's own API: the model's default, as its reasoning models accept no other) */
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: ReasoningEffort;
  /** Context window of the model in tokens (turnstone's option): a trajectory stops as truncated once a request fills it; never sent. */
  contextWindow?: number;
  /** Per-attempt time limit for headers and body, in milliseconds. @default 120000 */
  timeoutMs?: number;
  /**
   * Attempts per request, the first included (turnstone: 3). Connect errors, timeouts, 408/409/429 and
   * 5xx are retried; 0 or 1 means no retry. @default 3
   */
  retries?: number;
  /** First backoff step in milliseconds; doubles per attempt, plus jitter. @default 1000 */
  retryBaseMs?: number;
  /** Upper bound for any wait, Retry-After included, in milliseconds. @default 30000 */
  maxRetryDelayMs?: number;
  /** Requests in flight at once through this provider. @default 8 */
  maxConcurrent?: number;
  /** Display name. */
  name?: string;
  /** gen_ai.provider.name value. */
  system?: string;
  /** Called before each retry wait. */
  onRetry?: (info: RetryInfo) => void;
  /** Told whether requests reach the server: a run stops when none has for a while (core/reachability.ts). */
  reachability?: ReachabilityWatch;
  /** Largest response body read, in bytes; a bigger one is one clear error, not retried. @default 33554432 (32 MiB) */
  maxResponseBytes?: number;
  /** PEM files for https: a private CA, and a client certificate and key for mutual TLS (core/http-client.ts). */
  tls?: TlsFiles;
}
