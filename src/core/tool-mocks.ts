import type { MockResult, ToolMockRule, ToolMocks } from '../types/toolset.js';
import { isRecord } from './is-record.js';

// The `tool_mocks` syntax, shared by the three fixture dialects and toolset files: canned results for
// tools that have no implementation in trajectory mode (OpenAI tools files, toolset files), so a
// trajectory can be evaluated without real side effects. One owner: fixtures/ and toolset/ both parse here.
//
//   tool_mocks.get_weather = "Sunny, 21 °C"                          # every call gets this text
//   tool_mocks.get_weather = { result = { temp_c = 21 } }            # a JSON value, sent as JSON text
//   tool_mocks.get_weather = { error = "city not found" }            # a failed call (is_error)
//   tool_mocks.get_weather = { sequence = ["pending", "done"] }      # call n gets entry n; the last repeats
//   tool_mocks.get_weather = [                                       # the first rule whose `when` matches
//     { when = { city = "Paris" }, result = "Rain" },                #   (same matchers as expected args:
//     { when = { city = { $regex = "^Lon" } }, error = "no data" },  #    tolerant equality, $one_of, $regex,
//     { result = "Sunny" },                                          #    $absent, $equals)
//   ]

/** One problem in a `tool_mocks` value: where (a path below it) and what. */
export interface ToolMockIssue {
  path: (string | number)[];
  message: string;
}

const RULE_KEYS = ['when', 'result', 'error', 'sequence'];
const MATCHERS = ['$one_of', '$regex', '$absent', '$equals'];

function resultText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
}

function parseResult(raw: unknown, path: (string | number)[], issues: ToolMockIssue[]): MockResult | undefined {
  if (!isRecord(raw)) return { result: resultText(raw) };
  const keys = Object.keys(raw);
  if (keys.length === 1 && keys[0] === 'result') return { result: resultText(raw.result) };
  if (keys.length === 1 && keys[0] === 'error') return { result: resultText(raw.error), isError: true };
  issues.push({ path, message: 'expected a result: a string, a JSON value in { result = ... }, or { error = "..." }' });
  return undefined;
}

function checkWhen(raw: unknown, path: (string | number)[], issues: ToolMockIssue[]): Record<string, unknown> | undefined {
  if (!isRecord(raw)) {
    issues.push({ path, message: 'expected a table of argument name → expected value' });
    return undefined;
  }
  for (const [arg, v] of Object.entries(raw)) {
    if (!isRecord(v)) continue;
    const ks = Object.keys(v);
    const matcher = ks.find((k) => k.startsWith('$'));
    if (matcher === undefined) continue;
    if (ks.length !== 1 || !MATCHERS.includes(matcher)) {
      issues.push({ path: [...path, arg], message: `expected one matcher of ${MATCHERS.join(', ')} (got ${ks.join(', ')})` });
    } else if (matcher === '$one_of' && (!Array.isArray(v.$one_of) || v.$one_of.length === 0)) {
      issues.push({ path: [...path, arg, matcher], message: 'expected a non-empty list' });
    } else if (matcher === '$regex' && typeof v.$regex !== 'string') {
      issues.push({ path: [...path, arg, matcher], message: 'expected a string' });
    } else if (matcher === '$absent' && v.$absent !== true) {
      issues.push({ path: [...path, arg, matcher], message: 'expected true' });
    }
  }
  return raw;
}

function parseRule(raw: unknown, path: (string | number)[], issues: ToolMockIssue[]): ToolMockRule | undefined {
  if (!isRecord(raw)) {
    const r = parseResult(raw, path, issues);
    return r ? { results: [r] } : undefined;
  }
  const unknown = Object.keys(raw).filter((k) => !RULE_KEYS.includes(k));
  if (unknown.length > 0) {
    issues.push({ path: [...path, unknown[0]!], message: `unknown key; expected ${RULE_KEYS.join(', ')}` });
    return undefined;
  }
  const given = ['result', 'error', 'sequence'].filter((k) => k in raw);
  if (given.length !== 1) {
    issues.push({ path, message: `expected exactly one of result, error, sequence (got ${given.length === 0 ? 'none' : given.join(', ')})` });
    return undefined;
  }
  const rule: ToolMockRule = { results: [] };
  if ('when' in raw) {
    const when = checkWhen(raw.when, [...path, 'when'], issues);
    if (when) rule.when = when;
  }
  if ('sequence' in raw) {
    const seq = raw.sequence;
    if (!Array.isArray(seq) || seq.length === 0) {
      issues.push({ path: [...path, 'sequence'], message: 'expected a non-empty list of results' });
      return undefined;
    }
    seq.forEach((item, i) => {
      const r = parseResult(item, [...path, 'sequence', i], issues);
      if (r) rule.results.push(r);
    });
  } else if ('error' in raw) rule.results.push({ result: resultText(raw.error), isError: true });
  else rule.results.push({ result: resultText(raw.result) });
  return rule;
}

/**
 * Parse a `tool_mocks` value (tool name → mock) into rules; problems are collected in `issues` (an
 * empty list means it is valid). A plain value, `{ result }`, `{ error }` or `{ sequence }` is one rule;
 * a list is rules tried in order (the first whose `when` matches the call's arguments).
 * @example parseToolMocks({ get_weather: 'Sunny' }, issues) // { get_weather: [{ results: [{ result: 'Sunny' }] }] }
 */
export function parseToolMocks(raw: unknown, issues: ToolMockIssue[]): ToolMocks {
  const out: ToolMocks = {};
  if (!isRecord(raw)) {
    issues.push({ path: [], message: 'expected a table of tool name → mock' });
    return out;
  }
  for (const [tool, mock] of Object.entries(raw)) {
    const rules: ToolMockRule[] = [];
    if (Array.isArray(mock)) {
      if (mock.length === 0) issues.push({ path: [tool], message: 'expected at least one rule' });
      mock.forEach((m, i) => {
        const r = parseRule(m, [tool, i], issues);
        if (r) rules.push(r);
      });
    } else {
      const r = parseRule(mock, [tool], issues);
      if (r) rules.push(r);
    }
    out[tool] = rules;
  }
  return out;
}

const RESULT_JSON_SCHEMA = {
  anyOf: [
    { type: 'string', description: 'The result text.' },
    {
      type: 'object',
      properties: { result: { description: 'A JSON value, sent to the model as JSON text.' } },
      required: ['result'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { error: { type: 'string', description: 'A failed call: this text, marked is_error.' } },
      required: ['error'],
      additionalProperties: false,
    },
  ],
};

const RULE_JSON_SCHEMA = {
  anyOf: [
    { type: ['string', 'number', 'boolean', 'null'], description: 'Static result text (a value is sent as JSON).' },
    {
      type: 'object',
      properties: {
        when: {
          type: 'object',
          description: 'Argument name → expected value (tolerant equality or $one_of / $regex / $absent / $equals). The rule applies when every one matches.',
        },
        result: { description: 'The result: text, or a JSON value sent as JSON text.' },
        error: { type: 'string', description: 'A failed call with this message (is_error).' },
        sequence: {
          type: 'array',
          minItems: 1,
          items: RESULT_JSON_SCHEMA,
          description: 'Call n (of the calls this rule answers) gets entry n; past the end, the last repeats.',
        },
      },
      additionalProperties: false,
      oneOf: [{ required: ['result'] }, { required: ['error'] }, { required: ['sequence'] }],
    },
  ],
};

/** JSON Schema (draft 2020-12) of a `tool_mocks` table, for editors and `runspec-eval schema`. */
export const TOOL_MOCKS_JSON_SCHEMA = {
  type: 'object',
  description:
    'Canned results for tools without an implementation in trajectory mode (tool name → mock). A mock is a static result, ' +
    '{ result }, { error }, { sequence = [...] }, or a list of rules with `when` tried in order. A call no rule matches is an error.',
  additionalProperties: { anyOf: [RULE_JSON_SCHEMA, { type: 'array', minItems: 1, items: RULE_JSON_SCHEMA }] },
};
