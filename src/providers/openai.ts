import { toOpenAITools } from './tools-wire.js';
import type { Message, ToolCall } from '../types/run.js';
import { createModelLookup, createProviderHttp, joinUrl, jsonWithTail, serverOf } from './_http.js';
import { argumentsText, badShape, parseToolArguments, usageOf, type ReplyContext } from './_wire.js';
import { isRecord } from '../core/is-record.js';
import type { ChatRequest, ChatResponse, HttpProviderOptions, Provider } from './types.js';

/** Default base URL: a local vLLM server (turnstone's default). */
export const OPENAI_DEFAULT_BASE_URL = 'http://localhost:8000/v1';

/**
 * OpenAI Chat Completions with tools, for any OpenAI-compatible server (OpenAI, vLLM, llama.cpp,
 * Ollama's /v1, LM Studio). Without a model, the first id of `GET {baseUrl}/models` is used.
 * @example createOpenAIProvider({ baseUrl: 'http://localhost:11434/v1', model: 'qwen3:8b' })
 */
export function createOpenAIProvider(opts: HttpProviderOptions = {}): Provider {
  const baseUrl = opts.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const name = opts.name ?? 'openai';
  const label = `${name} provider`;
  const http = createProviderHttp(label, opts);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const server = serverOf(baseUrl);
  // api.openai.com: reasoning models reject max_tokens and any temperature but the default, so there
  // we send max_completion_tokens and a temperature only when one is configured. Local servers
  // (vLLM, Ollama, llama.cpp) get turnstone's 0.7 and max_tokens, which they all accept.
  const platform = server.serverAddress === 'api.openai.com';
  let model = opts.model;
  const lookupModel = createModelLookup(http, { url: joinUrl(baseUrl, 'models'), headers, label });

  return {
    name,
    system: opts.system ?? 'openai',
    baseUrl,
    ...(opts.contextWindow !== undefined ? { contextWindow: opts.contextWindow } : {}),
    get model() {
      return model;
    },
    async chat(req: ChatRequest): Promise<ChatResponse> {
      const requestModel = req.model ?? model ?? (model = await lookupModel(req.signal));
      const params = openAIParams(req, opts, platform);
      const head: Record<string, unknown> = {
        model: requestModel,
        messages: req.messages.map(toOpenAIMessage),
        ...params,
        stream: false,
      };
      // The tools are the same array for every request of a layout: serialised once (jsonWithTail).
      const tools = req.tools.length > 0 ? toOpenAITools(req.tools) : undefined;
      const body = jsonWithTail(head, tools ? { tools, tool_choice: 'auto' } : undefined, tools);
      const { json, latencyMs } = await http.send({ method: 'POST', url: joinUrl(baseUrl, 'chat/completions'), headers, body, signal: req.signal });
      const parsed = fromOpenAIResponse({ label, secrets: [opts.apiKey] }, json);
      return {
        ...parsed,
        requestModel,
        params,
        ...server,
        latencyMs,
      };
    },
    close: () => http.close(),
  };
}

function toOpenAIMessage(m: Message): Record<string, unknown> {
  switch (m.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content ?? '' };
    case 'assistant': {
      const out: Record<string, unknown> = { role: 'assistant', content: m.content ?? null };
      if (m.toolCalls && m.toolCalls.length > 0) {
        out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: argumentsText(c) } }));
      }
      return out;
    }
    default:
      return { role: m.role, content: m.content ?? '' };
  }
}

function fromOpenAIResponse(where: ReplyContext, json: unknown): Omit<ChatResponse, 'params' | 'latencyMs' | 'requestModel'> {
  if (!isRecord(json)) throw badShape(where, 'expected a JSON object', json);
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) throw badShape(where, 'no choices[0].message', json);
  const msg = choice.message;
  const toolCalls: ToolCall[] = [];
  // Wrong field types are not a chat completion: an infrastructure error, never the model's "no call".
  if (msg.content !== undefined && msg.content !== null && typeof msg.content !== 'string' && !Array.isArray(msg.content)) {
    throw badShape(where, `choices[0].message.content is ${typeName(msg.content)}, expected a string`, json);
  }
  if (msg.tool_calls !== undefined && msg.tool_calls !== null && !Array.isArray(msg.tool_calls)) {
    throw badShape(where, `choices[0].message.tool_calls is ${typeName(msg.tool_calls)}, expected a list`, json);
  }
  if (Array.isArray(msg.tool_calls)) {
    msg.tool_calls.forEach((tc, i) => {
      if (!isRecord(tc) || !isRecord(tc.function) || typeof tc.function.name !== 'string' || tc.function.name === '') {
        throw badShape(where, `choices[0].message.tool_calls[${i}] is not a function call with a name`, json);
      }
      const a = tc.function.arguments;
      if (a !== undefined && a !== null && typeof a !== 'string' && !isRecord(a)) {
        throw badShape(where, `choices[0].message.tool_calls[${i}].function.arguments is ${typeName(a)}, expected a JSON string`, json);
      }
      toolCalls.push({
        id: typeof tc.id === 'string' && tc.id ? tc.id : `call_${i}`,
        name: tc.function.name,
        arguments: parseToolArguments(tc.function.arguments),
      });
    });
  }
  let text: string | undefined;
  if (typeof msg.content === 'string') text = msg.content;
  else if (Array.isArray(msg.content)) {
    text = msg.content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
  }
  const usage = isRecord(json.usage) ? usageOf(json.usage.prompt_tokens, json.usage.completion_tokens, json.usage.total_tokens) : {};
  const out: Omit<ChatResponse, 'params' | 'latencyMs' | 'requestModel'> = { toolCalls, usage };
  if (text !== undefined && text !== '') out.text = text;
  if (typeof choice.finish_reason === 'string') out.finishReason = choice.finish_reason;
  if (typeof json.id === 'string') out.responseId = json.id;
  if (typeof json.model === 'string') out.responseModel = json.model;
  return out;
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * Sampling parameters as sent. `platform` is api.openai.com: reasoning models there reject max_tokens
 * and non-default temperatures, so it gets max_completion_tokens and a temperature only when set.
 */
export function openAIParams(
  req: Pick<ChatRequest, 'temperature' | 'maxTokens' | 'reasoningEffort'>,
  opts: HttpProviderOptions,
  platform: boolean,
): Record<string, unknown> {
  // The set ones only, in this order (built key by key: this runs once per request).
  const out: Record<string, unknown> = {};
  const temperature = req.temperature ?? opts.temperature ?? (platform ? undefined : 0.7);
  if (temperature !== undefined) out.temperature = temperature;
  const maxTokens = req.maxTokens ?? opts.maxTokens;
  if (maxTokens !== undefined) out[platform ? 'max_completion_tokens' : 'max_tokens'] = maxTokens;
  const effort = req.reasoningEffort ?? opts.reasoningEffort;
  if (effort !== undefined) out.reasoning_effort = effort;
  return out;
}
