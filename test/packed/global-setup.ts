// Packed-artifact tier, once for the whole tier: `npm pack` (dist/ as `npm test` just built it), then the
// tarball installed into two empty projects: `bare` without the optional peers, `full` with them.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { emptyProject, install, npm, npmCacheDir, tempRoot } from './_install.js';
import { OPTIONAL_PEER_SPECS } from './_peers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    packed: { tarball: string; bare: string; full: string; cache: string; root: string };
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (!existsSync(join(REPO_ROOT, 'dist/cli/main.js'))) throw new Error('packed tier: run `npm run build` first (npm test does)');
  const root = tempRoot('runspec-packed-');
  const cache = npmCacheDir();
  // --ignore-scripts: `prepare` would build again; dist/ is fresh.
  await npm(['pack', '--ignore-scripts', '--pack-destination', root, '--cache', cache], REPO_ROOT);
  const tarball = join(
    root,
    readdirSync(root).find((f) => f.endsWith('.tgz'))!,
  );
  const bare = emptyProject(root, 'bare');
  const full = emptyProject(root, 'full');
  await Promise.all([install(bare, [tarball], cache), install(full, [tarball, ...OPTIONAL_PEER_SPECS], cache)]);
  project.provide('packed', { tarball, bare, full, cache, root });
  return () => rmSync(root, { recursive: true, force: true });
}
