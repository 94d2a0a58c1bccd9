import type { ToolDefinition } from '../types/toolset.js';

/** OpenAI Chat Completions `tools[]` entry. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Anthropic Messages `tools[]` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

// A layout hands every request the same tool array; its wire form is built once per array.
const openAICache = new WeakMap<readonly ToolDefinition[], OpenAITool[]>();
const anthropicCache = new WeakMap<readonly ToolDefinition[], AnthropicTool[]>();

export function toOpenAITools(defs: ToolDefinition[]): OpenAITool[] {
  let out = openAICache.get(defs);
  if (!out || out.length !== defs.length) {
    out = defs.map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } }));
    openAICache.set(defs, out);
  }
  return out;
}

export function toAnthropicTools(defs: ToolDefinition[]): AnthropicTool[] {
  let out = anthropicCache.get(defs);
  if (!out || out.length !== defs.length) {
    out = defs.map((d) => ({ name: d.name, description: d.description, input_schema: d.parameters }));
    anthropicCache.set(defs, out);
  }
  return out;
}
