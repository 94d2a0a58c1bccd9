// One error type for bad input and infrastructure failures. Verdicts are data, never errors.

export type ErrorCode =
  | 'USAGE'
  | 'FIXTURE_SYNTAX'
  | 'FIXTURE_SCHEMA'
  | 'FIXTURE_DUPLICATE'
  | 'FIXTURE_PATH'
  | 'FIXTURE_SIZE'
  | 'FIXTURE_NOT_FOUND'
  | 'CONFIG'
  | 'TOOLSET'
  | 'VALIDATE'
  | 'TRACE_INPUT'
  | 'RESULTS'
  | 'PROVIDER'
  | 'PROVIDER_AUTH'
  | 'PROVIDER_TIMEOUT'
  | 'PROVIDER_RESPONSE'
  | 'REPLAY_MISSING'
  | 'REPLAY_STALE'
  | 'MCP'
  | 'COLLECTOR'
  | 'TARGET'
  | 'OUTPUT'
  | 'CANCELLED'
  | 'INTERNAL';

/** Exit code per error code: 2 bad input or usage, 3 infrastructure (provider / collector / an output file that cannot be written). */
export const EXIT_CODES: Record<ErrorCode, 2 | 3> = {
  USAGE: 2,
  FIXTURE_SYNTAX: 2,
  FIXTURE_SCHEMA: 2,
  FIXTURE_DUPLICATE: 2,
  FIXTURE_PATH: 2,
  FIXTURE_SIZE: 2,
  FIXTURE_NOT_FOUND: 2,
  CONFIG: 2,
  TOOLSET: 2,
  VALIDATE: 2,
  TRACE_INPUT: 2,
  RESULTS: 2,
  REPLAY_MISSING: 2,
  REPLAY_STALE: 2,
  PROVIDER: 3,
  PROVIDER_AUTH: 3,
  PROVIDER_TIMEOUT: 3,
  PROVIDER_RESPONSE: 3,
  MCP: 3,
  COLLECTOR: 3,
  TARGET: 3,
  OUTPUT: 3,
  CANCELLED: 3,
  INTERNAL: 3,
};

export class RunspecError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  constructor(code: ErrorCode, message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = opts.hint;
  }
}

export class UsageError extends RunspecError {}
export class FixtureError extends RunspecError {}
export class ConfigError extends RunspecError {}
export class ToolsetError extends RunspecError {}
export class ProviderError extends RunspecError {
  /** HTTP status when the provider answered. */
  readonly status: number | undefined;
  constructor(code: ErrorCode, message: string, opts: { hint?: string; cause?: unknown; status?: number } = {}) {
    super(code, message, opts);
    this.status = opts.status;
  }
}
export class TraceError extends RunspecError {}

export function isRunspecError(err: unknown): err is RunspecError {
  return err instanceof RunspecError;
}

/**
 * The exit code of several outcomes (the runs of `compare`, the schedules of a `schedule run` sweep): bad input
 * (2) first, since nothing else in the sweep can be trusted until it is fixed, then infrastructure (3), then a
 * failed threshold (1), else 0. Every command that combines codes uses this one rule.
 *
 * @example worstExitCode([1, 3, 2]) // 2
 */
export function worstExitCode(codes: Iterable<number>): number {
  const seen = new Set(codes);
  for (const c of [2, 3, 1]) if (seen.has(c)) return c;
  for (const c of seen) if (c !== 0) return c;
  return 0;
}

export function exitCodeFor(err: unknown): number {
  return isRunspecError(err) ? EXIT_CODES[err.code] : 3;
}
