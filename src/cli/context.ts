import { statSync } from 'node:fs';
import { redactUrlsInText } from '../core/redact.js';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import type { EnvSource } from '../config/env.js';

/** What every command gets: where the project is, the environment, and the streams to print to. */
export interface CliContext {
  /** `--path <project>` resolved against the working directory (default: the working directory). */
  projectDir: string;
  cwd: string;
  env: EnvSource;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** What `-` reads (`score -`). */
  stdin: AsyncIterable<Uint8Array>;
  /** The current time (injected by tests; the system clock otherwise). */
  now(): Date;
  debug: boolean;
  /** Print one line to stdout. */
  out(line: string): void;
  /** Print one line to stderr. */
  err(line: string): void;
  /** Print a warning line to stderr (`warning: ...`). */
  warn(line: string): void;
}

export function createContext(opts: {
  cwd: string;
  path?: string;
  env: EnvSource;
  debug: boolean;
  stdout: CliContext['stdout'];
  stderr: CliContext['stderr'];
  stdin?: CliContext['stdin'];
  now?: () => Date;
}): CliContext {
  const stdout = opts.stdout;
  const stderr = opts.stderr;
  const projectDir = resolve(opts.cwd, opts.path ?? '.');
  if (opts.path !== undefined && statSync(projectDir, { throwIfNoEntry: false })?.isFile()) {
    throw new UsageError('USAGE', `--path ${opts.path}: is a file; expected the project directory (the one holding runspec.toml and .runspec/)`, {
      hint: `name a fixture file as a target instead: runspec-eval run ${opts.path}`,
    });
  }
  return {
    projectDir,
    cwd: opts.cwd,
    env: opts.env,
    stdout,
    stderr,
    stdin: opts.stdin ?? process.stdin,
    now: opts.now ?? (() => new Date()),
    debug: opts.debug,
    out: (line) => void stdout.write(line + '\n'),
    // Status and warning lines often quote a URL: a password or key in it never reaches the terminal or a CI log.
    err: (line) => void stderr.write(redactUrlsInText(line) + '\n'),
    warn: (line) => void stderr.write(`warning: ${redactUrlsInText(line)}\n`),
  };
}
