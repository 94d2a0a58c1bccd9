import { snippetOf } from '../core/http-client.js';
import { ProviderError } from '../errors.js';
import type { ToolCall, Usage } from '../types/run.js';
import { withTotal } from '../core/tokens.js';

// Small helpers shared by the wire adapters.

/**
 * Model-produced tool arguments as an object. Unparseable JSON (or JSON that is not an object) becomes
 * `{ _raw: text }`, the turnstone rule, so scoring sees what the model wrote instead of an exception.
 */
export function parseToolArguments(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string') return { _raw: JSON.stringify(raw) };
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through to _raw
  }
  return { _raw: raw };
}

/** The argument text to send back to a provider for a call we parsed earlier. */
export function argumentsText(call: ToolCall): string {
  const keys = Object.keys(call.arguments);
  if (keys.length === 1 && keys[0] === '_raw' && typeof call.arguments._raw === 'string') return call.arguments._raw;
  return JSON.stringify(call.arguments);
}

/** Usage with total falling back to prompt + completion. */
export function usageOf(prompt: unknown, completion: unknown, total: unknown): Usage {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const p = num(prompt);
  const c = num(completion);
  const t = num(total);
  const usage: Usage = {};
  if (p !== undefined) usage.promptTokens = p;
  if (c !== undefined) usage.completionTokens = c;
  if (t !== undefined) usage.totalTokens = t;
  return withTotal(usage);
}

/** Who read a reply: the provider's label, and its own secrets to blank out of anything quoted. */
export interface ReplyContext {
  label: string;
  secrets?: ReadonlyArray<string | undefined>;
}

/**
 * A malformed (but JSON) answer: one line with a short snippet of what came back, redacted as every quoted
 * reply is (core/http-client.ts `snippetOf`): a gateway that echoes the key does not put it in the results.
 */
export function badShape(where: ReplyContext, what: string, json: unknown): ProviderError {
  const secrets = (where.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 4);
  const text = snippetOf(JSON.stringify(json) ?? String(json), secrets);
  return new ProviderError('PROVIDER_RESPONSE', `${where.label}: unexpected response: ${what}: ${text}`, {
    hint: 'is --base-url pointing at the right kind of API (openai vs anthropic)?',
  });
}
