import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { isRecord } from './is-record.js';

// Strict fields: the one rule for keys a schema does not know, in every file we read (fixtures of the three
// dialects, suites, toolsets, runspec.toml and its siblings). An unknown key is an error naming the closest
// known one, so a misspelled check (`expect_toool`) can never be dropped and pass vacuously. A key that
// starts with `x_` is an extension field: the file's author keeps their own data there and we drop it.
// Objects in our schemas are strict (zod's `unrecognized_keys`), so a new field is simply added to a schema.

/** Keys with this prefix are extension fields: accepted anywhere a schema object is strict, and ignored. */
export const EXTENSION_FIELD_PREFIX = 'x_';

/** The hint every unknown-field error carries. */
export const UNKNOWN_FIELD_HINT = `fix the name, or start it with ${EXTENSION_FIELD_PREFIX} to keep it as an extension field the runner ignores`;

/** An unknown key, and the object path it sits in. */
export interface UnknownField {
  path: PropertyKey[];
  key: string;
}

type Issue = z.core.$ZodIssue;

/**
 * Split zod's `unrecognized_keys` issues into the unknown fields to report and the extension fields to drop.
 * @example const { unknown, extensions } = unknownFields(result.error.issues)
 */
export function unknownFields(issues: readonly Issue[]): { unknown: UnknownField[]; extensions: UnknownField[] } {
  const unknown: UnknownField[] = [];
  const extensions: UnknownField[] = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    for (const key of issue.keys) (key.startsWith(EXTENSION_FIELD_PREFIX) ? extensions : unknown).push({ path: [...issue.path], key });
  }
  return { unknown, extensions };
}

/** `unknown field; did you mean "x"?` (or the known fields when none is close). */
export function unknownFieldMessage(key: string, known: readonly string[]): string {
  return `unknown field${didYouMean(key, known) || (known.length ? `; known fields: ${known.join(', ')}` : '')}`;
}

/** A copy of `data` without the given fields (the extension fields a parse reported). */
export function withoutFields(data: unknown, fields: readonly UnknownField[]): unknown {
  let out = data;
  for (const f of fields) out = withoutKey(out, f.path, f.key);
  return out;
}

function withoutKey(data: unknown, path: readonly PropertyKey[], key: string): unknown {
  if (path.length === 0) {
    if (!isRecord(data)) return data;
    const copy = { ...data };
    delete copy[key];
    return copy;
  }
  const [head, ...rest] = path;
  if (Array.isArray(data)) {
    const copy = [...data];
    copy[head as number] = withoutKey(copy[head as number], rest, key);
    return copy;
  }
  if (!isRecord(data)) return data;
  return { ...data, [head as string]: withoutKey(data[head as string], rest, key) };
}

/** Keys an object schema at `path` accepts (for "did you mean"), walking zod's definitions. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Def = Record<string, unknown>;
  const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;
  const unwrap = (s: unknown): Def => {
    let def = defOf(s);
    for (let n = 0; n < 10 && ['optional', 'default', 'nullable', 'readonly', 'pipe', 'lazy'].includes(def.type as string); n++) {
      const inner = def.type === 'lazy' ? (def.getter as () => unknown)() : (def.innerType ?? def.in);
      def = defOf(inner);
    }
    return def;
  };
  // A union: the object branch (the table form of a field that also takes a string or list).
  const objectOf = (def: Def): Def => (def.type === 'union' ? ((def.options as unknown[]).map(unwrap).find((d) => d.type === 'object') ?? def) : def);
  let cur: unknown = schema;
  for (const seg of path) {
    const def = objectOf(unwrap(cur));
    if (def.type === 'object') cur = (def.shape as Record<string, unknown>)[seg as string];
    else if (def.type === 'array') cur = def.element;
    else if (def.type === 'record') cur = def.valueType;
    else return [];
    if (!cur) return [];
  }
  const def = objectOf(unwrap(cur));
  return def.type === 'object' ? Object.keys(def.shape as Record<string, unknown>) : [];
}
