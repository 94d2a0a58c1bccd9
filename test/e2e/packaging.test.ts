// The published package: what `npm pack` ships and how package.json presents the library (after `npm run build`).
// The packed and installed package itself is driven by test/packed/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';

interface PackReport {
  files: { path: string; mode: number }[];
  unpackedSize: number;
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  scripts: Record<string, string>;
  files: string[];
  sideEffects: unknown;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
};

/** What `npm pack` would ship (dist/ as built now). */
function packReport(): PackReport {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  return (JSON.parse(out) as PackReport[])[0]!;
}

/** Unpacked size cap: 5.0 MB measured without source maps (13.1 MB with them, 8.6 MB of it maps); 3.5 MB of it is the CLI bundle. */
const MAX_UNPACKED_BYTES = 6 * 1024 * 1024;

/**
 * Chunks of a bundle that are a CommonJS package wrapped by esbuild (`export default require_x()`) and that
 * another chunk takes named exports from: those names are undefined at run time. With splitting, esbuild
 * emits such a chunk for a CommonJS package reached by a dynamic import().
 */
export function commonJsChunkMisuse(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.js')) files.push(p);
    }
  };
  walk(dir);
  const wrapped = files.filter((f) => /^export default require_\w+\(\);?\s*$/m.test(readFileSync(f, 'utf8'))).map((f) => basename(f));
  const found: string[] = [];
  for (const importer of files) {
    const text = readFileSync(importer, 'utf8');
    for (const chunk of wrapped) {
      const spec = `"\\./(?:chunks/)?${chunk.replace(/[.$]/g, '\\$&')}"`;
      const named = [
        new RegExp(`\\{[^}]*\\}\\s*=\\s*await import\\(${spec}\\)`), // const { Agent } = await import("./undici-X.js")
        new RegExp(`\\(await import\\(${spec}\\)\\)\\.(?!default\\b)\\w+`), // (await import("./x.js")).Agent
        new RegExp(`import\\(${spec}\\)\\.then\\(\\(?\\{`), // import("./x.js").then(({ Agent }) => ...)
        new RegExp(`import\\s*\\{[^}]*\\}\\s*from\\s*${spec}`), // import { Agent } from "./x.js"
      ];
      if (named.some((re) => re.test(text))) found.push(`${basename(importer)} takes named exports from ${chunk} (export default require_*())`);
    }
  }
  return found;
}

describe('package', () => {
  it('runs the CLI from one bundle: dist/cli/main.js imports only its own chunks and packages left external', () => {
    const main = readFileSync(join(REPO_ROOT, 'dist/cli/main.js'), 'utf8');
    const specifiers = [...main.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => s.startsWith('.') && !s.startsWith('./chunks/'))).toEqual([]);
    expect(specifiers.filter((s) => s === 'zod' || s === 'undici' || s === 'commander')).toEqual([]);
  });

  it('has no bundled CommonJS chunk whose importers take named exports from it (UndiciAgent is not a constructor)', () => {
    expect(commonJsChunkMisuse(join(REPO_ROOT, 'dist/cli'))).toEqual([]);
  });

  it('the guard finds a CommonJS chunk reached by a destructuring dynamic import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-cjs-chunk-'));
    try {
      writeFileSync(join(dir, 'undici-ABC.js'), 'var require_undici = __commonJS({});\nexport default require_undici();\n');
      writeFileSync(join(dir, 'doctor-DEF.js'), 'const { Agent: UndiciAgent, request } = await import("./undici-ABC.js");\n');
      writeFileSync(join(dir, 'fine-GHI.js'), 'const m = await import("./undici-ABC.js");\nm.default;\n');
      expect(commonJsChunkMisuse(dir)).toEqual(['doctor-DEF.js takes named exports from undici-ABC.js (export default require_*())']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds no bundler plugin that replaces a dependency file', () => {
    const script = readFileSync(join(REPO_ROOT, 'scripts/bundle-cli.mjs'), 'utf8');
    expect(script).not.toMatch(/\bplugins\s*:/);
    expect(script).not.toMatch(/onResolve|onLoad/);
  });

  it('ships an executable bin, LICENSE, docs and no source maps, within the size cap', () => {
    const report = packReport();
    const files = new Map(report.files.map((f) => [f.path, f.mode]));
    expect((files.get('dist/cli/main.js') ?? 0) & 0o111, 'dist/cli/main.js is executable').not.toBe(0);
    expect(statSync(join(REPO_ROOT, 'dist/cli/main.js')).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(REPO_ROOT, 'dist/cli/main.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(files.has('LICENSE')).toBe(true);
    expect(readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    // Every docs/ page the README links to ships, so the README's links work in the installed package.
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(0);
    for (const doc of linked) expect(files.has(doc), doc).toBe(true);
    expect([...files.keys()].filter((f) => f.endsWith('.map'))).toEqual([]);
    expect([...files.keys()].filter((f) => f.startsWith('test/') || f.startsWith('node_modules/') || f.startsWith('src/'))).toEqual([]);
    process.stdout.write(`packed: ${files.size} files, ${(report.unpackedSize / 1024 / 1024).toFixed(2)} MB unpacked\n`);
    expect(report.unpackedSize).toBeLessThan(MAX_UNPACKED_BYTES);
  });

  it('takes @opentelemetry/api from the host (a peer), library dependencies as caret ranges the lock pins', () => {
    expect(pkg.peerDependencies['@opentelemetry/api']).toMatch(/^\^1\./);
    expect(pkg.devDependencies['@opentelemetry/api']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies['@opentelemetry/api']).toBeUndefined();
    expect(Object.entries(pkg.dependencies).filter(([, v]) => !/^\^\d+\.\d+\.\d+$/.test(v))).toEqual([]);
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    for (const name of Object.keys(pkg.dependencies)) expect(lock.packages[`node_modules/${name}`]?.version, name).toMatch(/^\d+\.\d+\.\d+$/);
    // require(esm) without a flag (the `default` export condition serves require) came with Node 20.19.
    expect(pkg.engines.node).toBe('>=20.19.0');
    expect(pkg.sideEffects).toEqual(['./dist/cli/main.js']);
    // Only scripts and tests use yaml; luxon (via cron-parser) is gone.
    expect(pkg.dependencies.yaml).toBeUndefined();
    expect(pkg.dependencies['cron-parser']).toBeUndefined();
  });

  it('makes gRPC and the MCP SDK optional peers (kept as dev dependencies for the tests), beside tsx and vitest', () => {
    const optional = ['@grpc/grpc-js', '@opentelemetry/exporter-trace-otlp-grpc', '@modelcontextprotocol/sdk'];
    for (const name of optional) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.peerDependencies[name], name).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(pkg.devDependencies[name], name).toBe(pkg.peerDependencies[name]!.slice(1));
    }
    // tsx (TypeScript module targets) and vitest (runspec-eval/vitest) load only where a user opts in.
    expect(Object.keys(pkg.peerDependenciesMeta).sort()).toEqual([...optional, 'tsx', 'vitest'].sort());
  });

  it('says where it lives and builds on prepare (a git install has a dist/)', () => {
    expect(pkg.repository.url).toBe('git+https://github.com/runspec/runspec-eval.git');
    expect(pkg.homepage).toBe('https://github.com/runspec/runspec-eval#readme');
    expect(pkg.bugs.url).toBe('https://github.com/runspec/runspec-eval/issues');
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.files).toContain('docs');
  });
});
