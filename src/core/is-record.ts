/**
 * A plain object (a JSON object, a TOML table, a structured span attribute): not null, not an array,
 * not a Date (TOML dates parse to Date objects). The one definition every module narrows with.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
