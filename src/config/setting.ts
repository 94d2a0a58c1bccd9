export type Source = 'flag' | 'env' | 'file' | 'default';

export interface Setting<T> {
  value: T;
  source: Source;
}

/** Precedence: flag > environment > runspec.toml > default. */
export function firstSet<T>(flag: T | undefined, env: T | undefined, file: T | undefined, fallback: T): Setting<T> {
  if (flag !== undefined) return { value: flag, source: 'flag' };
  if (env !== undefined) return { value: env, source: 'env' };
  if (file !== undefined) return { value: file, source: 'file' };
  return { value: fallback, source: 'default' };
}
