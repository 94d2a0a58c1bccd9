import { createHash } from 'node:crypto';
import type { Message } from '../types/run.js';
import type { ToolDefinition } from '../types/toolset.js';
import { canonicalJson } from '../core/canonical-json.js';

function sha(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/** Hash of the tool schemas the model saw (names, descriptions, parameter schemas). */
export function toolsHash(tools: ToolDefinition[]): string {
  return sha(canonicalJson(tools));
}

/** Hash of a request: messages and tool schemas (not model or sampling parameters). */
export function requestHash(messages: Message[], tools: ToolDefinition[]): string {
  return sha(canonicalJson({ messages, tools }));
}
