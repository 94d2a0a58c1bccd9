import type { ArgSpec, ResolvedCall, Runnable, Subcommand, Toolset } from '../types/toolset.js';
import { showValue } from '../core/canonical-json.js';
import { tolerantEquals } from '../core/equality.js';
import { argSetFor, commandPath, leafCommandPaths, walkCommand } from './lookup.js';
import { didYouMean } from '../core/did-you-mean.js';
import { isRecord } from '../core/is-record.js';

/** One preflight bounce, bucketed as verdict categories (docs/verdicts.md). */
export interface ArgProblem {
  bucket: 'missing_required' | 'unknown_arg' | 'bad_choice' | 'out_of_range' | 'bad_command';
  arg?: string;
  message: string;
}

export type CoerceResult = { ok: true; value: unknown } | { ok: false; reason: string };

function show(value: unknown): string {
  return showValue(value, 60);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Coerce a model-supplied value to an arg's declared type, the way the preflight validator reads it.
 *
 * Rules (models often send everything as strings):
 * - `string`: strings as given; numbers and booleans become their text; null, arrays and objects fail.
 * - `int`: integral numbers (`3`, `3.0`) and strings of an optional sign and digits (`"3"`, `" -2 "`).
 * - `float`: finite numbers and numeric strings (`"2.5"`, `"1e3"`); empty strings fail.
 * - `bool`: booleans and the strings `"true"` / `"false"` (any case, trimmed); `1`/`0` fail.
 * - `array` / `object`: the value itself, or a string holding that JSON.
 *
 * Choices and ranges are not checked here; {@link validateCallArgs} does that.
 *
 * @example coerceArgValue({ name: 'replicas', type: 'int' }, '3') // { ok: true, value: 3 }
 */
export function coerceArgValue(spec: ArgSpec, value: unknown): CoerceResult {
  const fail = (what: string): CoerceResult => ({ ok: false, reason: `expected ${what} (got ${show(value)})` });
  switch (spec.type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, value: String(value) };
      return fail('a string');
    case 'int':
      if (typeof value === 'number') return Number.isInteger(value) ? { ok: true, value } : fail('an integer');
      if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return { ok: true, value: Number(value.trim()) };
      return fail('an integer');
    case 'float':
      if (typeof value === 'number') return Number.isFinite(value) ? { ok: true, value } : fail('a number');
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value.trim()))) {
        return { ok: true, value: Number(value.trim()) };
      }
      return fail('a number');
    case 'bool':
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'string') {
        const t = value.trim().toLowerCase();
        if (t === 'true') return { ok: true, value: true };
        if (t === 'false') return { ok: true, value: false };
      }
      return fail('true or false');
    case 'array': {
      if (Array.isArray(value)) return { ok: true, value };
      const parsed = typeof value === 'string' ? parseJson(value) : undefined;
      return Array.isArray(parsed) ? { ok: true, value: parsed } : fail('an array');
    }
    case 'object': {
      if (isRecord(value)) return { ok: true, value };
      const parsed = typeof value === 'string' ? parseJson(value) : undefined;
      return isRecord(parsed) ? { ok: true, value: parsed } : fail('an object');
    }
  }
}

/** The runnable a resolved call names (narrowed by its legacy group qualifier), if it exists. */
export function runnableOf(toolset: Toolset, call: Pick<ResolvedCall, 'runnable' | 'group'>): Runnable | undefined {
  return toolset.runnables.find((r) => r.name === call.runnable && (call.group === undefined || (r.group ?? '').toLowerCase() === call.group.toLowerCase()));
}

// The arg set of a runnable without a subcommand, by name: the same for every call to it (the common case).
const topLevelArgs = new WeakMap<Runnable, { argSet: ArgSpec[]; specs: Map<string, ArgSpec> }>();

function argsOf(runnable: Runnable, chain: readonly Subcommand[]): { argSet: ArgSpec[]; specs: Map<string, ArgSpec> } {
  const cached = chain.length === 0 ? topLevelArgs.get(runnable) : undefined;
  if (cached) return cached;
  const argSet = argSetFor(runnable, chain);
  const made = { argSet, specs: new Map(argSet.map((a) => [a.name, a])) };
  if (chain.length === 0) topLevelArgs.set(runnable, made);
  return made;
}

/**
 * Preflight-validate a resolved call, like the live loop does before it runs anything.
 *
 * - `bad_command`: a subcommand that does not exist, a subcommand on a runnable without any, or no
 *   subcommand where the runnable (or the chosen inner node) requires one. Arg checks stop there,
 *   since the arg set is unknown.
 * - against the chosen path's arg set (runnable args + the args of each subcommand on the path):
 *   `missing_required` (absent or null), `unknown_arg` (with a "did you mean"), `bad_choice` (not one of
 *   the choices, or a value of the wrong type after {@link coerceArgValue}), `out_of_range` (outside
 *   min..max, inclusive; for strings and arrays min/max bound the length).
 *
 * Unknown runnables give no problems (that is a wrong_tool, not a bounce).
 */
export function validateCallArgs(toolset: Toolset, call: ResolvedCall): ArgProblem[] {
  const runnable = runnableOf(toolset, call);
  if (!runnable || call.discovery) return [];
  const problems: ArgProblem[] = [];
  const path = commandPath(call.command);
  const subs = runnable.subcommands ?? [];
  if (path.length > 0 && subs.length === 0) {
    return [{ bucket: 'bad_command', message: `${runnable.name} takes no subcommand (got "${path.join(' ')}")` }];
  }
  const { chain, rest } = walkCommand(runnable, path);
  if (rest.length > 0) {
    const options = (chain.length > 0 ? (chain[chain.length - 1]!.subcommands ?? []) : subs).map((s) => s.name);
    const where = [runnable.name, ...chain.map((c) => c.name)].join(' ');
    return [
      {
        bucket: 'bad_command',
        message: `unknown subcommand "${rest[0]}" of ${where}; expected one of ${options.join(', ') || '(none)'}${didYouMean(rest[0]!, options)}`,
      },
    ];
  }
  const node = chain.length > 0 ? chain[chain.length - 1]! : undefined;
  // require-command inherits down the tree: `git remote` needs `add` or `remove` as `git` needs a verb.
  let required = runnable.requireCommand === true;
  for (const c of chain) required = c.requireCommand ?? required;
  const requires = required && (node ? (node.subcommands?.length ?? 0) > 0 : subs.length > 0);
  if (requires) {
    const where = [runnable.name, ...chain.map((c) => c.name)].join(' ');
    const options = node ? (node.subcommands ?? []).map((s) => [...path, s.name].join(' ')) : leafCommandPaths(runnable);
    return [{ bucket: 'bad_command', message: `${where} requires a subcommand: one of ${options.join(', ')}` }];
  }
  const { argSet, specs } = argsOf(runnable, chain);
  for (const spec of argSet) {
    const v = call.args[spec.name];
    if (spec.required && (v === undefined || v === null)) {
      problems.push({ bucket: 'missing_required', arg: spec.name, message: `missing required arg "${spec.name}"` });
    }
  }
  for (const [name, value] of Object.entries(call.args)) {
    const spec = specs.get(name);
    if (!spec) {
      problems.push(unknownArg(name, specs));
      continue;
    }
    if (value === undefined || value === null) continue;
    const coerced = coerceArgValue(spec, value);
    if (!coerced.ok) {
      problems.push({ bucket: 'bad_choice', arg: name, message: `${name}: ${coerced.reason}` });
      continue;
    }
    const v = coerced.value;
    if (spec.choices && spec.choices.length > 0 && !spec.choices.some((c) => tolerantEquals(c, v))) {
      problems.push({
        bucket: 'bad_choice',
        arg: name,
        // Array.from, not `.map`: the array optimised code's inlined `.map` makes is holey where the
        // interpreter's is packed, and `.join` on it deoptimised validateCallArgs once per run ("wrong map").
        message: `${name}: expected one of ${Array.from(spec.choices, (c) => show(c)).join(', ')} (got ${show(value)})`,
      });
      continue;
    }
    const size = typeof v === 'number' ? v : typeof v === 'string' ? v.length : Array.isArray(v) ? v.length : undefined;
    if (size === undefined) continue;
    const unit = typeof v === 'number' ? '' : ' characters/items';
    if (spec.min !== undefined && size < spec.min) {
      problems.push({ bucket: 'out_of_range', arg: name, message: `${name}: expected at least ${spec.min}${unit} (got ${show(value)})` });
    } else if (spec.max !== undefined && size > spec.max) {
      problems.push({ bucket: 'out_of_range', arg: name, message: `${name}: expected at most ${spec.max}${unit} (got ${show(value)})` });
    }
  }
  return problems;
}

/**
 * An `unknown_arg` problem whose message (with its "did you mean", an edit distance to every known arg) is
 * worded when it is first read: a scorer that reports another failure first never reads it.
 */
function unknownArg(name: string, specs: ReadonlyMap<string, ArgSpec>): ArgProblem {
  let message: string | undefined;
  return {
    bucket: 'unknown_arg',
    arg: name,
    get message() {
      return (message ??= `unknown arg "${name}"${didYouMean(name, specs.keys())}`);
    },
  };
}
