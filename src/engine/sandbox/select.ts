import { createCommandSandbox, type CommandSandbox, type SandboxMode } from './command.js';

// Which sandbox a suite run uses, and the one line a run prints about it.

export interface SandboxChoice {
  /** `--unsafe-host-commands` */
  unsafeHostCommands?: boolean;
  /** `[trajectory] sandbox` of runspec.toml */
  configured?: SandboxMode;
  /** A bwrap path or name (RUNSPEC_BWRAP); @default 'bwrap' */
  bwrap?: string;
  /** PATH to look bwrap up on; @default the standard system directories */
  searchPath?: string;
  /** Disk a case's worktree may take, in bytes. @default 1 GiB */
  maxDiskBytes?: number;
  /** How the disk budget is enforced (RunSettings.diskBudgetMode). @default 'auto' */
  diskBudgetMode?: 'auto' | 'watchdog';
}

/**
 * The command sandbox of a run and what to warn about: the opt-out on every run that uses it, and a
 * sandbox that does not work here (command tools are then refused with that line).
 * @example const { sandbox, warning } = await chooseCommandSandbox({ configured: 'bwrap' }, true);
 */
export async function chooseCommandSandbox(choice: SandboxChoice, hasTrajectoryCases: boolean): Promise<{ sandbox: CommandSandbox; warning?: string }> {
  const mode: SandboxMode = choice.unsafeHostCommands ? 'none' : (choice.configured ?? 'bwrap');
  const sandbox = createCommandSandbox({
    mode,
    ...(choice.bwrap ? { bwrap: choice.bwrap } : {}),
    ...(choice.searchPath ? { searchPath: choice.searchPath } : {}),
    ...(choice.maxDiskBytes !== undefined ? { limits: { maxDiskBytes: choice.maxDiskBytes } } : {}),
    ...(choice.diskBudgetMode ? { diskBudgetMode: choice.diskBudgetMode } : {}),
  });
  if (!hasTrajectoryCases) return { sandbox };
  const ready = await sandbox.ready();
  // As root where no tmpfs can be mounted, the one line saying the disk budget is the watchdog's.
  const note = ready.ok && ready.note ? `; ${ready.note}` : '';
  if (mode === 'none') {
    const via = choice.unsafeHostCommands ? '--unsafe-host-commands' : '[trajectory] sandbox = "none"';
    return {
      sandbox,
      warning: `${via}: model-driven commands (bash, run_command) run on this machine without a sandbox; they can read your files and secrets${note}`,
    };
  }
  if (!ready.ok) return { sandbox, warning: ready.message };
  return ready.note ? { sandbox, warning: ready.note } : { sandbox };
}
