import { isAbsolute, resolve } from 'node:path';
import type { EnvSource } from '../config/env.js';

/**
 * What an application use case needs from its front end: where the project is, the environment, and
 * where status lines and warnings go. The CLI passes its context (stderr); the console and library
 * users pass their own sinks. Nothing here prints or exits.
 */
export interface AppContext {
  /** The project directory (runspec.toml, evals/, .runspec/). */
  projectDir: string;
  /** Relative paths in options resolve against this. */
  cwd: string;
  env: EnvSource;
  /** A status line (the CLI prints it to stderr). */
  err(line: string): void;
  /** A warning line (the CLI prints `warning: ...` to stderr). */
  warn(line: string): void;
}

/** Resolve a path against the working directory. */
export function cwdPath(ctx: Pick<AppContext, 'cwd'>, p: string): string {
  return isAbsolute(p) ? p : resolve(ctx.cwd, p);
}
