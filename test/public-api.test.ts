// The public surface: a small root export, subpaths for the rest (package.json "exports"), no module of
// src/ importing through a public index file, and the README's library example type-checking against it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/run-cli.js';

const SRC = join(REPO_ROOT, 'src');
const PUBLIC_HEADER = /^(\/\/ GENERATED[^\n]*\n)?\/\/ Exports added here are public/;

/** Every name `export { ... }` / `export type { ... }` statements of a barrel list (aliases as exported). */
function exportedNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const names: string[] = [];
  for (const m of text.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
    for (const raw of m[1]!.split(',')) {
      const n = raw.replace(/\btype\s+/, '').trim();
      if (n) names.push(n.includes(' as ') ? n.split(' as ')[1]!.trim() : n);
    }
  }
  return names.sort();
}

describe('the root export', () => {
  it('holds the entry points a library user needs, and nothing else (names pinned)', () => {
    expect(exportedNames(join(SRC, 'index.ts'))).toEqual(
      [
        // errors
        'EXIT_CODES',
        'ErrorCode',
        'RunspecError',
        'exitCodeFor',
        'isRunspecError',
        // shapes
        'Case',
        'CaseMode',
        'CaseResult',
        'Dialect',
        'Run',
        'SampleOutcome',
        'Suite',
        'ToolCall',
        'ToolDefinition',
        'ToolMode',
        'Toolset',
        'Usage',
        'VERDICT_CATEGORIES',
        'Verdict',
        'VerdictCategory',
        // load cases and toolsets
        'LoadToolsetOptions',
        'discoverFixtures',
        'loadCasesFromPaths',
        'loadFixtureFile',
        'loadToolset',
        'selectCases',
        // providers
        'Provider',
        'createAnthropicProvider',
        'createMockProvider',
        'createOpenAIProvider',
        'createRecordingProvider',
        'createReplayProvider',
        'resolveProvider',
        // run a case or a suite
        'AppContext',
        'RunCaseOptions',
        'RunEvalOptions',
        'RunEvalOutcome',
        'RunSuiteOptions',
        'SuiteRunResult',
        'runCase',
        'runEvalSuite',
        'runSuite',
        // score a run, results
        'OutputFormat',
        'ResultsDocument',
        'ScoreOptions',
        'aggregateCase',
        'buildResultsDocument',
        'parseResultsDocument',
        'renderDocument',
        'scoreRun',
        // score traces
        'ScoreSummary',
        'ScoreTracesOptions',
        'TraceVerdictLine',
        'scoreTraceFiles',
        'scoreTraces',
      ].sort(),
    );
  });

  it('exports at runtime exactly its value names', async () => {
    const root = (await import('../src/index.js')) as Record<string, unknown>;
    expect(Object.keys(root).sort()).toEqual(
      [
        'EXIT_CODES',
        'RunspecError',
        'VERDICT_CATEGORIES',
        'aggregateCase',
        'buildResultsDocument',
        'createAnthropicProvider',
        'createMockProvider',
        'createOpenAIProvider',
        'createRecordingProvider',
        'createReplayProvider',
        'discoverFixtures',
        'exitCodeFor',
        'isRunspecError',
        'loadCasesFromPaths',
        'loadFixtureFile',
        'loadToolset',
        'parseResultsDocument',
        'renderDocument',
        'resolveProvider',
        'runCase',
        'runEvalSuite',
        'runSuite',
        'scoreRun',
        'scoreTraceFiles',
        'scoreTraces',
        'selectCases',
      ].sort(),
    );
  });
});

describe('subpath exports', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string; default: string }> };
  const subpaths = Object.entries(pkg.exports).filter(([k]) => k !== '.' && k !== './package.json');

  it('are the five a user needs beside the root (./vitest for vitest users), each with types and a default condition (require and import)', () => {
    expect(Object.keys(pkg.exports)).toEqual(['.', './traces', './telemetry', './semconv', './report', './vitest', './package.json']);
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    for (const [key, target] of subpaths) {
      expect(target).toEqual({ types: `./dist/${key.slice(2)}/index.d.ts`, default: `./dist/${key.slice(2)}/index.js` });
      expect(readFileSync(join(SRC, key.slice(2), 'index.ts'), 'utf8')).toMatch(PUBLIC_HEADER);
    }
  });

  it('leave every other barrel of src/ unpublished, and say so in its header', () => {
    const barrels = readdirSync(SRC).filter((d) => statSync(join(SRC, d)).isDirectory() && readdirSync(join(SRC, d)).includes('index.ts'));
    const published = barrels.filter((d) => PUBLIC_HEADER.test(readFileSync(join(SRC, d, 'index.ts'), 'utf8')));
    expect(published.sort()).toEqual(['report', 'semconv', 'telemetry', 'traces', 'vitest']);
  });

  const loaders: Record<string, () => Promise<Record<string, unknown>>> = {
    './report': () => import('../src/report/index.js'),
    './semconv': () => import('../src/semconv/index.js'),
    './telemetry': () => import('../src/telemetry/index.js'),
    './traces': () => import('../src/traces/index.js'),
    './vitest': () => import('../src/vitest/index.js'),
  };

  it('load, and each exports what its barrel lists', async () => {
    for (const [key] of subpaths) {
      const mod = await loaders[key]!();
      const listed = exportedNames(join(SRC, key.slice(2), 'index.ts'));
      for (const name of Object.keys(mod)) expect(listed, `${key} exports ${name}`).toContain(name);
    }
  });
});

describe('inside src/', () => {
  it('no module imports values through a public index file (it would load the whole module at start-up)', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) files.push(p);
      }
    };
    walk(SRC);
    const publicIndexes = new Set(files.filter((f) => f.endsWith('index.ts') && PUBLIC_HEADER.test(readFileSync(f, 'utf8'))));
    const offenders: string[] = [];
    for (const f of files) {
      if (f === join(SRC, 'index.ts')) continue;
      const text = readFileSync(f, 'utf8');
      // `import type` is erased at build time and loads nothing, so only value imports count.
      const specs = [
        ...[...text.matchAll(/\b(import|export)(\s+type)?\s+(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)\s+from\s+'(\.[^']+)'/g)]
          .filter((m) => !m[2])
          .map((m) => m[3]!),
        ...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]!),
      ];
      for (const spec of specs) {
        const target = resolve(dirname(f), spec.replace(/\.js$/, '.ts'));
        if (publicIndexes.has(target) && target !== f) offenders.push(`${relative(REPO_ROOT, f)} → ${relative(REPO_ROOT, target)}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe("the README's library example", () => {
  it('type-checks against the root export (strict, noUncheckedIndexedAccess)', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const example = /## Library\n+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'README has a ```ts block under ## Library').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'runspec-readme-'));
    try {
      writeFileSync(join(dir, 'example.mts'), example!);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'es2022',
            lib: ['es2023'],
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            noUncheckedIndexedAccess: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
            paths: { 'runspec-eval': [join(SRC, 'index.ts')], 'runspec-eval/*': [join(SRC, '*/index.ts')] },
          },
          files: ['example.mts'],
        }),
      );
      // TypeScript 7 ships no JS compiler API: the type check runs its binary.
      const tsc = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
