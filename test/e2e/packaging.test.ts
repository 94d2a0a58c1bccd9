// The published package: what `npm pack` ships and how package.json presents the library (after `npm run build`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';

interface PackFile {
  path: string;
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  sideEffects: unknown;
};

function packedFiles(): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  const [report] = JSON.parse(out) as { files: PackFile[] }[];
  return (report?.files ?? []).map((f) => f.path);
}

describe('package', () => {
  it('runs the CLI from one bundle: dist/cli/main.js imports only its own chunks and packages left external', () => {
    const main = readFileSync(join(REPO_ROOT, 'dist/cli/main.js'), 'utf8');
    const specifiers = [...main.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => s.startsWith('.') && !s.startsWith('./chunks/'))).toEqual([]);
    expect(specifiers.filter((s) => s === 'zod' || s === 'undici' || s === 'commander')).toEqual([]);
  });

  it('ships no dangling source map: every map carries its sources or points at shipped files', () => {
    expect(existsSync(join(REPO_ROOT, 'dist/index.js')), 'run npm run build first').toBe(true);
    const files = packedFiles();
    const shipped = new Set(files);
    const maps = files.filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const dangling: string[] = [];
    for (const map of maps) {
      const m = JSON.parse(readFileSync(join(REPO_ROOT, map), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      m.sources.forEach((src, i) => {
        if (typeof m.sourcesContent?.[i] === 'string') return;
        if (!shipped.has(posix.normalize(posix.join(posix.dirname(map), src)))) dangling.push(`${map} -> ${src}`);
      });
    }
    expect(dangling).toEqual([]);
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('node_modules/'))).toEqual([]);
    // `npm pack --dry-run` takes ~7 s idle and passed 30 s under a full parallel run (its own limit is 60 s).
  }, 90_000);

  it('takes @opentelemetry/api from the host (a peer), library dependencies as caret ranges the lock pins', () => {
    expect(pkg.peerDependencies['@opentelemetry/api']).toMatch(/^\^1\./);
    expect(pkg.devDependencies['@opentelemetry/api']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies['@opentelemetry/api']).toBeUndefined();
    expect(Object.entries(pkg.dependencies).filter(([, v]) => !/^\^\d+\.\d+\.\d+$/.test(v))).toEqual([]);
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    for (const name of Object.keys(pkg.dependencies)) expect(lock.packages[`node_modules/${name}`]?.version, name).toMatch(/^\d+\.\d+\.\d+$/);
    // undici 7 needs Node 20.18.1.
    expect(pkg.engines.node).toBe('>=20.18.1');
    expect(pkg.sideEffects).toEqual(['./dist/cli/main.js']);
    // Only scripts and tests use yaml; luxon (via cron-parser) is gone.
    expect(pkg.dependencies.yaml).toBeUndefined();
    expect(pkg.dependencies['cron-parser']).toBeUndefined();
  });
});
