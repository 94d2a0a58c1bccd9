// Case-less rules from a TOML file (`score --rules F`), applied to every trace. Format (documented in
// examples/rules.toml):
//
//   [[rule]]
//   name = "no-restarts"            # required, unique: the verdict's case id
//   description = "..."            # optional
//   forbid_tools = ["service_restart"]   # forbidden_tool when any call names one
//   validate_args = true           # missing_required/unknown_arg/bad_choice/out_of_range/bad_command
//                                  # when a call would bounce off the toolset's preflight (needs --toolset)
//   max_calls = 10                 # too_many_calls
//   min_calls = 1                  # too_few_calls
//   max_redundant = 0              # redundant_call: the same tool with the same arguments again
//   json_dump = true               # json_dump: the final text is a tool call written as JSON
//   max_tool_errors = 0            # tool_error: calls whose result is an error
//   [rule.match]                   # optional scope: only traces that match (same as a case's match)
//   prompt = "(?i)restart"
//   attributes = { "service.name" = "billing-agent" }
//
// Every check in a rule runs; the first failure in the order above is the category, the others are
// named in the reason. Patterns run with re2js (linear time) because they see trace content.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { regexError } from '../core/regex.js';
import { parseStructuredText, validateStructured } from '../core/structured-file.js';
import { TraceError } from '../errors.js';
import { detectJsonDump } from '../scoring/json-dump.js';
import { redundantBounds } from '../scoring/replio.js';
import { hiddenText, unscorableReason } from '../scoring/verdict.js';
import { validateCallArgs } from '../toolset/validate-args.js';
import { resolveCall } from '../toolset/resolve.js';
import type { CaseMatchRule } from '../types/case.js';
import type { Run, ToolCall } from '../types/run.js';
import type { ToolMode, Toolset } from '../types/toolset.js';
import type { CheckResult, Verdict, VerdictCategory } from '../types/verdict.js';

/** One case-less rule. */
export interface TraceRule {
  name: string;
  description?: string;
  forbidTools?: string[];
  validateArgs?: boolean;
  maxCalls?: number;
  minCalls?: number;
  maxRedundant?: number;
  jsonDump?: boolean;
  maxToolErrors?: number;
  match?: CaseMatchRule;
}

const MatchSchema = z.strictObject({
  prompt: z.string().optional(),
  attributes: z.record(z.string(), z.string()).optional(),
});

const RuleSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  forbid_tools: z.array(z.string().min(1)).optional(),
  validate_args: z.boolean().optional(),
  max_calls: z.number().int().min(0).optional(),
  min_calls: z.number().int().min(0).optional(),
  max_redundant: z.number().int().min(0).optional(),
  json_dump: z.boolean().optional(),
  max_tool_errors: z.number().int().min(0).optional(),
  match: MatchSchema.optional(),
});

const RulesFileSchema = z.strictObject({ rule: z.array(RuleSchema).default([]) });

/**
 * Parse a rules TOML text. `file` names it in error messages.
 * @throws TraceError (TRACE_INPUT) with the place, what was expected and what was found.
 */
export function parseRulesText(text: string, file: string): TraceRule[] {
  const error = (message: string, opts: { hint?: string; cause?: unknown }): TraceError => new TraceError('TRACE_INPUT', message, opts);
  const hint = 'see examples/rules.toml for the format';
  const source = parseStructuredText(text, { file, format: 'toml', error, syntaxHint: hint });
  const parsed = { data: validateStructured(RulesFileSchema, source, { file, error, hint }) };
  const seen = new Set<string>();
  return parsed.data.rule.map((r, i) => {
    if (seen.has(r.name)) {
      throw new TraceError('TRACE_INPUT', `${file}:${source.lines(['rule', i, 'name'])}: rule[${i}].name: duplicate rule name "${r.name}"`, {
        hint: 'give every rule a unique name',
      });
    }
    seen.add(r.name);
    if (r.match?.prompt !== undefined) {
      const problem = regexError(r.match.prompt);
      if (problem !== undefined) {
        throw new TraceError(
          'TRACE_INPUT',
          `${file}:${source.lines(['rule', i, 'match', 'prompt'])}: rule[${i}].match.prompt: invalid pattern /${r.match.prompt}/ (${problem})`,
          {
            hint: 'patterns use RE2 syntax (no backreferences or lookaround)',
          },
        );
      }
    }
    const rule: TraceRule = { name: r.name };
    if (r.description !== undefined) rule.description = r.description;
    if (r.forbid_tools) rule.forbidTools = r.forbid_tools;
    if (r.validate_args !== undefined) rule.validateArgs = r.validate_args;
    if (r.max_calls !== undefined) rule.maxCalls = r.max_calls;
    if (r.min_calls !== undefined) rule.minCalls = r.min_calls;
    if (r.max_redundant !== undefined) rule.maxRedundant = r.max_redundant;
    if (r.json_dump !== undefined) rule.jsonDump = r.json_dump;
    if (r.max_tool_errors !== undefined) rule.maxToolErrors = r.max_tool_errors;
    if (r.match) {
      const m: CaseMatchRule = {};
      if (r.match.prompt !== undefined) m.prompt = r.match.prompt;
      if (r.match.attributes !== undefined) m.attributes = r.match.attributes;
      rule.match = m;
    }
    return rule;
  });
}

/** Read and parse a rules file. @throws TraceError when missing or invalid. */
export function loadRulesFile(path: string): TraceRule[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new TraceError('TRACE_INPUT', `${path}: rules file not found`, { hint: 'pass --rules <file.toml>; see examples/rules.toml' });
  }
  return parseRulesText(text, path);
}

export interface RuleContext {
  toolset?: Toolset;
  toolMode?: ToolMode;
}

// A rule's forbidden names as a set, built once per rule rather than once per trace.
const forbiddenSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function forbiddenOf(names: readonly string[]): ReadonlySet<string> {
  let set = forbiddenSets.get(names);
  if (!set) forbiddenSets.set(names, (set = new Set(names)));
  return set;
}

/**
 * Check one rule against a Run. Pure: returns a Verdict with dialect `rule` and caseId = rule name.
 * A check without the data it needs (`validate_args` without a toolset or arguments, `max_redundant`
 * without arguments) is not checkable: the verdict is then `unscorable`, never "holds".
 */
export function applyRule(rule: TraceRule, run: Run, ctx: RuleContext = {}): Verdict {
  // Pushed, not `.map`ped: see the trace scorer (a holey array from optimised code deoptimised the loops over it).
  const calls: ToolCall[] = [];
  for (const r of run.toolCalls) calls.push(r.call);
  const failures: Array<{ category: VerdictCategory; reason: string }> = [];
  const checks: CheckResult[] = [];
  let withoutArgs = 0;
  for (const c of calls) if (c.argumentsAbsent) withoutArgs++;
  // The trace shows the model was called but not what it decided: checks over its calls are not checkable.
  const hidden = calls.length === 0 ? run.hiddenDecision : undefined;
  if (hidden) {
    const missing = hiddenText(hidden);
    if (rule.forbidTools?.length) checks.push(skipped('forbid_tools', missing));
    if (rule.validateArgs) checks.push(skipped('validate_args', missing));
    if (rule.maxCalls !== undefined) checks.push(skipped('max_calls', missing));
    if (rule.minCalls !== undefined) checks.push(skipped('min_calls', missing));
    if (rule.maxRedundant !== undefined) checks.push(skipped('max_redundant', missing));
  } else if (rule.forbidTools?.length) {
    const forbidden = forbiddenOf(rule.forbidTools);
    // Names of forbidden calls, once each, in call order.
    const hit: string[] = [];
    for (const c of calls) if ((forbidden.has(c.name) || forbidden.has(resolvedName(c, ctx))) && !hit.includes(c.name)) hit.push(c.name);
    checks.push(judged('forbid_tools', hit.length === 0, rule.forbidTools, hit.length ? hit : undefined));
    if (hit.length) failures.push({ category: 'forbidden_tool', reason: `called forbidden tool ${hit.join(', ')}` });
  }
  if (rule.validateArgs && !hidden) {
    if (!ctx.toolset) checks.push(skipped('validate_args', 'no toolset (pass --toolset)'));
    else {
      const toolMode = ctx.toolMode ?? run.toolMode ?? 'dedup';
      let bounced = false;
      for (const c of calls) {
        if (c.argumentsAbsent) continue;
        const resolved = resolveCall(c, { toolset: ctx.toolset, toolMode, commandIsVerb: false });
        if (!resolved.known || resolved.discovery) continue;
        const problems = validateCallArgs(ctx.toolset, resolved);
        if (problems.length) {
          failures.push({ category: problems[0]!.bucket, reason: `${c.name}: ${problems.map((p) => p.message).join('; ')}` });
          bounced = true;
          break;
        }
      }
      if (bounced || !withoutArgs) checks.push(judged('validate_args', !bounced));
      else checks.push(skipped('validate_args', `arguments of ${withoutArgs} call(s) not captured (content capture off)`));
    }
  }
  if (rule.maxCalls !== undefined && !hidden) {
    checks.push(judged('max_calls', calls.length <= rule.maxCalls, rule.maxCalls, calls.length));
    if (calls.length > rule.maxCalls) failures.push({ category: 'too_many_calls', reason: `${calls.length} tool calls, at most ${rule.maxCalls} allowed` });
  }
  if (rule.minCalls !== undefined && !hidden) {
    checks.push(judged('min_calls', calls.length >= rule.minCalls, rule.minCalls, calls.length));
    if (calls.length < rule.minCalls) failures.push({ category: 'too_few_calls', reason: `${calls.length} tool calls, at least ${rule.minCalls} required` });
  }
  if (rule.maxRedundant !== undefined && !hidden) {
    // Redundancy compares arguments: without them every repeated name would look redundant.
    // Certain repeats fail; a repeated name without arguments is not checkable; no repeated name passes.
    const { min: redundant, max } = redundantBounds(calls);
    if (redundant <= rule.maxRedundant && max > rule.maxRedundant)
      checks.push(skipped('max_redundant', `arguments of ${withoutArgs} call(s) not captured (content capture off)`));
    else {
      checks.push(judged('max_redundant', redundant <= rule.maxRedundant, rule.maxRedundant, redundant));
      if (redundant > rule.maxRedundant) {
        failures.push({ category: 'redundant_call', reason: `${redundant} redundant calls (same tool, same arguments), at most ${rule.maxRedundant} allowed` });
      }
    }
  }
  const dump = detectJsonDump(run.finalText);
  if (rule.jsonDump) {
    checks.push(judged('json_dump', !dump));
    if (dump) failures.push({ category: 'json_dump', reason: 'the final text is a tool call written as JSON instead of a call' });
  }
  let errors = 0;
  for (const r of run.toolCalls) if (r.isError) errors++;
  if (rule.maxToolErrors !== undefined) {
    checks.push(judged('max_tool_errors', errors <= rule.maxToolErrors, rule.maxToolErrors, errors));
    if (errors > rule.maxToolErrors) {
      const names = [...new Set(run.toolCalls.filter((r) => r.isError).map((r) => r.call.name))];
      failures.push({ category: 'tool_error', reason: `${errors} tool errors (${names.join(', ')}), at most ${rule.maxToolErrors} allowed` });
    }
  }
  const unchecked = checks.filter((k) => !k.judged);
  const unscorable = failures.length === 0 && unchecked.length > 0;
  const pass = failures.length === 0 && !unscorable;
  let reason = pass ? `rule ${rule.name} holds (${calls.length} calls)` : unscorable ? unscorableReason(unchecked) : failures[0]!.reason;
  const others = failures.length > 1 ? [...new Set(failures.slice(1).map((f) => f.category))].filter((c) => c !== failures[0]?.category) : [];
  if (others.length) reason += ` (also: ${others.join(', ')})`;
  const verdict: Verdict = {
    caseId: rule.name,
    sample: run.sample,
    dialect: 'rule',
    pass,
    category: pass ? 'pass' : unscorable ? 'unscorable' : failures[0]!.category,
    reason,
    expected: {},
    observed: run.toolCalls[0] ? { tool: run.toolCalls[0].call.name, args: run.toolCalls[0].call.arguments } : {},
    jsonDump: dump,
    status: run.status,
    calls,
    checks,
  };
  if (run.toolMode) verdict.toolMode = run.toolMode;
  if (run.trace?.rootSpanId) verdict.trace = { traceId: run.trace.traceId, rootSpanId: run.trace.rootSpanId };
  return verdict;
}

// Module functions, not closures over the check list: two closures and their context per rule and trace.
function judged(check: string, pass: boolean, expected?: unknown, observed?: unknown): CheckResult {
  const r: CheckResult = { check, judged: true, pass };
  if (expected !== undefined) r.expected = expected;
  if (observed !== undefined) r.observed = observed;
  return r;
}

function skipped(check: string, missing: string): CheckResult {
  return { check, judged: false, missing };
}

function resolvedName(c: { id: string; name: string; arguments: Record<string, unknown> }, ctx: RuleContext): string {
  if (!ctx.toolset) return c.name;
  return resolveCall(c, { toolset: ctx.toolset, toolMode: ctx.toolMode ?? 'dedup', commandIsVerb: false }).runnable || c.name;
}
