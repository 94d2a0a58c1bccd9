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

export function toOpenAITools(defs: ToolDefinition[]): OpenAITool[] {
  return defs.map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } }));
}

export function toAnthropicTools(defs: ToolDefinition[]): AnthropicTool[] {
  return defs.map((d) => ({ name: d.name, description: d.description, input_schema: d.parameters }));
}
