// The packed-artifact tier's installs: `npm pack` of this checkout, installed into empty projects in a temp
// folder, from the warm npm cache (`--prefer-offline`). npm runs with a clean environment: the `npm_*`
// variables an `npm test` run sets (its prefix among them) would point the nested install at this clone.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The npm cache: `npm_config_cache` when set, else npm's default; never a folder inside the clone. */
export function npmCacheDir(): string {
  const fromEnv = process.env.npm_config_cache;
  if (fromEnv) return fromEnv;
  return execFileSync(NPM, ['config', 'get', 'cache'], { env: npmEnv(), encoding: 'utf8' }).trim();
}

/** PATH and HOME only (HOME so npm finds its own default cache and config); no `npm_*` of a parent run. */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() };
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  return { ...env, ...extra };
}

/** Run npm in `cwd`; rejects with its output on a non-zero exit. */
export function npm(args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(NPM, args, { cwd, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`npm ${args.join(' ')} (in ${cwd}) exited ${code}:\n${out.slice(-4000)}`));
    });
  });
}

/** An empty consumer project (ESM, private) under a new temp folder. */
export function emptyProject(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  return dir;
}

/** `npm install` of `specs` into `project`, offline first, from the given cache. */
export function install(project: string, specs: string[], cache: string): Promise<string> {
  return npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--cache', cache, ...specs], project, 600_000);
}

export function tempRoot(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
