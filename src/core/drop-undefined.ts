// Dropping undefined properties: the one helper (spans, wire bodies, normalised cases and results documents
// all write objects without undefined values).

/**
 * A copy of `obj` without its undefined properties. A fresh literal rather than `delete`: a deleted property
 * turns an object into a slow dictionary (a Case took 2.3 KB instead of 1.0 KB). `for...in` over own keys
 * allocates no [key, value] pair per property (this runs for every span and every logged case).
 * @example dropUndefined({ a: 1, b: undefined }) // { a: 1 }
 */
export function dropUndefined<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}
