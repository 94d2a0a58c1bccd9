import { readFileSync } from 'node:fs';
import { showValue } from '../core/canonical-json.js';
import { EXTENSION_FIELD_PREFIX, UNKNOWN_FIELD_HINT, unknownFieldMessage, withoutFields } from '../core/strict-fields.js';
import { z } from 'zod';
import { basename, extname } from 'node:path';
import { parseToolMocks, type ToolMockIssue } from '../core/tool-mocks.js';
import { ToolsetError } from '../errors.js';
import type { Autonomy } from '../types/case.js';
import type { ArgSpec, ArgType, Runnable, Subcommand, ToolCategory, Toolset } from '../types/toolset.js';
import { jsonSchemaToArgs } from './json-schema.js';
import { QUALIFIER_SEPARATOR } from './lookup.js';
import { coerceArgValue } from './validate-args.js';
import { isRecord } from '../core/is-record.js';
import { AUTONOMY_LEVELS, TOOL_CATEGORIES } from '../core/vocabulary.js';
import { parseStructuredText } from '../core/structured-file.js';
import { dotPath, type LineFinder } from '../core/lines.js';

// Our toolset file (TOML or JSON, documented in examples/toolset.toml) and OpenAI `tools` arrays.
// Every error names file:line (best effort: the line of the table or key) and the field path.

type Path = (string | number)[];

const ARG_TYPES: readonly ArgType[] = ['string', 'int', 'float', 'bool', 'array', 'object'];
const CATEGORIES: readonly ToolCategory[] = TOOL_CATEGORIES;
const AUTONOMY: readonly Autonomy[] = AUTONOMY_LEVELS;
/** Type aliases accepted in `type = ...` for authors used to JSON Schema names. */
const TYPE_ALIASES: Record<string, ArgType> = { integer: 'int', number: 'float', boolean: 'bool', str: 'string' };

const TOP_KEYS = ['name', 'description', 'hosts', 'groups', 'runnable', 'runnables', 'mocks'];
const RUNNABLE_KEYS = ['name', 'description', 'group', 'category', 'autonomy', 'args', 'subcommands', 'require_command', 'own_host_arg', 'hidden', 'hosts'];
const SUB_KEYS = ['name', 'description', 'autonomy', 'args', 'subcommands', 'require_command'];
const ARG_KEYS = ['name', 'type', 'description', 'required', 'choices', 'min', 'max', 'default', 'schema', 'escalate'];

function show(v: unknown): string {
  return showValue(v, 50);
}

// ---- the file format as a zod schema: structure, types and vocabularies. Cross-field rules (duplicate
// names, hosts of groups, choices and defaults of the arg's type, min ≤ max) are checked after it, by
// the reader below. Messages keep our style: `expected one of a, b (got "x")`, `unknown key (...)`.

const got = (input: unknown): string => `(got ${show(input)})`;
const zStr = (): z.ZodString => z.string({ error: (iss) => `expected a string ${got(iss.input)}` });
const zName = (): z.ZodString =>
  z.string({ error: (iss) => `expected a non-empty string ${got(iss.input)}` }).min(1, { error: (iss) => `expected a non-empty string ${got(iss.input)}` });
const zBool = (): z.ZodBoolean => z.boolean({ error: (iss) => `expected true or false ${got(iss.input)}` });
const zNum = (): z.ZodNumber => z.number({ error: (iss) => `expected a number ${got(iss.input)}` });
function zOneOf<T extends readonly [string, ...string[]]>(values: T, shown: readonly string[] = values): z.ZodEnum<{ [K in T[number]]: K }> {
  return z.enum(values, { error: (iss) => `expected one of ${shown.join(', ')} ${got(iss.input)}` });
}
function zTable<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys' ? unknownFieldMessage(iss.keys[0] ?? '', Object.keys(shape)) : `expected a table/object ${got(iss.input)}`,
  });
}
const zList = <T extends z.ZodType>(item: T, what = 'a list'): z.ZodArray<T> => z.array(item, { error: (iss) => `expected ${what} ${got(iss.input)}` });

const AUTONOMY_ENUM = zOneOf(AUTONOMY_LEVELS);
const ArgFileSchema = zTable({
  name: zName().optional(),
  type: zOneOf(['string', 'int', 'float', 'bool', 'array', 'object', ...Object.keys(TYPE_ALIASES)] as [string, ...string[]], ARG_TYPES).optional(),
  description: zStr().optional(),
  required: zBool().optional(),
  choices: zList(z.unknown(), 'a non-empty list')
    .min(1, { error: (iss) => `expected a non-empty list ${got(iss.input)}` })
    .optional(),
  min: zNum().optional(),
  max: zNum().optional(),
  default: z.unknown().optional(),
  schema: z.record(z.string(), z.unknown(), { error: (iss) => `expected a table/object ${got(iss.input)}` }).optional(),
  escalate: z.union([AUTONOMY_ENUM, zTable({ level: AUTONOMY_ENUM, when: z.unknown().optional() })]).optional(),
});
const ArgsFileSchema = z.union([zList(ArgFileSchema), z.record(z.string(), ArgFileSchema)]);
type SubcommandFile = {
  name: string;
  description?: string | undefined;
  autonomy?: string | undefined;
  args?: unknown;
  subcommands?: SubcommandFile[] | undefined;
  require_command?: boolean | undefined;
};
const SubcommandFileSchema: z.ZodType<SubcommandFile> = z.lazy(() =>
  zTable({
    name: zName(),
    description: zStr().optional(),
    autonomy: AUTONOMY_ENUM.optional(),
    args: ArgsFileSchema.optional(),
    subcommands: zList(SubcommandFileSchema, 'a list of subcommand tables').optional(),
    require_command: zBool().optional(),
  }),
);
const RunnableFileSchema = zTable({
  name: zName(),
  description: zStr().optional(),
  group: zStr().optional(),
  category: zOneOf(TOOL_CATEGORIES).optional(),
  autonomy: AUTONOMY_ENUM.optional(),
  args: ArgsFileSchema.optional(),
  subcommands: zList(SubcommandFileSchema, 'a list of subcommand tables').optional(),
  require_command: zBool().optional(),
  own_host_arg: zBool().optional(),
  hidden: zBool().optional(),
  hosts: zList(zName(), 'a list of strings').optional(),
});

/**
 * Our toolset file (examples/toolset.toml) as a zod schema; `z.toJSONSchema(ToolsetFileSchema)` gives
 * editors its JSON Schema. OpenAI `tools` arrays are read by their own path.
 */
export const ToolsetFileSchema = zTable({
  name: zName().optional(),
  description: zStr().optional(),
  hosts: zList(zName(), 'a list of strings').optional(),
  groups: z.record(z.string(), zList(zName(), 'a list of strings'), { error: (iss) => `expected a table/object ${got(iss.input)}` }).optional(),
  runnable: zList(RunnableFileSchema, 'a list of runnable tables').optional(),
  runnables: zList(RunnableFileSchema, 'a list of runnable tables').optional(),
  /** `[mocks]`: canned tool answers, checked by core/tool-mocks.ts. */
  mocks: z.unknown().optional(),
});

/** The first schema problem as (path, message): a union reports the branch that fits the input's shape. */
function firstProblem(issues: readonly z.core.$ZodIssue[], data: unknown, base: Path = []): { path: Path; message: string } | undefined {
  const issue = issues[0];
  if (!issue) return undefined;
  const path: Path = [...base, ...(issue.path as Path)];
  if (issue.code === 'invalid_union') {
    const input = valueAt(data, path);
    // Branches in schema order: a list form first, then a table form (or an enum, then a table).
    const branch = issue.errors.find((errs) => errs.length > 0 && !(errs.length === 1 && errs[0]!.code === 'invalid_type' && errs[0]!.path.length === 0));
    const pick = Array.isArray(input) ? issue.errors[0] : (branch ?? issue.errors[issue.errors.length - 1]);
    return firstProblem(pick ?? [], data, path) ?? { path, message: issue.message };
  }
  if (issue.code === 'unrecognized_keys') return { path: [...path, issue.keys[0]!], message: issue.message };
  return { path, message: issue.message };
}

function valueAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

class Reader {
  constructor(
    private readonly file: string,
    private readonly lines: LineFinder,
  ) {}

  fail(path: Path, message: string, hint?: string): never {
    const line = this.lines(path);
    throw new ToolsetError('TOOLSET', `${this.file}:${line}: ${dotPath(path)}: ${message}`, {
      hint: hint ?? 'see examples/toolset.toml for the toolset file format',
    });
  }

  keys(obj: Record<string, unknown>, allowed: readonly string[], path: Path): void {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k) && !k.startsWith(EXTENSION_FIELD_PREFIX))
        this.fail([...path, k], unknownFieldMessage(k, allowed), `${UNKNOWN_FIELD_HINT}; see examples/toolset.toml for the toolset file format`);
    }
  }

  record(v: unknown, path: Path): Record<string, unknown> {
    if (!isRecord(v)) this.fail(path, `expected a table/object (got ${show(v)})`);
    return v;
  }

  string(v: unknown, path: Path): string {
    if (typeof v !== 'string' || v.trim() === '') this.fail(path, `expected a non-empty string (got ${show(v)})`);
    return v;
  }

  optString(v: unknown, path: Path): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') this.fail(path, `expected a string (got ${show(v)})`);
    return v;
  }

  optBool(v: unknown, path: Path): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') this.fail(path, `expected true or false (got ${show(v)})`);
    return v;
  }

  optNumber(v: unknown, path: Path): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(path, `expected a number (got ${show(v)})`);
    return v;
  }

  optEnum<T extends string>(v: unknown, allowed: readonly T[], path: Path): T | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !allowed.includes(v as T)) this.fail(path, `expected one of ${allowed.join(', ')} (got ${show(v)})`);
    return v as T;
  }

  strings(v: unknown, path: Path): string[] {
    if (!Array.isArray(v)) this.fail(path, `expected a list of strings (got ${show(v)})`);
    return v.map((x, i) => this.string(x, [...path, i]));
  }
}

function parseArg(rd: Reader, raw: unknown, path: Path, nameFromKey?: string): ArgSpec {
  const o = rd.record(raw, path);
  rd.keys(o, ARG_KEYS, path);
  const name = nameFromKey ?? rd.string(o.name, [...path, 'name']);
  if (nameFromKey !== undefined && o.name !== undefined && o.name !== nameFromKey) {
    rd.fail([...path, 'name'], `differs from its key "${nameFromKey}" (got ${show(o.name)})`);
  }
  const rawType = o.type === undefined ? 'string' : typeof o.type === 'string' ? (TYPE_ALIASES[o.type] ?? o.type) : o.type;
  const type = rd.optEnum(rawType, ARG_TYPES, [...path, 'type'])!;
  const arg: ArgSpec = { name, type };
  const description = rd.optString(o.description, [...path, 'description']);
  if (description !== undefined) arg.description = description;
  const required = rd.optBool(o.required, [...path, 'required']);
  if (required !== undefined) arg.required = required;
  const min = rd.optNumber(o.min, [...path, 'min']);
  const max = rd.optNumber(o.max, [...path, 'max']);
  if (min !== undefined) arg.min = min;
  if (max !== undefined) arg.max = max;
  if (min !== undefined && max !== undefined && min > max) rd.fail([...path, 'min'], `min ${min} is above max ${max}`);
  if (o.choices !== undefined) {
    if (!Array.isArray(o.choices) || o.choices.length === 0) rd.fail([...path, 'choices'], `expected a non-empty list (got ${show(o.choices)})`);
    arg.choices = o.choices.map((c, i) => {
      const r = coerceArgValue(arg, c);
      if (!r.ok) rd.fail([...path, 'choices', i], `${r.reason} for a ${type} arg`);
      return r.value;
    });
  }
  if (o.default !== undefined) {
    const r = coerceArgValue(arg, o.default);
    if (!r.ok) rd.fail([...path, 'default'], `${r.reason} for a ${type} arg`);
    arg.default = r.value;
  }
  if (o.schema !== undefined) arg.schema = rd.record(o.schema, [...path, 'schema']);
  if (o.escalate !== undefined) {
    if (typeof o.escalate === 'string') {
      arg.escalate = { level: rd.optEnum(o.escalate, AUTONOMY, [...path, 'escalate'])! };
    } else {
      const e = rd.record(o.escalate, [...path, 'escalate']);
      rd.keys(e, ['level', 'when'], [...path, 'escalate']);
      const level = rd.optEnum(e.level, AUTONOMY, [...path, 'escalate', 'level']);
      if (level === undefined) rd.fail([...path, 'escalate', 'level'], `expected one of ${AUTONOMY.join(', ')} (got nothing)`);
      arg.escalate = { level, ...(e.when !== undefined ? { when: e.when } : {}) };
    }
  }
  return arg;
}

/** `args` as a list of tables with `name`, or as a table keyed by arg name (`args.service = {...}`). */
function parseArgs(rd: Reader, raw: unknown, path: Path): ArgSpec[] {
  if (raw === undefined) return [];
  const args = Array.isArray(raw)
    ? raw.map((a, i) => parseArg(rd, a, [...path, i]))
    : Object.entries(rd.record(raw, path)).map(([k, v]) => parseArg(rd, v, [...path, k], k));
  const seen = new Set<string>();
  args.forEach((a, i) => {
    if (seen.has(a.name)) rd.fail([...path, Array.isArray(raw) ? i : a.name], `duplicate arg "${a.name}"`);
    seen.add(a.name);
  });
  return args;
}

function parseSubcommands(rd: Reader, raw: unknown, path: Path, depth: number): Subcommand[] | undefined {
  if (raw === undefined) return undefined;
  if (depth > 8) rd.fail(path, 'subcommands nest deeper than 8 levels');
  if (!Array.isArray(raw)) rd.fail(path, `expected a list of subcommand tables (got ${show(raw)})`);
  const seen = new Set<string>();
  return raw.map((s, i) => {
    const p = [...path, i];
    const o = rd.record(s, p);
    rd.keys(o, SUB_KEYS, p);
    const name = rd.string(o.name, [...p, 'name']);
    if (/\s/.test(name))
      rd.fail([...p, 'name'], `a subcommand name cannot contain spaces (got ${show(name)})`, 'nest subcommands instead: [[runnable.subcommands.subcommands]]');
    if (seen.has(name)) rd.fail([...p, 'name'], `duplicate subcommand "${name}"`);
    seen.add(name);
    const sub: Subcommand = { name, args: parseArgs(rd, o.args, [...p, 'args']) };
    const description = rd.optString(o.description, [...p, 'description']);
    if (description !== undefined) sub.description = description;
    const autonomy = rd.optEnum(o.autonomy, AUTONOMY, [...p, 'autonomy']);
    if (autonomy !== undefined) sub.autonomy = autonomy;
    const subs = parseSubcommands(rd, o.subcommands, [...p, 'subcommands'], depth + 1);
    if (subs !== undefined) sub.subcommands = subs;
    const req = rd.optBool(o.require_command, [...p, 'require_command']);
    if (req !== undefined) sub.requireCommand = req;
    return sub;
  });
}

function declaresHost(args: ArgSpec[], subs: Subcommand[] | undefined): boolean {
  return args.some((a) => a.name === 'host') || (subs ?? []).some((s) => declaresHost(s.args, s.subcommands));
}

function parseOwnFormat(rd: Reader, input: unknown, fallbackName: string, source: string): Toolset {
  // Extension fields (`x_…`) are dropped one at a time as the schema finds them (bounded by the file's keys).
  let data = input;
  for (let n = 0; n < 10_000; n++) {
    const checked = ToolsetFileSchema.safeParse(data);
    if (checked.success) break;
    const problem = firstProblem(checked.error.issues, data);
    if (!problem) break;
    const key = problem.path[problem.path.length - 1];
    if (typeof key === 'string' && key.startsWith(EXTENSION_FIELD_PREFIX) && problem.message.startsWith('unknown field')) {
      data = withoutFields(data, [{ path: problem.path.slice(0, -1), key }]);
      continue;
    }
    rd.fail(
      problem.path,
      problem.message,
      problem.message.startsWith('unknown field') ? `${UNKNOWN_FIELD_HINT}; see examples/toolset.toml for the toolset file format` : undefined,
    );
  }
  const top = rd.record(data, []);
  rd.keys(top, TOP_KEYS, []);
  const name = top.name === undefined ? fallbackName : rd.string(top.name, ['name']);
  const hosts = top.hosts === undefined ? [] : rd.strings(top.hosts, ['hosts']);
  const hostSet = new Set(hosts);
  if (hostSet.size !== hosts.length) rd.fail(['hosts'], 'lists a host twice');
  const groups: Record<string, string[]> = {};
  if (top.groups !== undefined) {
    for (const [g, members] of Object.entries(rd.record(top.groups, ['groups']))) {
      const list = rd.strings(members, ['groups', g]);
      list.forEach((h, i) => {
        if (!hostSet.has(h)) rd.fail(['groups', g, i], `unknown host "${h}" (hosts: ${hosts.join(', ') || 'none'})`);
      });
      groups[g] = list;
    }
  }
  const key = top.runnable !== undefined ? 'runnable' : 'runnables';
  if (top.runnable !== undefined && top.runnables !== undefined) rd.fail(['runnables'], 'use either [[runnable]] or runnables, not both');
  const rawList = top[key];
  if (rawList === undefined) rd.fail([key], 'expected at least one [[runnable]] table (got nothing)');
  if (!Array.isArray(rawList)) rd.fail([key], `expected a list of runnable tables (got ${show(rawList)})`);
  const seen = new Set<string>();
  const runnables = rawList.map((raw, i): Runnable => {
    const p: Path = [key, i];
    const o = rd.record(raw, p);
    rd.keys(o, RUNNABLE_KEYS, p);
    const rname = rd.string(o.name, [...p, 'name']);
    if (rname.includes(QUALIFIER_SEPARATOR)) {
      rd.fail(
        [...p, 'name'],
        `"${QUALIFIER_SEPARATOR}" is reserved for host and group qualifiers (got ${show(rname)})`,
        'set group = "..." instead of spelling it in the name',
      );
    }
    if (seen.has(rname)) rd.fail([...p, 'name'], `duplicate runnable "${rname}"`);
    seen.add(rname);
    const args = parseArgs(rd, o.args, [...p, 'args']);
    const subcommands = parseSubcommands(rd, o.subcommands, [...p, 'subcommands'], 1);
    const r: Runnable = {
      name: rname,
      description: rd.optString(o.description, [...p, 'description']) ?? '',
      category: rd.optEnum(o.category, CATEGORIES, [...p, 'category']) ?? 'bash',
      args,
      autonomy: rd.optEnum(o.autonomy, AUTONOMY, [...p, 'autonomy']) ?? 'confirm',
      ownHostArg: rd.optBool(o.own_host_arg, [...p, 'own_host_arg']) ?? declaresHost(args, subcommands),
    };
    const group = rd.optString(o.group, [...p, 'group']);
    if (group !== undefined) r.group = group;
    if (subcommands !== undefined) r.subcommands = subcommands;
    const req = rd.optBool(o.require_command, [...p, 'require_command']);
    if (req !== undefined) r.requireCommand = req;
    if (req && !subcommands?.length) rd.fail([...p, 'require_command'], 'is true but the runnable has no subcommands');
    const hidden = rd.optBool(o.hidden, [...p, 'hidden']);
    if (hidden !== undefined) r.hidden = hidden;
    if (o.hosts !== undefined) {
      const hs = rd.strings(o.hosts, [...p, 'hosts']);
      hs.forEach((h, j) => {
        if (!hostSet.has(h)) rd.fail([...p, 'hosts', j], `unknown host "${h}" (hosts: ${hosts.join(', ') || 'none'})`);
      });
      r.hosts = hs;
    }
    return r;
  });
  const ts: Toolset = { name, runnables, hosts, groups, source };
  if (top.mocks !== undefined) {
    const issues: ToolMockIssue[] = [];
    const mocks = parseToolMocks(top.mocks, issues);
    if (issues[0]) rd.fail(['mocks', ...issues[0].path], issues[0].message, 'see docs/tools-in-trajectory-mode.md for the syntax');
    const unknown = Object.keys(mocks).find((t) => !seen.has(t));
    if (unknown !== undefined) rd.fail(['mocks', unknown], `no runnable named "${unknown}" in this toolset`);
    ts.mocks = mocks;
  }
  return ts;
}

/**
 * Read an OpenAI `tools` array (`[{type:"function", function:{name, description, parameters}}]`; the
 * bare `{name, description, parameters}` and Anthropic `input_schema` forms are accepted too). Such
 * tools carry no permission data, so each becomes a `bash`-category runnable that gates at `confirm`.
 */
function parseToolsArray(rd: Reader, list: unknown[], name: string, source: string, path: Path): Toolset {
  const seen = new Set<string>();
  const runnables = list.map((raw, i): Runnable => {
    const p = [...path, i];
    const o = rd.record(raw, p);
    const fn = o.function !== undefined ? rd.record(o.function, [...p, 'function']) : o;
    const fp = o.function !== undefined ? [...p, 'function'] : p;
    const tname = rd.string(fn.name, [...fp, 'name']);
    if (seen.has(tname)) rd.fail([...fp, 'name'], `duplicate tool "${tname}"`);
    seen.add(tname);
    const schema = fn.parameters ?? fn.input_schema ?? fn.inputSchema;
    if (schema !== undefined) rd.record(schema, [...fp, 'parameters']);
    const args = jsonSchemaToArgs(schema);
    return {
      name: tname,
      description: rd.optString(fn.description, [...fp, 'description']) ?? '',
      category: 'bash',
      args,
      ...(schema !== undefined ? { inputSchema: schema as Record<string, unknown> } : {}),
      autonomy: 'confirm',
      ownHostArg: args.some((a) => a.name === 'host'),
    };
  });
  return { name, runnables, hosts: [], groups: {}, source, noAutonomy: true };
}

/** Parse toolset text (our format or an OpenAI tools array); `file` names it in errors. */
export function parseToolsetText(text: string, file: string, format?: 'toml' | 'json'): Toolset {
  const fmt =
    format ??
    (extname(file).toLowerCase() === '.toml' ? 'toml' : extname(file).toLowerCase() === '.json' ? 'json' : /^\s*[[{]\s*["{\]]/.test(text) ? 'json' : 'toml');
  const { data, lines } = parseStructuredText(text, {
    file,
    format: fmt,
    error: (message, opts) => new ToolsetError('TOOLSET', message, opts),
    syntaxHint:
      fmt === 'toml'
        ? 'see examples/toolset.toml for the toolset file format'
        : 'a toolset JSON file is our format ({"runnables": [...]}) or an OpenAI tools array',
  });
  const rd = new Reader(file, lines);
  const name = basename(file).replace(/\.(toml|json)$/i, '');
  if (Array.isArray(data)) return parseToolsArray(rd, data, name, file, []);
  if (isRecord(data) && Array.isArray(data.tools) && data.runnable === undefined && data.runnables === undefined) {
    return parseToolsArray(rd, data.tools, name, file, ['tools']);
  }
  return parseOwnFormat(rd, data, name, file);
}

/**
 * Load a toolset file synchronously: our own format (`.toml` or `.json`, see examples/toolset.toml) or
 * an OpenAI `tools` JSON array (auto-detected). Bad input throws a ToolsetError naming `file:line` and
 * the field path (exit 2).
 *
 * @example loadToolsetFile('fixtures/toolsets/fleet.toml').runnables.length
 */
export function loadToolsetFile(file: string): Toolset {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ToolsetError('TOOLSET', `${file}: cannot read toolset file (${code ?? String(err)})`, {
      hint: 'pass a .toml/.json toolset file, builtin:fleet, builtin:workspace, or mcp:<command>',
    });
  }
  return parseToolsetText(text, file);
}
