import { cutText } from '../core/cut.js';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { compileRegex } from '../core/regex.js';
import { isInside } from '../core/path-inside.js';
import { compileGlob } from './_glob.js';
import { createCommandSandbox, type CommandSandbox } from './sandbox/command.js';
import { withDirBeneath } from './sandbox/beneath.js';
import { PathRefusedError, readRegularFile, withTimeLimit, writeRegularFile } from './sandbox/paths.js';
import type { Worktree } from './worktree.js';

// Real implementations of the built-in workspace tools (src/toolset/workspace.ts), confined to a
// worktree. Every failure is an `Error: ...` result for the model, never an exception.

export interface WorkspaceToolContext {
  worktree: Worktree;
  /** Default time limit of run_command / bash. @default 30000 */
  commandTimeoutMs?: number;
  /** Output cap of run_command / bash, in bytes. @default 16384 */
  maxOutputBytes?: number;
  /** Environment of commands; the engine passes a minimal one so no secret reaches a command. */
  commandEnv?: Record<string, string>;
  /** Where commands run. @default bubblewrap (defaultCommandSandbox()); refused with a clear error when it does not work */
  sandbox?: CommandSandbox;
  /** Time limit of one file tool call. @default 10000 */
  fileToolTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface ToolOutcome {
  result: string;
  isError: boolean;
  /** The case cannot go on (the disk budget is spent): the sample fails with this error. */
  stop?: { code: string; message: string };
}

/** A tool call that ends the case, not only the call. */
class CaseStopError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Names with an implementation here. */
export const WORKSPACE_TOOL_NAMES = [
  'file_read',
  'glob',
  'grep',
  'list_directory',
  'file_edit',
  'file_write',
  'run_command',
  'read_file',
  'write_file',
  'edit_file',
  'bash',
] as const;

const FILE_READ_DEFAULT_LIMIT = 400;
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_RESULT_CHARS = 100_000;
const MAX_LINE_CHARS = 2000;
const MAX_WALK_ENTRIES = 20_000;
const MAX_GLOB_RESULTS = 500;
const MAX_GREP_MATCHES = 200;
const MAX_LIST_ENTRIES = 1000;
const MAX_COMMAND_TIMEOUT_MS = 300_000;

class ToolInputError extends Error {}

export function isWorkspaceTool(name: string): boolean {
  return (WORKSPACE_TOOL_NAMES as readonly string[]).includes(name);
}

/** Run one workspace tool. Unknown names, bad arguments and refused paths come back as `Error: ...`. */
export async function executeWorkspaceTool(name: string, args: Record<string, unknown>, ctx: WorkspaceToolContext): Promise<ToolOutcome> {
  try {
    if ('_raw' in args && Object.keys(args).length === 1) throw new ToolInputError('the arguments are not valid JSON');
    const isCommand = name === 'run_command' || name === 'bash';
    // Commands carry their own time limit; a file tool gets one so nothing it touches can hold the run.
    const result = isCommand ? await dispatch(name, args, ctx) : await withTimeLimit(dispatch(name, args, ctx), ctx.fileToolTimeoutMs ?? 10_000, name);
    return { result: result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}\n[truncated]` : result, isError: result.startsWith('Error') };
  } catch (err) {
    if (err instanceof CaseStopError) return { result: `Error: ${err.message}`, isError: true, stop: { code: err.code, message: err.message } };
    const msg = err instanceof PathRefusedError || err instanceof ToolInputError ? err.message : fsMessage(err, ctx.worktree);
    return { result: `Error: ${msg}`, isError: true };
  }
}

/** fs errors carry absolute paths; the model only ever sees workspace-relative ones. */
function fsMessage(err: unknown, wt: Worktree): string {
  const e = err as NodeJS.ErrnoException;
  const rel = (p: string | undefined) => (p ? wt.relative(p) : '');
  if (e?.code === 'ENOENT') return `no such file or directory: ${rel(e.path)}`;
  if (e?.code === 'EISDIR') return `is a directory: ${rel(e.path)}`;
  if (e?.code === 'ENOTDIR') return `not a directory: ${rel(e.path)}`;
  return (e?.message ?? String(err)).split(wt.root).join('.').split('\n')[0]!;
}

function str(args: Record<string, unknown>, key: string, required: true): string;
function str(args: Record<string, unknown>, key: string, required?: false): string | undefined;
function str(args: Record<string, unknown>, key: string, required = false): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) {
    if (required) throw new ToolInputError(`missing required argument "${key}"`);
    return undefined;
  }
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new ToolInputError(`argument "${key}" must be a string`);
}

function int(args: Record<string, unknown>, key: string): number | undefined {
  const v = args[key];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw new ToolInputError(`argument "${key}" must be a number`);
  return Math.floor(n);
}

async function dispatch(name: string, args: Record<string, unknown>, ctx: WorkspaceToolContext): Promise<string> {
  switch (name) {
    case 'file_read':
      return readLines(ctx.worktree, str(args, 'path', true), int(args, 'offset'), int(args, 'limit'));
    case 'read_file':
      return readWhole(ctx.worktree, str(args, 'path', true));
    case 'glob':
      return globTool(ctx.worktree, str(args, 'pattern', true), str(args, 'path'));
    case 'grep':
      return grepTool(ctx.worktree, str(args, 'pattern', true), str(args, 'path'), str(args, 'glob'));
    case 'list_directory':
      return listTool(ctx.worktree, str(args, 'path'), int(args, 'depth'));
    case 'file_edit':
    case 'edit_file':
      return editTool(ctx.worktree, str(args, 'path', true), str(args, 'old_string', true), str(args, 'new_string', true));
    case 'file_write':
    case 'write_file':
      return writeTool(ctx.worktree, str(args, 'path', true), str(args, 'content', true));
    case 'run_command':
      return commandTool(ctx, 'sh', str(args, 'command', true), int(args, 'timeout_ms'));
    case 'bash':
      return commandTool(ctx, 'bash', str(args, 'command', true), undefined);
    default:
      return `Error: unknown tool "${name}"`;
  }
}

async function readText(wt: Worktree, path: string): Promise<{ abs: string; text: string }> {
  const abs = await wt.resolve(path);
  const buf = await readRegularFile(wt.root, abs, path, MAX_FILE_BYTES);
  if (buf.includes(0)) throw new ToolInputError(`${path} is a binary file`);
  return { abs, text: buf.toString('utf8') };
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const cut = (line: string): string => cutText(line, MAX_LINE_CHARS);

/** file_read: numbered lines, paged with offset (1-based) and limit; a footer says how to go on. */
async function readLines(wt: Worktree, path: string, offset?: number, limit?: number): Promise<string> {
  const { text } = await readText(wt, path);
  const lines = splitLines(text);
  const first = Math.max(1, offset ?? 1);
  const count = Math.max(1, limit ?? FILE_READ_DEFAULT_LIMIT);
  if (lines.length === 0) return `(${path} is empty)`;
  if (first > lines.length) return `Error: offset ${first} is past the end of ${path} (${lines.length} lines)`;
  const last = Math.min(lines.length, first + count - 1);
  const body = lines
    .slice(first - 1, last)
    .map((l, i) => `${String(first + i).padStart(6)}\t${cut(l)}`)
    .join('\n');
  if (first === 1 && last === lines.length) return body;
  const more = last < lines.length ? `; call file_read with offset=${last + 1} to continue` : '';
  return `${body}\n[lines ${first}-${last} of ${lines.length}${more}]`;
}

async function readWhole(wt: Worktree, path: string): Promise<string> {
  const { text } = await readText(wt, path);
  return text;
}

interface Entry {
  abs: string;
  rel: string;
  dir: boolean;
  depth: number;
}

/** Walk a directory without following links out of the worktree; bounded in entries and depth. */
async function walk(wt: Worktree, startAbs: string, maxDepth: number): Promise<{ entries: Entry[]; truncated: boolean }> {
  const entries: Entry[] = [];
  const queue: Array<{ abs: string; depth: number }> = [{ abs: startAbs, depth: 0 }];
  while (queue.length > 0) {
    const { abs, depth } = queue.shift()!;
    let names;
    try {
      // Listed through a no-follow walk: a directory swapped for a link is not listed.
      names = await withDirBeneath(wt.root, abs, (dir) => readdir(dir, { withFileTypes: true }));
    } catch {
      continue;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of names) {
      if (entries.length >= MAX_WALK_ENTRIES) return { entries, truncated: true };
      const child = join(abs, d.name);
      let dir = d.isDirectory();
      if (d.isSymbolicLink()) {
        const real = await realpath(child).catch(() => undefined);
        if (!real || !isInside(wt.root, real)) continue;
        dir = (await stat(real).catch(() => undefined))?.isDirectory() ?? false;
        if (dir) {
          // Listed, but not descended into: a link cycle would never end.
          entries.push({ abs: child, rel: wt.relative(child), dir, depth: depth + 1 });
          continue;
        }
      }
      entries.push({ abs: child, rel: wt.relative(child), dir, depth: depth + 1 });
      if (dir && depth + 1 < maxDepth) queue.push({ abs: child, depth: depth + 1 });
    }
  }
  return { entries, truncated: false };
}

async function globTool(wt: Worktree, pattern: string, path?: string): Promise<string> {
  const base = await wt.resolve(path ?? '');
  let match: (rel: string) => boolean;
  try {
    match = compileGlob(pattern);
  } catch (err) {
    throw new ToolInputError(`invalid glob pattern ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
  const { entries } = await walk(wt, base, 64);
  const hits = entries
    .filter((e) => !e.dir && match(relative(base, e.abs).split(sep).join('/')))
    .map((e) => e.rel)
    .sort();
  if (hits.length === 0) return `No files match ${pattern}`;
  const shown = hits.slice(0, MAX_GLOB_RESULTS).join('\n');
  return hits.length > MAX_GLOB_RESULTS ? `${shown}\n[${hits.length - MAX_GLOB_RESULTS} more not shown]` : shown;
}

async function grepTool(wt: Worktree, pattern: string, path?: string, glob?: string): Promise<string> {
  const re = compileRegex(pattern);
  if (re instanceof Error) throw new ToolInputError(`invalid regular expression ${JSON.stringify(pattern)}: ${re.message}`);
  const filter = glob ? compileGlob(glob) : undefined;
  const target = await wt.resolve(path ?? '');
  const st = await stat(target);
  const files = st.isDirectory()
    ? (await walk(wt, target, 64)).entries.filter((e) => !e.dir)
    : [{ abs: target, rel: wt.relative(target), dir: false, depth: 0 }];
  const rows: string[] = [];
  let total = 0;
  for (const f of files) {
    if (filter && !filter(st.isDirectory() ? relative(target, f.abs).split(sep).join('/') : f.rel)) continue;
    // Regular files only (a FIFO in the tree would block a plain read); links were checked by walk.
    const buf = await realpath(f.abs)
      .then((real) => readRegularFile(wt.root, real, f.rel, MAX_FILE_BYTES))
      .catch(() => undefined);
    if (!buf || buf.includes(0)) continue;
    splitLines(buf.toString('utf8')).forEach((line, i) => {
      if (!re.test(line)) return;
      total++;
      if (rows.length < MAX_GREP_MATCHES) rows.push(`${f.rel}:${i + 1}: ${cut(line)}`);
    });
  }
  if (total === 0) return `No matches for ${pattern}`;
  return total > rows.length ? `${rows.join('\n')}\n[${total - rows.length} more matches not shown]` : rows.join('\n');
}

async function listTool(wt: Worktree, path?: string, depth?: number): Promise<string> {
  const base = await wt.resolve(path ?? '');
  const st = await stat(base);
  if (!st.isDirectory()) throw new ToolInputError(`${path} is not a directory`);
  const maxDepth = Math.min(Math.max(1, depth ?? 2), 16);
  const { entries } = await walk(wt, base, maxDepth);
  if (entries.length === 0) return `(${path || '.'} is empty)`;
  // Tree order: depth-first by path.
  const sorted = entries.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const lines = sorted.slice(0, MAX_LIST_ENTRIES).map((e) => `${'  '.repeat(e.depth - 1)}${e.rel.slice(e.rel.lastIndexOf('/') + 1)}${e.dir ? '/' : ''}`);
  if (sorted.length > MAX_LIST_ENTRIES) lines.push(`[${sorted.length - MAX_LIST_ENTRIES} more entries not shown]`);
  return lines.join('\n');
}

async function editTool(wt: Worktree, path: string, oldString: string, newString: string): Promise<string> {
  const { abs, text } = await readText(wt, path);
  if (oldString === '') throw new ToolInputError('old_string is empty');
  const count = text.split(oldString).length - 1;
  if (count === 0) return `Error: old_string not found in ${path}`;
  if (count > 1) return `Error: old_string occurs ${count} times in ${path}; include more surrounding text so it is unique`;
  await writeRegularFile(
    wt.root,
    abs,
    path,
    text.replace(oldString, () => newString),
  );
  return `Edited ${path}: replaced 1 occurrence`;
}

async function writeTool(wt: Worktree, path: string, content: string): Promise<string> {
  const abs = await wt.resolve(path);
  if ((await stat(abs).catch(() => undefined))?.isDirectory()) throw new ToolInputError(`${path} is a directory`);
  await writeRegularFile(wt.root, abs, path, content);
  return `Wrote ${Buffer.byteLength(content)} bytes to ${path}`;
}

/** A minimal command environment: no variable of the parent (so no API key) reaches a command. */
export function commandEnvFor(root: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: root, LANG: 'C.UTF-8', TERM: 'dumb', ...extra };
}

let defaultSandbox: CommandSandbox | undefined;

/** The sandbox commands use when the caller passes none: bubblewrap found on the standard PATH. */
export function defaultCommandSandbox(): CommandSandbox {
  defaultSandbox ??= createCommandSandbox();
  return defaultSandbox;
}

async function commandTool(ctx: WorkspaceToolContext, shell: 'sh' | 'bash', command: string, timeoutArg?: number): Promise<string> {
  const timeoutMs = Math.min(Math.max(1, timeoutArg ?? ctx.commandTimeoutMs ?? 30_000), MAX_COMMAND_TIMEOUT_MS);
  const cap = ctx.maxOutputBytes ?? 16_384;
  const sandbox = ctx.sandbox ?? defaultCommandSandbox();
  const ready = await sandbox.ready();
  if (!ready.ok) return `Error: ${ready.message}`;
  const r = await sandbox.run({
    shell,
    command,
    root: ctx.worktree.root,
    env: ctx.commandEnv ?? commandEnvFor(ctx.worktree.root),
    timeoutMs,
    maxOutputBytes: cap,
    signal: ctx.signal,
  });
  if (r.spawnError) return `Error: cannot run ${shell}: ${r.spawnError}`;
  if (r.diskBudgetExceeded)
    throw new CaseStopError('DISK_BUDGET', 'disk budget exceeded: the command was stopped because the workspace grew past the disk budget of this case');
  // The worktree's absolute path is random per run; showing it as "." keeps runs replayable
  // (the recording hashes what the model saw) and keeps host paths out of traces.
  let out = r.output.split(ctx.worktree.root).join('.');
  if (r.truncated) out += `\n[output truncated at ${cap} bytes]`;
  const head = r.timedOut
    ? `Error: command timed out after ${timeoutMs} ms`
    : r.cancelled
      ? 'Error: command cancelled'
      : r.exitCode !== 0
        ? `Error: command exited with code ${r.exitCode ?? r.signal}`
        : '';
  return head ? (out ? `${head}\n${out}` : head) : out || '(no output)';
}
