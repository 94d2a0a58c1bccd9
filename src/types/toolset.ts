import type { Autonomy } from './case.js';

export type ArgType = 'string' | 'int' | 'float' | 'bool' | 'array' | 'object';
/** Permission category of a tool (replio): read / list / web allowed by default; edit / bash / mcp denied. */
export type ToolCategory = 'read' | 'list' | 'web' | 'edit' | 'bash' | 'mcp';
export type ToolMode = 'dedup' | 'per_host' | 'search';

export interface ArgSpec {
  name: string;
  type: ArgType;
  description?: string;
  required?: boolean;
  choices?: unknown[];
  min?: number;
  max?: number;
  default?: unknown;
  /** JSON Schema of array items / object properties, passed through to the model. */
  schema?: Record<string, unknown>;
  /**
   * Per-arg autonomy escalation: when the call passes this arg (equal to `when` if given,
   * otherwise any value but false/null), the call gates at least at `level`.
   */
  escalate?: { level: Autonomy; when?: unknown };
}

export interface Subcommand {
  name: string;
  description?: string;
  args: ArgSpec[];
  /** Own autonomy of this leaf; inherits the parent's when absent. */
  autonomy?: Autonomy;
  subcommands?: Subcommand[];
  requireCommand?: boolean;
}

export interface Runnable {
  name: string;
  description: string;
  /** Group (venv / server) qualifier: legacy ids spell it `group__name`. */
  group?: string;
  category: ToolCategory;
  args: ArgSpec[];
  autonomy: Autonomy;
  subcommands?: Subcommand[];
  /** A subcommand must be chosen. */
  requireCommand?: boolean;
  /** The runnable declares its own `host` arg, so the dedup selector is renamed `_host`. */
  ownHostArg: boolean;
  /** Hidden tools are not offered to the model. */
  hidden?: boolean;
  /** Hosts this runnable is available on; absent = all hosts. */
  hosts?: string[];
  /**
   * The parameters' JSON Schema as written (OpenAI tools files, MCP `inputSchema`): the model sees it
   * unchanged, `additionalProperties`, `pattern` and the rest included; `args` is read from it.
   */
  inputSchema?: Record<string, unknown>;
}

/** One canned tool result (`tool_mocks`). */
export interface MockResult {
  result: string;
  isError?: boolean;
}

/** One mock rule: when the call's arguments match `when` (raw fixture matchers), answer from `results`. */
export interface ToolMockRule {
  /** Argument name → expected value in fixture syntax (plain value or `$one_of` / `$regex` / ...). */
  when?: Record<string, unknown>;
  /** One result: static. Several: a sequence (call n gets entry n, then the last repeats). */
  results: MockResult[];
}

/** Tool name → rules, tried in order (syntax: src/core/tool-mocks.ts). */
export type ToolMocks = Record<string, ToolMockRule[]>;

export interface Toolset {
  name: string;
  runnables: Runnable[];
  hosts: string[];
  /** Host group name → member hosts. */
  groups: Record<string, string[]>;
  /** Where it came from (file path, `mcp:...`, `builtin:workspace`). */
  source: string;
  /** Canned results of the toolset file's `[mocks]`; a case's own `tool_mocks` win per tool. */
  mocks?: ToolMocks;
  /** The toolset carries no permission data (an OpenAI tools array): its calls have no autonomy level. */
  noAutonomy?: boolean;
  /** The system prompt a model run on this toolset gets by default (builtin:fleet: the operations prompt). */
  systemPrompt?: string;
}

/** A tool as the model sees it, neutral form; providers render it to their wire schema. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (draft-07 object). */
  parameters: Record<string, unknown>;
}

/** An observed call mapped back onto the toolset. */
export interface ResolvedCall {
  /** Bare runnable name ('' when the name resolves to nothing). */
  runnable: string;
  /** Whether `runnable` exists on the toolset. */
  known: boolean;
  /** Discovery tools (search_runnables, describe_runnable, describe_tool) are not terminal. */
  discovery: boolean;
  host?: string;
  /** Subcommand path, space-joined. */
  command?: string;
  /** Args without the host selector and without `command`. */
  args: Record<string, unknown>;
  layout: ToolMode;
  /** Legacy group qualifier, when the call spelled one. */
  group?: string;
  /** The tool name exactly as the model called it. */
  calledName: string;
}
