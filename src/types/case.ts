// The normalised fixture: all three dialects (runspec TOML, replio JSON, turnstone JSON) load into one Case.
import type { ToolMocks } from './toolset.js';

export type Dialect = 'runspec' | 'replio' | 'turnstone';
export type CaseMode = 'decision' | 'trajectory';
export type MatchMode = 'exact' | 'ordered_subset' | 'subset' | 'contains_any';
export type Autonomy = 'autonomous' | 'confirm' | 'manual';
export type FixtureSource = 'bundled' | 'plugin' | 'global' | 'local' | 'sync' | 'file';

/**
 * How one expected argument is compared with the observed value.
 * Fixture syntax (all three dialects): a plain value means `equals` (tolerant: "3" matches 3,
 * strings trimmed and case-insensitive); a single-key object `{ $one_of = [..] }`, `{ $regex = ".." }`,
 * `{ $absent = true }` or `{ $equals = <literal> }` picks the other matchers. The expected keys are a
 * subset of the observed ones; extra observed args are allowed.
 */
export type ArgExpectation =
  { kind: 'equals'; value: unknown } | { kind: 'one_of'; values: unknown[] } | { kind: 'regex'; pattern: string } | { kind: 'absent' };

export interface SourceLocation {
  file: string;
  /** 1-based line of the case in its file, when known. */
  line?: number;
  source: FixtureSource;
}

/** How expect_calls compares values: a mode of the one equality (core/equality.ts), `tolerant` or `bfcl`. */
export type CallsEquality = 'tolerant' | 'bfcl';

/**
 * One call of `expect_calls`: the tool and, per argument, the list of acceptable values (BFCL's
 * possible-answer form); an empty string in the list means the argument may be left out.
 */
export interface ExpectedCall {
  tool: string;
  args: Record<string, unknown[]>;
}

/** A tool a case carries itself (OpenAI function shape: name, description, JSON Schema parameters). */
export interface CaseTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface RunspecExpectation {
  /** Acceptable runnable names (expect_tool may be a string or a list). */
  tool?: string[];
  /** Subcommand path, space-joined ("remote add"). */
  command?: string;
  args?: Record<string, ArgExpectation>;
  host?: string;
  autonomy?: Autonomy;
  noRun?: boolean;
  forbidTools?: string[];
  /**
   * The exact set of calls of the first terminal response, in any order (BFCL parallel), each with
   * exactly these arguments: no other argument, none missing unless optional.
   */
  calls?: ExpectedCall[];
  /** How `calls` compares argument values. @default 'tolerant' */
  equality?: CallsEquality;
}

export interface ReplioVerifier {
  exact?: string[];
  mustInclude?: string[];
  avoid?: string[];
  maxCalls?: number;
  minCalls?: number;
  /** For each tool, at least one call to it must pass these arguments. */
  args?: Record<string, Record<string, ArgExpectation>>;
}

export interface ReplioExpectation {
  expected?: string[];
  verifier?: ReplioVerifier;
}

export interface ExpectedAction {
  tool: string;
  /** Exact (string-compared) argument values; also accepts the $-matchers of ArgExpectation. */
  args?: Record<string, ArgExpectation>;
  /** Regex searched in the stringified argument value (linear-time engine). */
  argsPattern?: Record<string, string>;
}

export interface TurnstoneExpectation {
  actions: ExpectedAction[];
  matchMode: MatchMode;
}

/** Offline-scoring match rule: which production traces this case grades. */
export interface CaseMatchRule {
  /** Regex searched in the first user message. */
  prompt?: string;
  /** Root-span (or any span) attribute equality. */
  attributes?: Record<string, string>;
}

export type PermissionAction = 'allow' | 'deny' | 'ask';

export type GateMetric = 'pass@k' | 'pass^k' | 'pass_rate';
export type GateOperator = '>=' | '>' | '<=' | '<' | '==';

/** A per-case gate such as `pass@3 >= 0.9`: when set, it decides whether the case meets its bar. */
export interface CaseGate {
  metric: GateMetric;
  /** k of pass@k / pass^k. */
  k?: number;
  op: GateOperator;
  value: number;
  /** Canonical text, e.g. "pass@3 >= 0.9". */
  text: string;
}

export interface CaseSettings {
  /** Case-level sample count (runspec `samples`, turnstone `n_runs`). */
  samples?: number;
  /** Suite-level default sample count (turnstone `defaults.n_runs`). */
  suiteSamples?: number;
  maxTurns?: number;
  threshold?: number;
  /** The case's gate (`gate = "pass@3 >= 0.9"`); replaces the threshold check when set. */
  gate?: CaseGate;
  /** Category → action, merged over the engine defaults (replio `tool_permission`). */
  toolPermission?: Record<string, PermissionAction>;
  /** Tool names denied in addition (replio `tools_deny`). */
  toolsDeny?: string[];
  /** Opt-in: at most this many redundant calls (same tool, same arguments), else `redundant_call`. */
  maxRedundant?: number;
  /** Opt-in: `false` makes any failed tool call a `tool_error` verdict (default: errors are only counted). */
  allowToolErrors?: boolean;
}

/** A turn of history before the prompt. */
export interface CaseMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type CaseVars = Record<string, string | number | boolean>;

export interface Case {
  id: string;
  /** Conversation history sent before the prompt (`messages`). */
  messages?: CaseMessage[];
  /** The case's system prompt (`system`, or its suite's default). */
  system?: string;
  /** `{{vars.NAME}}` values (the suite's merged under the case's). */
  vars?: CaseVars;
  /** Extra request headers for http targets (the suite's merged under the case's). */
  headers?: Record<string, string>;
  /** Canned results for tools without an implementation (`tool_mocks`); win over the toolset's mocks. */
  toolMocks?: ToolMocks;
  suite?: string;
  dialect: Dialect;
  description?: string;
  notes?: string;
  tags: string[];
  source: SourceLocation;
  prompt: string;
  /** Worktree content: relative path → file content. */
  files: Record<string, string>;
  mode: CaseMode;
  runspec?: RunspecExpectation;
  replio?: ReplioExpectation;
  turnstone?: TurnstoneExpectation;
  match?: CaseMatchRule;
  settings: CaseSettings;
  /** Tools the case offers itself (a suite written by `import bfcl`); used when no --toolset is given. */
  tools?: CaseTool[];
}

/** A `[[suite]]` of runspec_evals.toml, or a suite implied by a fixture file. */
export interface Suite {
  name: string;
  cases: Case[];
  source: SourceLocation;
}
