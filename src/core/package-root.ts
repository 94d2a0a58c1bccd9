import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'runspec-eval';

/**
 * The package's root folder (holds package.json, fixtures/, examples/): the nearest folder above this
 * module whose package.json is ours. Found by walking up, so it holds from src/ (tests), from dist/
 * (installed) and from the bundled CLI (dist/cli/chunks/), whatever depth the code sits at.
 * @example join(PACKAGE_ROOT, 'fixtures', 'toolsets', 'fleet.toml')
 */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The package's version, from its package.json. */
export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir;
      } catch {
        // Not ours (unreadable): keep walking up.
      }
    }
    if (dirname(dir) === dir) throw new Error(`${PACKAGE_NAME}: no package.json of ours above ${from}`);
  }
}
