import type { ArgSpec, ArgType } from '../types/toolset.js';
import { isRecord } from '../core/is-record.js';

// ArgSpec <-> JSON Schema (draft-07 subset), used to render tools for the model and to read OpenAI
// `tools` files and MCP `inputSchema`s.

const TO_JSON_TYPE: Record<ArgType, string> = {
  string: 'string',
  int: 'integer',
  float: 'number',
  bool: 'boolean',
  array: 'array',
  object: 'object',
};

/** The JSON Schema of one arg as the model sees it. */
export function argToJsonSchema(arg: ArgSpec): Record<string, unknown> {
  const out: Record<string, unknown> = (arg.type === 'array' || arg.type === 'object') && arg.schema ? { ...arg.schema } : { type: TO_JSON_TYPE[arg.type] };
  out.type = TO_JSON_TYPE[arg.type];
  if (arg.description) out.description = arg.description;
  if (arg.choices && arg.choices.length > 0) out.enum = [...arg.choices];
  if (arg.type === 'int' || arg.type === 'float') {
    if (arg.min !== undefined) out.minimum = arg.min;
    if (arg.max !== undefined) out.maximum = arg.max;
  } else if (arg.type === 'string') {
    if (arg.min !== undefined) out.minLength = arg.min;
    if (arg.max !== undefined) out.maxLength = arg.max;
  } else if (arg.type === 'array') {
    if (arg.min !== undefined) out.minItems = arg.min;
    if (arg.max !== undefined) out.maxItems = arg.max;
  }
  if (arg.default !== undefined) out.default = arg.default;
  return out;
}

/** An object schema over a list of args; `required` lists the required ones unless told otherwise. */
export function argsToJsonSchema(args: readonly ArgSpec[], opts: { requiredOk?: boolean } = {}): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const a of args) {
    properties[a.name] = argToJsonSchema(a);
    if (a.required && opts.requiredOk !== false) required.push(a.name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function typeOf(schema: Record<string, unknown>): ArgType {
  let t = schema.type;
  if (Array.isArray(t)) t = t.find((x) => x !== 'null');
  switch (t) {
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'array';
    case 'object':
      return 'object';
    case 'string':
      return 'string';
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const v = schema.enum[0];
    if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
    if (typeof v === 'boolean') return 'bool';
    return 'string';
  }
  if (isRecord(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return 'string';
}

/**
 * Read an object JSON Schema (`properties` + `required`) into args: `integer` → int, `number` →
 * float, `boolean` → bool, `enum` → choices, `minimum`/`maximum` (or min/max length / items) → min/max;
 * array and object properties keep their schema for the model. A property without a type is a string.
 */
export function jsonSchemaToArgs(schema: unknown): ArgSpec[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const p = isRecord(raw) ? raw : {};
    const type = typeOf(p);
    const arg: ArgSpec = { name, type, required: required.has(name) };
    if (typeof p.description === 'string') arg.description = p.description;
    if (Array.isArray(p.enum)) arg.choices = [...p.enum];
    const min = p.minimum ?? p.minLength ?? p.minItems;
    const max = p.maximum ?? p.maxLength ?? p.maxItems;
    if (typeof min === 'number') arg.min = min;
    if (typeof max === 'number') arg.max = max;
    if (p.default !== undefined) arg.default = p.default;
    if (type === 'array' || type === 'object') arg.schema = { ...p };
    return arg;
  });
}
