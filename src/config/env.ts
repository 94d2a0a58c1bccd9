// The only reader of the process environment: callers pass `process.env` (tests pass a plain object).

import type { EnvSource } from '../types/env.js';

export type { EnvSource } from '../types/env.js';

export interface Env {
  /** The value, or undefined when unset or empty (OTel semantics: empty means unset). */
  get(name: string): string | undefined;
  /** A URL value, or undefined (with a warning) when it does not parse. */
  url(name: string): string | undefined;
  int(name: string): number | undefined;
  bool(name: string): boolean | undefined;
  /** Warnings collected while reading bad values (printed by the CLI). */
  readonly warnings: string[];
  readonly raw: EnvSource;
}

export function readEnv(source: EnvSource): Env {
  const warnings: string[] = [];
  const get = (name: string): string | undefined => {
    const v = source[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  return {
    raw: source,
    warnings,
    get,
    url(name) {
      const v = get(name);
      if (v === undefined) return undefined;
      try {
        new URL(v);
        return v;
      } catch {
        warnings.push(`${name}: not a URL (${JSON.stringify(v)}); ignored`);
        return undefined;
      }
    },
    int(name) {
      const v = get(name);
      if (v === undefined) return undefined;
      if (!/^-?\d+$/.test(v)) {
        warnings.push(`${name}: expected an integer (got ${JSON.stringify(v)}); ignored`);
        return undefined;
      }
      return Number(v);
    },
    bool(name) {
      const v = get(name)?.toLowerCase();
      if (v === undefined) return undefined;
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      warnings.push(`${name}: expected true or false (got ${JSON.stringify(v)}); ignored`);
      return undefined;
    },
  };
}

// Our own variables with a meaning beyond their text: each read here, and nowhere else by name.

/** RUNSPEC_HASH_KEY: the key of hashed argument capture (secret: never print). */
export function hashKeyOf(env: Env): string | undefined {
  return env.get('RUNSPEC_HASH_KEY');
}

/** RUNSPEC_MAX_RESPONSE_BYTES: the largest response body the HTTP client reads. */
export function maxResponseBytesOf(env: Env): number | undefined {
  return env.int('RUNSPEC_MAX_RESPONSE_BYTES');
}
