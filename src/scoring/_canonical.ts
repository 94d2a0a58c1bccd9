// Canonical JSON: object keys sorted at every depth, so {a,b} and {b,a} are the same call.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** A value as a short, one-line string for reasons: strings quoted, long values cut. */
export function showValue(value: unknown, maxChars = 80): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
