import { toAnthropicTools } from './tools-wire.js';
import type { Message, ToolCall } from '../types/run.js';
import { createModelLookup, createProviderHttp, joinUrl, jsonWithTail, serverOf } from './_http.js';
import { badShape, parseToolArguments, usageOf, type ReplyContext } from './_wire.js';
import { dropUndefined } from '../core/drop-undefined.js';
import { isRecord } from '../core/is-record.js';
import type { ChatRequest, ChatResponse, HttpProviderOptions, Provider } from './types.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; this is what we send when none is configured. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * The Anthropic Messages API with `tools`, `tool_use` and `tool_result` blocks. Anthropic answers 529
 * when overloaded; it is retried like any 5xx.
 * @example createAnthropicProvider({ apiKey: env.get('ANTHROPIC_API_KEY'), model: 'claude-sonnet-4-5' })
 */
export function createAnthropicProvider(opts: HttpProviderOptions = {}): Provider {
  const baseUrl = opts.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  // Accept both https://api.anthropic.com and https://api.anthropic.com/v1 as the base URL.
  const apiRoot = /\/v1\/?$/.test(baseUrl) ? baseUrl : joinUrl(baseUrl, 'v1');
  const name = opts.name ?? 'anthropic';
  const label = `${name} provider`;
  const http = createProviderHttp(label, opts);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  const server = serverOf(baseUrl);
  let model = opts.model;
  const lookupModel = createModelLookup(http, { url: joinUrl(apiRoot, 'models'), headers, label });

  return {
    name,
    system: opts.system ?? 'anthropic',
    baseUrl,
    ...(opts.contextWindow !== undefined ? { contextWindow: opts.contextWindow } : {}),
    get model() {
      return model;
    },
    async chat(req: ChatRequest): Promise<ChatResponse> {
      const requestModel = req.model ?? model ?? (model = await lookupModel(req.signal));
      const params = anthropicParams(requestModel, req, opts);
      const { system, messages } = toAnthropicMessages(req.messages);
      const head: Record<string, unknown> = { model: requestModel, ...params, messages };
      if (system) head.system = system;
      const tools = req.tools.length > 0 ? toAnthropicTools(req.tools) : undefined;
      const body = jsonWithTail(head, tools ? { tools } : undefined, tools);
      const { json, latencyMs } = await http.send({ method: 'POST', url: joinUrl(apiRoot, 'messages'), headers, body, signal: req.signal });
      return {
        ...fromAnthropicResponse({ label, secrets: [opts.apiKey] }, json),
        requestModel,
        params,
        ...server,
        latencyMs,
      };
    },
    close: () => http.close(),
  };
}

type Block = Record<string, unknown>;

/** Thinking budgets of the older `thinking.type = "enabled"` form, per reasoning effort (the API's minimum is 1024). */
export const ANTHROPIC_THINKING_BUDGETS = { low: 1024, medium: 4096, high: 16384 } as const;

/**
 * Whether a model takes adaptive thinking (`thinking.type = "adaptive"` + `output_config.effort`, Claude
 * 4.6 and later, and the only form some of them accept) rather than `thinking.type = "enabled"` with
 * `budget_tokens` (Claude 4.5 and earlier, 3.7). A name without a version is taken as current.
 */
export function usesAdaptiveThinking(model: string): boolean {
  const m = /claude-(?:(\d+)-(\d+)-[a-z]+|[a-z]+-(\d+)(?:-(\d{1,2})(?!\d))?)/.exec(model);
  if (!m) return true;
  const major = Number(m[1] ?? m[3]);
  const minor = Number(m[2] ?? m[4] ?? 0);
  return major > 4 || (major === 4 && minor >= 6);
}

/**
 * Request parameters. With a reasoning effort, thinking is on: adaptive + `output_config.effort` on
 * current models, `budget_tokens` on older ones (max_tokens raised above the budget); and no
 * temperature, which thinking refuses to combine with (tool_choice stays the default auto, the only
 * forced-free choice thinking allows besides none). Without one, nothing about thinking is sent.
 */
export function anthropicParams(
  model: string,
  req: Pick<ChatRequest, 'temperature' | 'maxTokens' | 'reasoningEffort'>,
  opts: HttpProviderOptions,
): Record<string, unknown> {
  const effort = req.reasoningEffort ?? opts.reasoningEffort;
  const maxTokens = req.maxTokens ?? opts.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  if (!effort) return dropUndefined({ temperature: req.temperature ?? opts.temperature ?? 0.7, max_tokens: maxTokens });
  if (usesAdaptiveThinking(model)) return { max_tokens: maxTokens, thinking: { type: 'adaptive' }, output_config: { effort } };
  const budget = ANTHROPIC_THINKING_BUDGETS[effort];
  return { max_tokens: Math.max(maxTokens, budget + ANTHROPIC_DEFAULT_MAX_TOKENS), thinking: { type: 'enabled', budget_tokens: budget } };
}

/** Neutral messages → Anthropic: system lifted out, tool results as user `tool_result` blocks, same roles merged. */
export function toAnthropicMessages(input: Message[]): { system?: string; messages: Array<{ role: 'user' | 'assistant'; content: Block[] }> } {
  const system: string[] = [];
  const messages: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of input) {
    if (m.role === 'system') {
      if (m.content) system.push(m.content);
    } else if (m.role === 'user') {
      push('user', [{ type: 'text', text: m.content ?? '' }]);
    } else if (m.role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId ?? '', content: m.content ?? '', ...(m.isError ? { is_error: true } : {}) }]);
    } else {
      // Thinking blocks go first and unchanged (their signature is checked), as the API requires.
      const blocks: Block[] = (m.reasoning ?? []).map((b) => ({ ...b }));
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
      push('assistant', blocks);
    }
  }
  return system.length > 0 ? { system: system.join('\n\n'), messages } : { messages };
}

function fromAnthropicResponse(where: ReplyContext, json: unknown): Omit<ChatResponse, 'params' | 'latencyMs' | 'requestModel'> {
  if (!isRecord(json) || !Array.isArray(json.content)) throw badShape(where, 'no content[] array', json);
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: Block[] = [];
  json.content.forEach((b, i) => {
    // A block of the wrong shape is not a model answer: an infrastructure error, never "no call".
    if (!isRecord(b) || typeof b.type !== 'string') throw badShape(where, `content[${i}] is not a content block`, json);
    if (b.type === 'text' && typeof b.text !== 'string') throw badShape(where, `content[${i}].text is not a string`, json);
    if (b.type === 'tool_use' && (typeof b.name !== 'string' || b.name === '' || (b.input !== undefined && !isRecord(b.input)))) {
      throw badShape(where, `content[${i}] is a tool_use block without a name or with input that is not an object`, json);
    }
    if (b.type === 'thinking' || b.type === 'redacted_thinking') reasoning.push(b);
    if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    if (b.type === 'tool_use' && typeof b.name === 'string') {
      toolCalls.push({ id: typeof b.id === 'string' && b.id ? b.id : `toolu_${i}`, name: b.name, arguments: parseToolArguments(b.input) });
    }
  });
  let usage = {};
  if (isRecord(json.usage)) {
    const u = json.usage;
    const num = (v: unknown) => (typeof v === 'number' ? v : 0);
    // Cached input counts as input (gen_ai.usage.input_tokens includes cached tokens).
    const prompt = typeof u.input_tokens === 'number' ? u.input_tokens + num(u.cache_read_input_tokens) + num(u.cache_creation_input_tokens) : undefined;
    usage = usageOf(prompt, u.output_tokens, undefined);
  }
  const out: Omit<ChatResponse, 'params' | 'latencyMs' | 'requestModel'> = { toolCalls, usage };
  if (reasoning.length > 0) out.reasoning = reasoning;
  const text = texts.join('');
  if (text) out.text = text;
  if (typeof json.stop_reason === 'string') out.finishReason = json.stop_reason;
  if (typeof json.id === 'string') out.responseId = json.id;
  if (typeof json.model === 'string') out.responseModel = json.model;
  return out;
}
