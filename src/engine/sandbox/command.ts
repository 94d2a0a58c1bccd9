import { spawn } from 'node:child_process';
import { accessSync, constants, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { lchown, lstat, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { makeOwnedDir } from '../owned-dir.js';
import { chownTreeBeneath, treeDiskBytes } from './beneath.js';
import { createWorktreeMounter, tmpfsUsedBytes, type WorktreeMounter } from './disk-mount.js';

// How a model-driven command (bash, run_command) runs. By default inside bubblewrap: a user namespace
// with an unprivileged uid, every capability dropped, a new session, no network, a fresh PID namespace
// (so every process the command started dies with it), read-only system directories, a private tmpfs
// HOME and /tmp, the worktree as the only writable path, a cleared environment, and bwrap itself
// started with an empty environment (its init is PID 1 inside, and /proc/1/environ shows what bwrap
// was started with). Process-count, memory and file-size limits are set inside by prlimit.
//
// RLIMIT_NPROC is not enforced for processes whose real uid is host root, even inside a user
// namespace, so a root harness first drops to an unprivileged host uid (setpriv) and hands the
// worktree to that uid before each command. From then on any process of that uid can change the tree
// under the harness: the hand-over (and every file tool) goes through beneath.ts, one no-follow step
// relative to an open directory at a time, so a directory swapped for a link is never followed.

export type SandboxMode = 'bwrap' | 'none';

export interface CommandRequest {
  /** `sh` for run_command, `bash` for bash. */
  shell: 'sh' | 'bash';
  command: string;
  /** The worktree (a real path): the command's working directory and its only writable path, mounted at the same path. */
  root: string;
  /** The command's whole environment (HOME and PATH are set by the sandbox). */
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface CommandResult {
  /** stdout and stderr interleaved, cut at maxOutputBytes. */
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The command could not be started at all. */
  spawnError?: string;
  /** The worktree grew past the disk budget: the command was stopped (or, when it ended first, is over). */
  diskBudgetExceeded?: boolean;
}

/** `note`: something to say once about a working sandbox (as root: the disk budget falls back to the watchdog). */
export type SandboxReadiness = { ok: true; note?: string } | { ok: false; message: string };

export interface CommandSandbox {
  readonly mode: SandboxMode;
  /** Whether commands can run; checked once (a probe command), the same answer afterwards. */
  ready(): Promise<SandboxReadiness>;
  /** Run one command. Call `ready()` first: a sandbox that is not ready refuses with spawnError. */
  run(req: CommandRequest): Promise<CommandResult>;
  /**
   * As root where mounting is permitted: mount a tmpfs of the disk budget (plus slack) on the empty new
   * worktree `root`, so the budget is a hard limit. Returns its unmount, or undefined (the watchdog alone).
   */
  mountWorktree?(root: string): Promise<(() => Promise<void>) | undefined>;
}

export interface SandboxLimits {
  /** Processes (threads included) the command may have at once. @default 256 */
  maxProcesses?: number;
  /** Address space of each process, in bytes. @default 4 GiB */
  maxMemoryBytes?: number;
  /** Largest file a command may write, in bytes. @default 256 MiB */
  maxFileBytes?: number;
  /** Size of each private tmpfs (`/tmp`, `HOME`), in bytes, where bwrap supports `--size` (0.8+); the root is read-only. @default 256 MiB */
  maxTmpfsBytes?: number;
  /** Disk the worktree of a case may take, in bytes: a command that grows it past this is stopped. @default 1 GiB */
  maxDiskBytes?: number;
  /** How often the disk budget is checked while a command runs, in ms. @default 250 */
  diskPollMs?: number;
}

/** @see SandboxLimits.maxDiskBytes */
export const DEFAULT_DISK_BUDGET_BYTES = 1024 ** 3;
const DEFAULT_DISK_POLL_MS = 250;

export interface CreateSandboxOptions {
  /** @default 'bwrap' */
  mode?: SandboxMode;
  /** bwrap to use: a path, or a name looked up on `searchPath`. @default 'bwrap' */
  bwrap?: string;
  /** Directories to look in (PATH syntax). @default the standard system directories */
  searchPath?: string;
  limits?: SandboxLimits;
  /** `watchdog`: never mount a tmpfs as the worktree, even as root (the size watchdog alone). @default 'auto' */
  diskBudgetMode?: 'auto' | 'watchdog';
}

/** HOME inside the sandbox: a private tmpfs. */
export const SANDBOX_HOME = '/home/sandbox';
const SANDBOX_UID = 1000;
/** Host uid a root harness drops to (nobody), so the process-count limit applies. */
const HOST_DROP_UID = 65534;
const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const PROBE_TIMEOUT_MS = 15_000;
/** /etc entries shells and common tools need; never passwd, shadow or anything with host secrets. */
const ETC_ENTRIES = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/nsswitch.conf',
  '/etc/bash.bashrc',
  '/etc/profile',
  '/etc/inputrc',
];
const ROOT_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

const OPT_OUT = 'opt out with [trajectory] sandbox = "none" in runspec.toml or --unsafe-host-commands (model commands then run unconfined on this machine)';
/** How to get a working sandbox, or opt out: the tail of every refusal line. */
export const INSTALL_HINT = `install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap), or ${OPT_OUT}`;

/** Find an executable on a PATH-style list; a name with a slash is taken as is. */
export function findExecutable(name: string, searchPath = STANDARD_PATH): string | undefined {
  const candidates = name.includes('/')
    ? [name]
    : searchPath
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, name));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (lstatSync(c).isDirectory()) continue;
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The command sandbox of a run: bubblewrap, or (`mode: 'none'`, an explicit opt-out) the host.
 * @example const sb = createCommandSandbox(); if ((await sb.ready()).ok) await sb.run({ shell: 'sh', command: 'ls', ... });
 */
export function createCommandSandbox(opts: CreateSandboxOptions = {}): CommandSandbox {
  if (opts.mode === 'none') return createHostSandbox(opts.limits, opts.diskBudgetMode);
  return createBwrapSandbox(opts);
}

function createHostSandbox(limits: SandboxLimits = {}, diskBudgetMode?: 'auto' | 'watchdog'): CommandSandbox {
  const mounter = createWorktreeMounter(limits.maxDiskBytes ?? DEFAULT_DISK_BUDGET_BYTES, {
    pollMs: limits.diskPollMs ?? DEFAULT_DISK_POLL_MS,
    ...(diskBudgetMode ? { mode: diskBudgetMode } : {}),
  });
  const disk = diskWatch(limits, mounter);
  return {
    mode: 'none',
    ready: async () => withNote(await mounter.probe()),
    mountWorktree: (root) => mounter.mount(root),
    run: (req) =>
      spawnCollect({
        watch: disk(req.root),
        file: req.shell === 'bash' ? 'bash' : '/bin/sh',
        args: ['-c', req.command],
        cwd: req.root,
        env: { ...req.env, HOME: req.root },
        timeoutMs: req.timeoutMs,
        maxOutputBytes: req.maxOutputBytes,
        signal: req.signal,
      }),
  };
}

function createBwrapSandbox(opts: CreateSandboxOptions): CommandSandbox {
  const limits = { maxProcesses: 256, maxMemoryBytes: 4 * 1024 ** 3, maxFileBytes: 256 * 1024 ** 2, maxTmpfsBytes: 256 * 1024 ** 2, ...opts.limits };
  const mounter = createWorktreeMounter(limits.maxDiskBytes ?? DEFAULT_DISK_BUDGET_BYTES, {
    pollMs: limits.diskPollMs ?? DEFAULT_DISK_POLL_MS,
    ...(opts.diskBudgetMode ? { mode: opts.diskBudgetMode } : {}),
  });
  const disk = diskWatch(limits, mounter);
  const searchPath = opts.searchPath ?? STANDARD_PATH;
  const asRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;
  let readiness: Promise<SandboxReadiness> | undefined;
  let bwrap: string | undefined;
  let setpriv: string | undefined;
  /** Whether this bwrap knows `--size` (tmpfs quotas); older ones leave the tmpfs bounded by memory only. */
  let sizeFlag = false;

  const argv = (req: Pick<CommandRequest, 'shell' | 'command' | 'root' | 'env'>): { file: string; args: string[] } => {
    const args: string[] = [
      '--unshare-all',
      '--unshare-user',
      '--uid',
      String(SANDBOX_UID),
      '--gid',
      String(SANDBOX_UID),
      '--cap-drop',
      'ALL',
      '--new-session',
      '--die-with-parent',
      '--ro-bind',
      '/usr',
      '/usr',
    ];
    for (const d of ROOT_DIRS) {
      const st = lstatSafe(d);
      if (st?.isSymbolicLink()) args.push('--symlink', readlinkSync(d), d);
      else if (st?.isDirectory()) args.push('--ro-bind', d, d);
    }
    for (const e of ETC_ENTRIES) if (lstatSafe(e)) args.push('--ro-bind', e, e);
    // The tmpfs mounts live in host memory: with --size each has a quota, and the root tmpfs is made read-only.
    const size = sizeFlag ? ['--size', String(limits.maxTmpfsBytes)] : [];
    args.push(
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      ...size,
      '--tmpfs',
      '/tmp',
      ...size,
      '--tmpfs',
      '/home',
      '--dir',
      SANDBOX_HOME,
      '--bind',
      req.root,
      req.root,
      '--chdir',
      req.root,
      '--clearenv',
    );
    if (sizeFlag) args.push('--remount-ro', '/');
    const env: Record<string, string> = { PATH: STANDARD_PATH, ...req.env, HOME: SANDBOX_HOME, PWD: req.root };
    for (const [k, v] of Object.entries(env)) if (isEnvName(k) && !v.includes('\0')) args.push('--setenv', k, v);
    // fd 3 tells the host pid of the sandbox's init, so the run can wait until its namespace is gone.
    args.push(
      '--json-status-fd',
      '3',
      '--',
      '/usr/bin/prlimit',
      `--nproc=${limits.maxProcesses}`,
      `--as=${limits.maxMemoryBytes}`,
      `--fsize=${limits.maxFileBytes}`,
      '--',
      req.shell === 'bash' ? '/bin/bash' : '/bin/sh',
      '-c',
      req.command,
    );
    if (asRoot && setpriv) return { file: setpriv, args: [`--reuid=${HOST_DROP_UID}`, `--regid=${HOST_DROP_UID}`, '--clear-groups', bwrap!, ...args] };
    return { file: bwrap!, args };
  };

  const probe = async (): Promise<SandboxReadiness> => {
    bwrap = findExecutable(opts.bwrap ?? 'bwrap', searchPath);
    if (!bwrap) return { ok: false, message: `command tools are refused: bubblewrap (${opts.bwrap ?? 'bwrap'}) was not found; ${INSTALL_HINT}` };
    if (asRoot) {
      setpriv = findExecutable('setpriv', searchPath);
      if (!setpriv)
        return {
          ok: false,
          message: `command tools are refused: running as root needs setpriv (util-linux) to drop to an unprivileged uid before bubblewrap; install util-linux, or ${OPT_OUT}`,
        };
    }
    if (!findExecutable('/usr/bin/prlimit'))
      return {
        ok: false,
        message: `command tools are refused: /usr/bin/prlimit (util-linux) is missing, so the sandbox cannot limit processes and memory; install util-linux, or ${OPT_OUT}`,
      };
    const help = await spawnCollect({ file: bwrap, args: ['--help'], cwd: '/', env: {}, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 65_536 });
    sizeFlag = /--size\b/.test(help.output);
    const { rm } = await import('node:fs/promises');
    const dir = await makeOwnedDir({ kind: 'probe-', outcome: 'command tools could not be checked' });
    try {
      if (asRoot) await lchown(dir, HOST_DROP_UID, HOST_DROP_UID);
      const { file, args } = argv({ shell: 'sh', command: 'id -u && touch ./probe', root: dir, env: {} });
      const r = await spawnCollect({ file, args, cwd: dir, env: {}, timeoutMs: PROBE_TIMEOUT_MS, maxOutputBytes: 4096, statusFd: true });
      const wrote = await lstat(join(dir, 'probe')).then(
        () => true,
        () => false,
      );
      if (r.exitCode === 0 && r.output.trim() === String(SANDBOX_UID) && wrote) return withNote(await mounter.probe());
      const why = (r.spawnError ?? r.output.trim().split('\n')[0]) || `exit ${r.exitCode ?? r.signal}`;
      return {
        ok: false,
        message: `command tools are refused: bubblewrap at ${bwrap} does not work here (${why}); enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or ${OPT_OUT}`,
      };
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  };

  return {
    mode: 'bwrap',
    mountWorktree: (root) => mounter.mount(root),
    ready() {
      readiness ??= probe();
      return readiness;
    },
    async run(req) {
      const ok = await this.ready();
      if (!ok.ok) return { output: '', truncated: false, exitCode: null, signal: null, timedOut: false, cancelled: false, spawnError: ok.message };
      if (asRoot) await chownTreeBeneath(req.root, HOST_DROP_UID, HOST_DROP_UID);
      const { file, args } = argv(req);
      // bwrap starts with an empty environment: its init is PID 1 in the sandbox and readable there.
      return spawnCollect({
        file,
        args,
        cwd: req.root,
        env: {},
        timeoutMs: req.timeoutMs,
        maxOutputBytes: req.maxOutputBytes,
        signal: req.signal,
        statusFd: true,
        watch: disk(req.root),
      });
    },
  };
}

function withNote(note: string | undefined): SandboxReadiness {
  return note ? { ok: true, note } : { ok: true };
}

function lstatSafe(p: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function isEnvName(k: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k);
}

interface SpawnOptions {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** bwrap --json-status-fd 3: wait for the sandbox's init (and so its PID namespace) to be gone. */
  statusFd?: boolean;
  /** The disk budget: the tree at `root` checked every `intervalMs`, the command stopped past `maxBytes`. */
  watch?: DiskWatch;
}

interface DiskWatch {
  maxBytes: number;
  intervalMs: number;
  /** Bytes the worktree takes now. */
  measure(): Promise<number>;
}

function diskWatch(limits: SandboxLimits, mounter: WorktreeMounter): (root: string) => DiskWatch {
  const maxBytes = limits.maxDiskBytes ?? DEFAULT_DISK_BUDGET_BYTES;
  return (root) => ({
    maxBytes,
    intervalMs: limits.diskPollMs ?? DEFAULT_DISK_POLL_MS,
    // A mounted worktree is its own file system: statfs counts it all at once, open deleted files included.
    measure: mounter.isMounted(root) ? () => tmpfsUsedBytes(root) : () => treeDiskBytes(root, maxBytes),
  });
}

/**
 * Poll the worktree's size while a command runs and call `over` once it passes the budget. On ordinary
 * host disk (not root, or mounting refused: disk-mount.ts) a command can write what the disk takes in one
 * interval beyond the budget between two polls; the per-file limit bounds each file. On the tmpfs a root
 * harness mounts, the tmpfs's size is the hard limit and this turns the overflow into the case's failure.
 */
function startDiskWatch(w: DiskWatch, over: () => void): () => Promise<boolean> {
  let exceeded = false;
  let busy: Promise<void> | undefined;
  const check = (): Promise<void> =>
    w.measure().then(
      (n) => {
        if (n > w.maxBytes && !exceeded) {
          exceeded = true;
          over();
        }
      },
      () => undefined,
    );
  const timer = setInterval(() => {
    busy ??= check().finally(() => (busy = undefined));
  }, w.intervalMs);
  timer.unref();
  // Stop polling; one last look catches a command that wrote fast and ended between two polls.
  return async () => {
    clearInterval(timer);
    await busy;
    if (!exceeded) await check();
    return exceeded;
  };
}

const NAMESPACE_GONE_WAIT_MS = 5000;

/** Process groups of commands running now, for a second Ctrl-C that must not leave any behind. */
const running = new Set<number>();

/** Kill every command still running (the CLI's second interrupt, just before it exits). */
export function killRunningCommands(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
}

/**
 * bwrap exits as soon as its init reports the command's status, while the kernel may still be killing
 * the other processes of the namespace; wait (bounded) until the init itself has disappeared.
 */
async function waitGone(pid: number): Promise<void> {
  const deadline = Date.now() + NAMESPACE_GONE_WAIT_MS;
  while (Date.now() < deadline) {
    const state = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    // Gone, or a zombie (every process of its namespace has been reaped before init turns zombie).
    if (state === undefined || / Z /.test(state.slice(state.lastIndexOf(')')))) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Descriptors the harness inherited without close-on-exec (a parent's `100<secret`) would pass through
// setpriv, bwrap and prlimit to the model's command: Node marks its own descriptors close-on-exec but
// cannot change inherited ones (no fcntl). So the first process of every command is bash, which lists
// its own /proc/$$/fd and closes everything above 2 (above 3, bwrap's status pipe, which bwrap itself
// does not pass on), then execs the chain. dash and POSIX sh only take single-digit descriptors in a
// redirection, so this needs bash; without bash a command is refused only when something would leak.
const CLOSE_INHERITED = 'for p in /proc/$$/fd/*; do n=${p##*/}; [ "$n" -gt "$0" ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done; exec "$@"';
const O_CLOEXEC = 0o2000000;
let closerShell: string | null | undefined;

/** Descriptors above 2 of this process that a child would inherit (no close-on-exec). */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const open: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) open.push(fd);
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return open;
}

/** The chain behind a descriptor closer, or a refusal when descriptors would leak and bash is missing. */
function withClosedDescriptors(o: SpawnOptions): { file: string; args: string[] } | { refused: string } {
  if (closerShell === undefined) closerShell = findExecutable('bash') ?? null;
  const keep = o.statusFd ? 3 : 2;
  if (closerShell) return { file: closerShell, args: ['-c', CLOSE_INHERITED, String(keep), o.file, ...o.args] };
  const leaking = inheritableDescriptors();
  if (leaking.length === 0) return { file: o.file, args: o.args };
  return {
    refused: `command refused: descriptors ${leaking.join(', ')} of the harness are open without close-on-exec and bash, which closes them before a command starts, is not installed; install bash or start the harness without them`,
  };
}

/** Spawn in a new process group, collect output up to the cap, kill the whole group at the end. */
function spawnCollect(o: SpawnOptions): Promise<CommandResult> {
  const chain = withClosedDescriptors(o);
  if ('refused' in chain)
    return Promise.resolve({ output: '', truncated: false, exitCode: null, signal: null, timedOut: false, cancelled: false, spawnError: chain.refused });
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const child = spawn(chain.file, chain.args, {
      cwd: o.cwd,
      env: o.env,
      stdio: o.statusFd ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid) running.add(pid);
    let status = '';
    if (o.statusFd) (child.stdio[3] as NodeJS.ReadableStream).on('data', (b: Buffer) => void (status.length < 65_536 && (status += b.toString('utf8'))));
    const killGroup = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const collect = (b: Buffer): void => {
      if (size >= o.maxOutputBytes) {
        truncated = true;
        return;
      }
      const take = b.subarray(0, o.maxOutputBytes - size);
      chunks.push(take);
      size += take.length;
      if (take.length < b.length) truncated = true;
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, o.timeoutMs);
    const onAbort = (): void => killGroup();
    // One run-wide signal serves every command in flight: listening on a follower of it (tracked
    // weakly by the source, not as a listener) keeps 11+ concurrent commands from a MaxListenersExceededWarning.
    const signal = o.signal ? AbortSignal.any([o.signal]) : undefined;
    if (signal?.aborted) killGroup();
    signal?.addEventListener('abort', onAbort, { once: true });
    const stopWatch = o.watch ? startDiskWatch(o.watch, killGroup) : undefined;
    const finish = (r: Omit<CommandResult, 'output' | 'truncated' | 'timedOut' | 'cancelled'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Whatever the command left in its group goes too (host mode has no PID namespace).
      killGroup();
      if (pid) running.delete(pid);
      const result: CommandResult = { output: Buffer.concat(chunks).toString('utf8'), truncated, timedOut, cancelled: !!o.signal?.aborted, ...r };
      const initPid = /"child-pid"\s*:\s*(\d+)/.exec(status)?.[1];
      void (initPid ? waitGone(Number(initPid)) : Promise.resolve())
        .then(() => stopWatch?.())
        .then((exceeded) => {
          if (exceeded) result.diskBudgetExceeded = true;
          resolvePromise(result);
        });
    };
    child.on('error', (err) => finish({ exitCode: null, signal: null, spawnError: err.message }));
    // A background process still holding the pipes would keep 'close' from coming: end the group first.
    child.on('exit', () => killGroup());
    child.on('close', (code, signal) => finish({ exitCode: code, signal }));
  });
}
