import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the integration tier keeps what it installs (venvs, the Collector binary, pip/Go caches), outside the
 * clone so a fresh clone on a warm machine reuses it. `RUNSPEC_IT_CACHE` overrides the default
 * `$XDG_CACHE_HOME/runspec-eval-it` (or `~/.cache/runspec-eval-it`).
 */
export function itCacheDir(...parts: string[]): string {
  const base = process.env.RUNSPEC_IT_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'runspec-eval-it');
  const dir = join(base, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}
