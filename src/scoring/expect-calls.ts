// expect_calls: the exact calls of the first response that called a tool, in any order, each with
// exactly the expected arguments (BFCL's simple, multiple, parallel and parallel-multiple checks).
//
// | BFCL check                                   | our category    |
// | -------------------------------------------- | --------------- |
// | wrong number of calls                        | too_many_calls / too_few_calls (no_run when none) |
// | function name not found                      | wrong_tool      |
// | missing required / unexpected / missing non-optional / type / value | wrong_args |
import type { CaseTool, CallsEquality, ExpectedCall } from '../types/case.js';
import type { ToolCall } from '../types/run.js';
import type { Toolset } from '../types/toolset.js';
import type { VerdictCategory } from '../types/verdict.js';
import { argsToJsonSchema } from '../toolset/json-schema.js';
import { acceptableArgMatch, type ParamSchema } from './arg-match.js';
import { showValue } from '../core/canonical-json.js';
import { isRecord } from '../core/is-record.js';

export interface CallsFailure {
  category: VerdictCategory;
  reason: string;
}

interface ToolSchema {
  properties?: Record<string, ParamSchema>;
  required: string[];
}

/** The parameter schema of a tool: the case's own tools first, else the toolset's runnable. */
function schemaOf(name: string, tools: readonly CaseTool[] | undefined, toolset: Toolset | undefined): ToolSchema | undefined {
  let params: unknown = tools?.find((t) => t.name === name)?.parameters;
  if (params === undefined) {
    const r = toolset?.runnables.find((x) => x.name === name);
    if (r) params = argsToJsonSchema(r.args);
  }
  if (!isRecord(params)) return undefined;
  const props = isRecord(params.properties) ? (params.properties as Record<string, ParamSchema>) : undefined;
  const required = Array.isArray(params.required) ? params.required.filter((x): x is string => typeof x === 'string') : [];
  return props ? { properties: props, required } : { required };
}

/** Why one observed call does not satisfy one expected call; undefined when it does. */
function callProblem(expected: ExpectedCall, call: ToolCall, mode: CallsEquality, schema: ToolSchema | undefined): CallsFailure | undefined {
  if (call.name !== expected.tool) return { category: 'wrong_tool', reason: `expected ${expected.tool}, got ${call.name}` };
  const args = call.arguments;
  for (const name of schema?.required ?? []) {
    if (!Object.hasOwn(args, name)) return { category: 'wrong_args', reason: `${call.name}: missing required parameter ${name}` };
  }
  for (const [name, value] of Object.entries(args)) {
    const acceptable = expected.args[name];
    if (acceptable === undefined || (schema?.properties && !Object.hasOwn(schema.properties, name))) {
      return { category: 'wrong_args', reason: `${call.name}: unexpected parameter ${name}=${showValue(value)}` };
    }
    const m = acceptableArgMatch(mode, acceptable, value, schema?.properties?.[name]);
    if (!m.ok) return { category: 'wrong_args', reason: `${call.name}: arg ${name}: ${m.reason ?? 'did not match'}` };
  }
  for (const [name, acceptable] of Object.entries(expected.args)) {
    if (!Object.hasOwn(args, name) && !acceptable.includes('')) {
      return { category: 'wrong_args', reason: `${call.name}: missing parameter ${name} (expected one of ${showValue(acceptable)})` };
    }
  }
  return undefined;
}

/**
 * Check the calls of the first response that called a tool against `expect_calls`: the counts must be
 * equal, then each expected call (in order) takes the first unclaimed observed call that satisfies it,
 * as BFCL's unordered parallel checker does. Returns the first failure, or undefined on a match.
 */
export function checkExpectedCalls(opts: {
  expected: readonly ExpectedCall[];
  /** The runnable (non-discovery) calls of the first terminal response, in order. */
  raw: readonly ToolCall[];
  mode: CallsEquality;
  tools?: readonly CaseTool[];
  toolset?: Toolset;
}): CallsFailure | undefined {
  const { expected, raw, mode } = opts;
  if (raw.length < expected.length) {
    return { category: 'too_few_calls', reason: `expected ${expected.length} calls (${expected.map((e) => e.tool).join(', ')}), got ${raw.length}` };
  }
  if (raw.length > expected.length) {
    return {
      category: 'too_many_calls',
      reason: `expected ${expected.length} call${expected.length === 1 ? '' : 's'} (${expected.map((e) => e.tool).join(', ')}), got ${raw.length} (${raw.map((c) => c.name).join(', ')})`,
    };
  }
  const claimed = new Set<number>();
  for (const want of expected) {
    const schema = schemaOf(want.tool, opts.tools, opts.toolset);
    let first: CallsFailure | undefined;
    let found = -1;
    for (let i = 0; i < raw.length; i++) {
      if (claimed.has(i)) continue;
      const problem = callProblem(want, raw[i]!, mode, schema);
      if (!problem) {
        found = i;
        break;
      }
      // The most telling problem: one about a call of the right tool, else the first.
      if (!first || (first.category === 'wrong_tool' && problem.category !== 'wrong_tool')) first = problem;
    }
    if (found < 0) return first ?? { category: 'wrong_tool', reason: `no call matches ${want.tool}` };
    claimed.add(found);
  }
  return undefined;
}
