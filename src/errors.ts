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

export function exitCodeFor(err: unknown): number {
  return isRunspecError(err) ? EXIT_CODES[err.code] : 3;
}
