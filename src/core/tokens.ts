import type { Usage } from '../types/run.js';

/**
 * The total tokens of a usage record: `totalTokens` when the producer reported it, else prompt +
 * completion when either is known, else undefined (no usage reported is not zero tokens).
 */
export function totalTokens(u: Usage | undefined): number | undefined {
  if (!u) return undefined;
  if (u.totalTokens !== undefined) return u.totalTokens;
  if (u.promptTokens === undefined && u.completionTokens === undefined) return undefined;
  return (u.promptTokens ?? 0) + (u.completionTokens ?? 0);
}

/** A usage record with `totalTokens` filled in by {@link totalTokens} when it can be. */
export function withTotal(u: Usage): Usage {
  const t = totalTokens(u);
  return t === undefined || u.totalTokens !== undefined ? { ...u } : { ...u, totalTokens: t };
}
