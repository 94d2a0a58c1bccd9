import { createHash } from 'node:crypto';
import type { Message } from '../types/run.js';
import type { ToolDefinition } from '../types/toolset.js';

/** JSON with object keys sorted at every level, so equal values always hash and diff the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

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
