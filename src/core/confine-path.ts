import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from './path-inside.js';

// Path confinement: the one guard behind every path a less trusted party names (a model's tool call in a
// worktree, the console page's file paths, a saved report's name). The threat is a path that leads out of
// the root: `..`, an absolute path elsewhere, a symlink that points out (also chained ones), a dangling
// symlink a write would follow to create a file outside. The checks run in this order: lexical containment
// first (nothing outside is ever touched, so the answer is the same whether or not it exists), then the
// realpath of the deepest existing ancestor must still be inside; links are never followed out.

/** A path that is or could lead outside its root. The message never quotes a link's target. */
export class PathRefusedError extends Error {}

const MAX_PATH_CHARS = 4096;

export interface ConfineOptions {
  /** Accept an absolute path when it lies inside the root (the console); the worktree tools refuse them. */
  allowAbsolute?: boolean;
  /** What the root is called in messages. @default 'workspace' */
  rootName?: string;
}

/**
 * The absolute path of `path` inside `root` (a real path), with every existing component resolved; a
 * missing tail is joined on unresolved. Throws PathRefusedError for anything that is or could lead outside.
 * @example await resolveInside('/tmp/wt', 'src/app.py') // '/tmp/wt/src/app.py'
 */
export async function resolveInside(root: string, path: string, opts: ConfineOptions = {}): Promise<string> {
  const name = opts.rootName ?? 'workspace';
  if (path.includes('\0')) throw new PathRefusedError('paths may not contain NUL characters');
  if (path.length > MAX_PATH_CHARS) throw new PathRefusedError(`path is too long (${path.length} characters)`);
  const p = path.trim();
  if (p === '' || p === '.' || p === './') return root;
  if (isAbsolute(p) && !opts.allowAbsolute) throw new PathRefusedError(`absolute paths are not allowed (${p}); use a path relative to the ${name} root`);
  const abs = resolve(root, p);
  if (!isInside(root, abs)) throw new PathRefusedError(`path escapes the ${name}: ${p}`);
  // The deepest ancestor that exists (lstat: a dangling symlink exists as a link).
  let probe = abs;
  let rest = '';
  for (let i = 0; i < MAX_PATH_CHARS; i++) {
    const st = await lstat(probe).catch(() => undefined);
    if (st) break;
    const up = dirname(probe);
    if (up === probe) break;
    rest = rest ? join(probe.slice(up.length + 1), rest) : probe.slice(up.length + 1);
    probe = up;
  }
  let real: string;
  try {
    real = await realpath(probe);
  } catch {
    // Exists as a link but does not resolve: dangling, or a chain that ends nowhere or loops.
    throw new PathRefusedError(`path goes through a symlink that points nowhere: ${p}`);
  }
  if (!isInside(root, real)) throw new PathRefusedError(`path escapes the ${name} through a symlink: ${p}`);
  return rest ? join(real, rest) : real;
}
