import { isAbsolute, relative, sep } from 'node:path';

// Whether a path stays inside a directory: the one check behind the workspace tools' path guards, the
// worktree's case files, and the console's project-confined paths.

/**
 * True when `rel` (a relative path, already normalised) climbs out of its base: `..`, `../x` or an
 * absolute path. A name that merely starts with dots (`..notes`) stays inside.
 * @example escapesBase('../etc/passwd') // true
 */
export function escapesBase(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/**
 * True when the absolute path `target` is `base` or lies under it (lexically: resolve symlinks first).
 * @example isInside('/work/p', '/work/p/src/a.ts') // true
 */
export function isInside(base: string, target: string): boolean {
  return !escapesBase(relative(base, target));
}
