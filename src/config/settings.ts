// The one settings resolver: every setting of a run (run, record, replay, compare, optimize, schedule
// run) and of trace scoring (score, serve), each with where it came from. `config` prints exactly this,
// so `config` rejects what `run` rejects and shows what `run` would use.

import { isToolMode, TOOL_MODES } from '../core/vocabulary.js';
import { ConfigError, UsageError } from '../errors.js';
import type { ToolMode } from '../types/toolset.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../core/http-limits.js';
import { DEFAULT_UNREACHABLE_AFTER_MS } from '../core/reachability.js';
import { maxResponseBytesOf, type Env } from './env.js';
import type { ConfigFile } from './file.js';
import { firstSet, type Setting } from './setting.js';

/** The flags that feed the resolver (all optional: a command passes the ones it has). */
export interface SettingFlags {
  provider?: string;
  toolMode?: ToolMode;
  concurrency?: number;
  maxRequests?: number;
  toolset?: string;
  /** Attempts per model request, the first included. */
  attempts?: number;
  stopAfterErrors?: number;
  /** --unsafe-host-commands: no command sandbox. */
  unsafeHostCommands?: boolean;
  /** --disk-budget-mode */
  diskBudgetMode?: DiskBudgetMode;
}

/** The command sandbox of trajectory cases. */
export type SandboxMode = 'bwrap' | 'none';

/**
 * How a case's disk budget is enforced: `auto` mounts a tmpfs of the budget as each worktree when running
 * as root (and root may mount), with the size watchdog; `watchdog` never mounts, the watchdog alone is the budget.
 */
export const DISK_BUDGET_MODES = ['auto', 'watchdog'] as const;
export type DiskBudgetMode = (typeof DISK_BUDGET_MODES)[number];

export interface RunSettings {
  /** Provider preset or profile: --provider > RUNSPEC_PROVIDER > [llm] provider > openai. */
  provider: Setting<string>;
  /** Tool layout: --tool-mode > RUNSPEC_TOOL_MODE > [llm] tool_mode > dedup. */
  toolMode: Setting<ToolMode>;
  /** Case samples in flight: --concurrency > RUNSPEC_CONCURRENCY > [llm] concurrency > 4. */
  concurrency: Setting<number>;
  /** Model requests in flight per provider: --max-requests > RUNSPEC_MAX_REQUESTS > [llm] max_requests > 8. */
  maxRequests: Setting<number>;
  /**
   * Toolset of decision cases: --toolset > RUNSPEC_TOOLSET > [toolset] file (or mcp:) > none (then
   * runspec cases get builtin:fleet, replio and turnstone cases builtin:workspace).
   */
  toolset: Setting<string | undefined>;
  /** Attempts per model request, the first included: --attempts > [llm] retries > 3 (1 = no retry). */
  attempts: Setting<number>;
  /**
   * Stop a run after this many samples in a row errored (the provider looks down): --stop-after-errors >
   * RUNSPEC_STOP_AFTER_ERRORS > [llm] stop_after_errors > 5; 0 never stops.
   */
  stopAfterErrors: Setting<number>;
  /**
   * Stop a run once every request in flight has failed to connect for this long, in ms (the provider is
   * unreachable): RUNSPEC_UNREACHABLE_AFTER_MS > [llm] unreachable_after_ms > 10000; 0 never stops.
   */
  unreachableAfterMs: Setting<number>;
  /** Largest response body read: RUNSPEC_MAX_RESPONSE_BYTES > [llm] max_response_bytes > 32 MiB. */
  maxResponseBytes: Setting<number>;
  /** Command sandbox: --unsafe-host-commands (none) > [trajectory] sandbox > bwrap. */
  sandbox: Setting<SandboxMode>;
  /** Disk budget mechanism: --disk-budget-mode > RUNSPEC_DISK_BUDGET_MODE > [trajectory] disk_budget_mode > auto. */
  diskBudgetMode: Setting<DiskBudgetMode>;
}

/** Most case samples in flight (--concurrency, RUNSPEC_CONCURRENCY and [llm] concurrency alike). */
export const MAX_CONCURRENCY = 256;

/** Samples in a row that errored before a run stops (0 = never). */
export const DEFAULT_STOP_AFTER_ERRORS = 5;

/** Default attempts per model request (the providers' HTTP client default). */
export const DEFAULT_ATTEMPTS = 3;

/**
 * Resolve every run and scoring setting, flag > env > runspec.toml > default, remembering the source.
 * A bad value of ours (RUNSPEC_TOOL_MODE=bogus) is a ConfigError (exit 2) for every command alike.
 *
 * @example resolveRunSettings({ flags: {}, env: readEnv(process.env), file: loadConfigFile('.') }).toolMode
 */
export function resolveRunSettings(input: { flags?: SettingFlags; env: Env; file: ConfigFile }): RunSettings {
  const { env, file } = input;
  const flags = input.flags ?? {};
  const concurrency = firstSet(flags.concurrency, env.int('RUNSPEC_CONCURRENCY'), file.llm?.concurrency, 4);
  if (concurrency.value < 1 || concurrency.value > MAX_CONCURRENCY) {
    throw new UsageError('USAGE', `RUNSPEC_CONCURRENCY: expected 1 to ${MAX_CONCURRENCY} (got ${concurrency.value})`, {
      hint: 'case samples in flight at once; the flag and [llm] concurrency have the same bounds',
    });
  }
  return {
    provider: firstSet(flags.provider, env.get('RUNSPEC_PROVIDER'), file.llm?.provider, 'openai'),
    toolMode: firstSet<ToolMode>(flags.toolMode, envToolMode(env), file.llm?.tool_mode, 'dedup'),
    concurrency,
    maxRequests: firstSet(flags.maxRequests, env.int('RUNSPEC_MAX_REQUESTS'), file.llm?.max_requests, 8),
    toolset: toolsetSetting(flags.toolset, env, file),
    attempts: attemptsSetting(flags.attempts, file),
    maxResponseBytes: firstSet(undefined, maxResponseBytesOf(env), file.llm?.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES),
    sandbox: firstSet<SandboxMode>(flags.unsafeHostCommands ? 'none' : undefined, undefined, file.trajectory?.sandbox, 'bwrap'),
    diskBudgetMode: firstSet<DiskBudgetMode>(flags.diskBudgetMode, envDiskBudgetMode(env), file.trajectory?.disk_budget_mode, 'auto'),
    stopAfterErrors: firstSet(flags.stopAfterErrors, env.int('RUNSPEC_STOP_AFTER_ERRORS'), file.llm?.stop_after_errors, DEFAULT_STOP_AFTER_ERRORS),
    unreachableAfterMs: firstSet(undefined, env.int('RUNSPEC_UNREACHABLE_AFTER_MS'), file.llm?.unreachable_after_ms, DEFAULT_UNREACHABLE_AFTER_MS),
  };
}

/** Attempts per model request alone (see {@link RunSettings.attempts}); the provider resolver uses it too. */
export function attemptsSetting(flag: number | undefined, file: ConfigFile): Setting<number> {
  return firstSet(flag, undefined, file.llm?.retries, DEFAULT_ATTEMPTS);
}

/** The toolset setting alone (see {@link RunSettings.toolset}). */
export function toolsetSetting(flag: string | undefined, env: Env, file: ConfigFile): Setting<string | undefined> {
  const fileToolset = file.toolset?.file ?? (file.toolset?.mcp ? `mcp:${file.toolset.mcp}` : undefined);
  return firstSet<string | undefined>(flag, env.get('RUNSPEC_TOOLSET'), fileToolset, undefined);
}

/**
 * The toolset spec of one case: the setting, except that runspec.toml's [toolset] applies to decision
 * cases only (trajectory cases need the workspace tools); else runspec → builtin:fleet, replio and
 * turnstone → builtin:workspace.
 */
export function toolsetSpecOf(setting: Setting<string | undefined>, c: { dialect: string; mode: string }): string {
  const fallback = c.dialect === 'runspec' ? 'builtin:fleet' : 'builtin:workspace';
  if (setting.value === undefined || (setting.source === 'file' && c.mode !== 'decision')) return fallback;
  return setting.value;
}

function envDiskBudgetMode(env: Env): DiskBudgetMode | undefined {
  const v = env.get('RUNSPEC_DISK_BUDGET_MODE');
  if (v === undefined) return undefined;
  if (!(DISK_BUDGET_MODES as readonly string[]).includes(v)) {
    throw new ConfigError('CONFIG', `RUNSPEC_DISK_BUDGET_MODE: expected one of ${DISK_BUDGET_MODES.join(', ')} (got ${JSON.stringify(v)})`, {
      hint: `unset it or set one of ${DISK_BUDGET_MODES.join(', ')}`,
    });
  }
  return v as DiskBudgetMode;
}

function envToolMode(env: Env): ToolMode | undefined {
  const v = env.get('RUNSPEC_TOOL_MODE');
  if (v === undefined) return undefined;
  if (!isToolMode(v)) {
    throw new ConfigError('CONFIG', `RUNSPEC_TOOL_MODE: expected one of ${TOOL_MODES.join(', ')} (got ${JSON.stringify(v)})`, {
      hint: `unset it or set one of ${TOOL_MODES.join(', ')}`,
    });
  }
  return v;
}
