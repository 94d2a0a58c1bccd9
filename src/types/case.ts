// The normalised fixture: all three dialects (runspec TOML, replio JSON, turnstone JSON) load into one Case.

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
  | { kind: 'equals'; value: unknown }
  | { kind: 'one_of'; values: unknown[] }
  | { kind: 'regex'; pattern: string }
  | { kind: 'absent' };

export interface SourceLocation {
  file: string;
  /** 1-based line of the case in its file, when known. */
  line?: number;
  source: FixtureSource;
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

export interface CaseSettings {
  /** Case-level sample count (runspec `samples`, turnstone `n_runs`). */
  samples?: number;
  /** Suite-level default sample count (turnstone `defaults.n_runs`). */
  suiteSamples?: number;
  maxTurns?: number;
  threshold?: number;
  /** Category → action, merged over the engine defaults (replio `tool_permission`). */
  toolPermission?: Record<string, PermissionAction>;
  /** Tool names denied in addition (replio `tools_deny`). */
  toolsDeny?: string[];
}

export interface Case {
  id: string;
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
}

/** A `[[suite]]` of runspec_evals.toml, or a suite implied by a fixture file. */
export interface Suite {
  name: string;
  cases: Case[];
  source: SourceLocation;
}
