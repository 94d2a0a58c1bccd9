// The integration tier's OpenTelemetry Collector: built with the official Collector Builder from
// examples/collector/builder-config.yaml, cached under itCacheDir('otelcol', <hash of the manifest and
// `go version`>) so a warm machine (or a fresh clone on it) reuses the binary; Go's module and build caches
// live under itCacheDir('go') too. Idempotent: a finished build is a directory that appears whole (built in
// a sibling temp folder, renamed into place). Also: start a Collector on a config with only environment
// variables set, and the small process/port helpers the Collector and Prometheus tests share.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { itCacheDir } from './cache.js';

const run = promisify(execFile);

export const COLLECTOR_DIR = join(REPO_ROOT, 'examples/collector');
export const MANIFEST = join(COLLECTOR_DIR, 'builder-config.yaml');
export const GATEWAY = join(COLLECTOR_DIR, 'gateway.yaml');

export interface CollectorBuild {
  binary: string;
  /** The core release every component is pinned to (also the builder's version). */
  version: string;
  /** Set when this call built it (a cold build). */
  buildMs?: number;
}

/** Go's caches under the tier's cache, never the user's. */
function goEnv(): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    GOPATH: itCacheDir('go'),
    GOMODCACHE: itCacheDir('go', 'pkg', 'mod'),
    GOCACHE: itCacheDir('go', 'cache'),
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-buildvcs=false -modcacherw',
  };
}

/** The release of the core components in the manifest (the builder is installed at the same one). */
export function manifestVersion(manifest: string): string {
  const m = /go\.opentelemetry\.io\/collector\/receiver\/otlpreceiver (v[0-9.]+)/.exec(manifest);
  if (!m) throw new Error(`${MANIFEST}: no otlpreceiver line to take the release from`);
  return m[1]!;
}

/**
 * The Collector binary for the manifest, built on first use (minutes on two cores: the load_balancing
 * exporter pulls Kubernetes and AWS clients), then taken from the cache.
 */
export async function ensureCollector(): Promise<CollectorBuild> {
  const manifest = readFileSync(MANIFEST, 'utf8');
  const version = manifestVersion(manifest);
  const { stdout: goVersion } = await run('go', ['version'], { env: goEnv() });
  const key = createHash('sha256').update(manifest).update('\n').update(goVersion.trim()).digest('hex').slice(0, 16);
  const home = itCacheDir('otelcol', key);
  const binary = join(home, 'otelcol-runspec', 'otelcol-runspec');
  if (existsSync(binary)) return { binary, version };
  const started = Date.now();
  const builderDir = itCacheDir('otelcol-builder', version);
  const builder = join(builderDir, 'builder');
  if (!existsSync(builder)) {
    await run('go', ['install', `go.opentelemetry.io/collector/cmd/builder@${version}`], { env: { ...goEnv(), GOBIN: builderDir }, maxBuffer: 64 << 20 });
  }
  const work = join(home, `.build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'manifest.yaml'), manifest);
  try {
    await run(builder, ['--config', 'manifest.yaml'], { cwd: work, env: goEnv(), maxBuffer: 64 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`collector build failed: ${e.message}\n${(e.stderr ?? '').slice(-4000)}`);
  }
  renameSync(join(work, 'otelcol-runspec'), join(home, 'otelcol-runspec'));
  rmSync(work, { recursive: true, force: true });
  const buildMs = Date.now() - started;
  writeFileSync(join(home, 'build.json'), JSON.stringify({ version, goVersion: goVersion.trim(), buildMs }) + '\n');
  return { binary, version, buildMs };
}

/** A free loopback TCP port: bind 0, take the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Poll `check` until it returns a value other than undefined, or fail after `timeoutMs` with `what`. */
export async function pollUntil<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A child process whose output is kept, stopped with SIGTERM (SIGKILL after a grace period). */
export interface Proc {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startProc(command: string, args: string[], opts: { env: Record<string, string>; cwd?: string; stdout?: (chunk: string) => void }): Proc {
  const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    if (opts.stdout) opts.stdout(c);
    else out += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

export interface RunningCollector extends Proc {
  /** Lines of the Collector's log that name a deprecated component type (there must be none). */
  deprecations(): string[];
}

/**
 * Run the Collector on a config file with only environment variables set (the file is used as shipped).
 * Resolves once it logs "Everything is ready"; fails with its log if it exits first.
 */
export async function startCollector(binary: string, config: string, env: Record<string, string>, extraArgs: string[] = []): Promise<RunningCollector> {
  const proc = startProc(binary, ['--config', `file:${config}`, ...extraArgs], {
    env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? '/nonexistent', ...env },
  });
  let exitedEarly = false;
  void proc.exited.then(() => {
    exitedEarly = true;
  });
  await pollUntil(
    'the Collector to be ready',
    () => {
      if (exitedEarly) throw new Error(`collector exited:\n${proc.output().slice(-4000)}`);
      return proc.output().includes('Everything is ready') ? true : undefined;
    },
    60_000,
    100,
  ).catch((err: Error) => {
    void proc.stop('SIGKILL');
    throw new Error(`${err.message}\n${proc.output().slice(-4000)}`);
  });
  return {
    ...proc,
    deprecations: () =>
      proc
        .output()
        .split('\n')
        .filter((l) => /deprecat/i.test(l)),
  };
}
