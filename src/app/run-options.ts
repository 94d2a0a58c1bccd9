// The options of a suite run (what `run` and the commands built on it accept), and how they are stored
// in the results log header so that `--resume` finds them again.

import type { OutputFormat } from '../report/formats.js';
import type { ToolMode } from '../types/toolset.js';
import type { DiskBudgetMode } from '../config/settings.js';
import { cwdPath, type AppContext } from './context.js';
import { redactUrl } from '../core/redact.js';
import type { ReasoningEffort } from '../core/vocabulary.js';

/** Every option of `run` (and the commands built on it), as the CLI parses its flags. */
export interface RunFlags {
  fixture?: string[];
  /** Without targets, run the bundled demo cases too (by default they run only when the project has none). */
  bundled?: boolean;
  tag?: string[];
  suite?: string[];
  provider?: string;
  model?: string;
  baseUrl?: string;
  temperature?: number;
  maxTokens?: number;
  /** Sent on every model request, only when set. */
  reasoningEffort?: ReasoningEffort;
  /** turnstone `--context-window`: a trajectory that fills it stops as truncated. */
  contextWindow?: number;
  timeoutMs?: number;
  /** Attempts per model request, the first included (1 = no retry). */
  attempts?: number;
  /** @deprecated the old name of `attempts` (it always counted attempts). */
  retries?: number;
  maxRequests?: number;
  /** Stop after this many samples in a row errored (0 = never). */
  stopAfterErrors?: number;
  toolset?: string;
  toolMode?: ToolMode;
  samples?: number;
  threshold?: number;
  /** `--pass-k 1,3,5`. */
  passK?: number[];
  /** `--gate "pass@3 >= 0.9"`. */
  gate?: string;
  validateArgs?: boolean;
  /** Exit 1 when any sample's verdict is unscorable or incomplete (a needed check could not be judged). */
  failOnUnscorable?: boolean;
  concurrency?: number;
  maxTurns?: number;
  systemPrompt?: string;
  output?: OutputFormat;
  out?: string;
  shard?: string;
  resume?: string;
  compare?: string;
  telemetry?: boolean;
  captureContent?: boolean;
  annotations?: boolean;
  /** `--phoenix-experiment`: the run as a Phoenix experiment (dataset, runs, evaluations). */
  phoenixExperiment?: boolean;
  langsmithFeedback?: boolean;
  endpoint?: string;
  keepWorktrees?: boolean;
  /** `-v`: a per-turn log (model and tool calls) on the status stream. */
  verbose?: boolean;
  unsafeHostCommands?: boolean;
  /** `--disk-budget-mib`: disk a case's worktree may take before its command is stopped. */
  diskBudgetMib?: number;
  /** `--disk-budget-mode`: `auto` (a tmpfs per worktree as root) or `watchdog` (the size check alone). */
  diskBudgetMode?: DiskBudgetMode;
  script?: string;
  /** `--target NAME`: a `[targets.NAME]` of runspec.toml (model, module, http or command). */
  target?: string;
  /** `--quiet-ms`: an agent's trace is complete once our root ended and no span arrived for this long. */
  quietMs?: number;
  /** `--trace-timeout` (ms): the longest wait for an agent's trace; then the sample is `incomplete`. */
  traceTimeout?: number;
}

/** Flags whose values are paths: stored absolute in the results log so `--resume` works from anywhere. */
const PATH_FLAGS = ['out', 'script', 'systemPrompt'] as const;

/** Absolute paths for path-valued flags and file targets; the rest as given. */
export function normaliseForLog(ctx: Pick<AppContext, 'cwd'>, targets: string[], flags: RunFlags): { targets: string[]; flags: RunFlags; suiteLabel: string } {
  const f: RunFlags = { ...flags };
  for (const k of PATH_FLAGS) if (f[k]) (f as Record<string, unknown>)[k] = cwdPath(ctx, f[k]!);
  if (f.toolset && !/^(builtin|mcp):/.test(f.toolset)) f.toolset = cwdPath(ctx, f.toolset);
  if (f.baseUrl) f.baseUrl = redactUrl(f.baseUrl);
  if (f.endpoint) f.endpoint = redactUrl(f.endpoint);
  delete f.resume;
  delete f.compare;
  const t = targets.map((x) => (/[\\/]/.test(x) || /\.(toml|json)$/i.test(x) ? cwdPath(ctx, x) : x));
  // The label is kept as typed, so a resumed run's document equals an uninterrupted one's.
  return { targets: t, flags: f, suiteLabel: suiteLabelOf(targets) };
}

/** How the selected targets read in the results meta (`test_suite`). */
export function suiteLabelOf(targets: string[]): string {
  return targets.join(',') || '(all)';
}
