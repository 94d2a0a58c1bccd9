import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED, computedImports, EDGES, importsOf, moduleOf, pairsOf, violations, type SourceFile } from './_architecture.js';
import { REPO_ROOT } from './helpers/run-cli.js';

const SRC = join(REPO_ROOT, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function sources(): SourceFile[] {
  return walk(SRC).map((f) => ({ path: relative(SRC, f).split('\\').join('/'), text: readFileSync(f, 'utf8') }));
}

/**
 * Imports in today's code that STYLE.md's graph forbids, as module pairs. This list only shrinks: a new pair
 * fails the test, and so does a pair that no longer occurs (delete its line). Issue 11 (core/, settings resolver)
 * owns moving these down.
 */
const KNOWN_VIOLATIONS = new Set<string>([
  'fixtures -> config', // loadConfigFile ([fixtures] plugins, [sync] dir)
  'telemetry -> config', // TelemetryConfig type
  'telemetry -> scoring', // argument hashes, isJudged (issue 13)
  // `runspec-eval ui` starts the second front end: the one entry point from cli/ into console/ (issue 17).
  'cli -> console',
]);

describe('architecture: imports point the way STYLE.md says', () => {
  const files = sources();

  it('places every source file in a module of the graph', () => {
    expect(files.map((f) => moduleOf(f.path)).filter((m) => !(m in EDGES))).toEqual([]);
  });

  it('has no import against the graph, static or dynamic, beyond the known list', () => {
    const found = violations(files);
    const pairs = pairsOf(found);
    const unexpected = found.filter((line) => !KNOWN_VIOLATIONS.has([...pairsOf([line])][0] ?? ''));
    expect(unexpected).toEqual([]);
    const fixed = [...KNOWN_VIOLATIONS].filter((p) => !pairs.has(p));
    expect(fixed, 'these pairs no longer occur: delete them from KNOWN_VIOLATIONS').toEqual([]);
  });

  it('computes an import() specifier only to load a user file (the checker cannot follow a computed one)', () => {
    expect(files.flatMap(computedImports).sort()).toEqual(
      // A module target's file, and tsx (an optional peer) to load a .ts one.
      ['engine/targets/module.ts: TSX_API', 'engine/targets/module.ts: url', 'fixtures/discover.ts: pathToFileURL(file).href'],
    );
  });

  it('never imports src/index.ts (the public API) from inside src/', () => {
    const offenders = files.flatMap((f) =>
      importsOf(f)
        .filter((e) => e.target === 'index.ts')
        .map((e) => `${f.path} (${e.specifier})`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps library code on the OpenTelemetry API: only telemetry/ (and the front ends above app/) touch the SDK', () => {
    const sdkUsers = new Set(['telemetry', 'traces', 'app', 'cli', 'console']);
    const offenders = files.filter(
      (f) => !sdkUsers.has(moduleOf(f.path)) && /from\s+['"]@opentelemetry\/(sdk-|exporter-)|import\(\s*['"]@opentelemetry\/(sdk-|exporter-)/.test(f.text),
    );
    expect(offenders.map((f) => f.path)).toEqual([]);
  });
});

describe('architecture checker', () => {
  const file = (path: string, text: string): SourceFile => ({ path, text });

  it('reads the graph as STYLE.md states it', () => {
    const may = (from: string, to: string): boolean => ALLOWED.get(from)?.has(to) ?? false;
    expect(may('cli', 'app')).toBe(true);
    expect(may('cli', 'engine')).toBe(true); // through app
    expect(may('console', 'report')).toBe(true);
    expect(may('app', 'cli')).toBe(false);
    expect(may('app', 'console')).toBe(false);
    expect(may('cli', 'console')).toBe(false);
    expect(may('engine', 'providers')).toBe(true);
    expect(may('engine', 'telemetry')).toBe(true);
    expect(may('traces', 'telemetry')).toBe(true);
    expect(may('report', 'telemetry')).toBe(false);
    expect(may('scoring', 'providers')).toBe(false);
    expect(may('scoring', 'telemetry')).toBe(false);
    expect(may('scoring', 'toolset')).toBe(true);
    expect(may('scoring', 'engine')).toBe(false);
    expect(may('engine', 'config')).toBe(false); // config sits beside engine, under app
    expect(may('app', 'config')).toBe(true);
    expect(may('providers', 'scoring')).toBe(false); // edges import leaves only
    expect(may('telemetry', 'semconv')).toBe(true);
    for (const m of ['cli', 'console', 'app', 'engine', 'scoring', 'toolset', 'config', 'providers']) expect(may(m, 'core')).toBe(true);
    expect(may('core', 'types')).toBe(true);
    expect(may('core', 'errors')).toBe(true);
    expect(may('core', 'scoring')).toBe(false);
    expect(may('core', 'semconv')).toBe(false);
    expect(may('types', 'errors')).toBe(false);
    expect(may('index', 'cli')).toBe(false);
  });

  it('fails on a deliberately added upward static import', () => {
    const files = [file('scoring/verdict.ts', "import { runCase } from '../engine/run-case.js';\nexport const x = runCase;\n")];
    expect(violations(files)).toEqual(["scoring/verdict.ts imports engine/ ('../engine/run-case.js')"]);
  });

  it('fails on a dynamic import(), a re-export, a type-only and a side-effect import', () => {
    const files = [
      file(
        'engine/loop.ts',
        [
          "import type { Command } from '../cli/commands/index.js';",
          "export { renderHtml } from '../report/html.js';",
          "import '../app/register.js';",
          'export async function f(): Promise<unknown> {',
          "  const m = await import('../console/server.js');",
          '  const n = await import(`../app/run-suite.js`);',
          '  return [m, n];',
          '}',
        ].join('\n'),
      ),
    ];
    expect(violations(files)).toEqual([
      "engine/loop.ts imports cli/ ('../cli/commands/index.js')",
      "engine/loop.ts imports app/ ('../app/register.js')",
      "engine/loop.ts imports report/ ('../report/html.js')",
      "engine/loop.ts imports console/ (dynamic '../console/server.js')",
      "engine/loop.ts imports app/ (dynamic '../app/run-suite.js')",
    ]);
  });

  it('ignores imports written in comments and strings, and allows downward and same-module ones', () => {
    const files = [
      file(
        'core/canonical-json.ts',
        [
          "// import { x } from '../engine/x.js';",
          'const s = "import(\'../cli/main.js\')";',
          "import type { Case } from '../types/case.js';",
          "import { RunspecError } from '../errors.js';",
          "import { sortKeys } from './_sort.js';",
          'export const y = [s, sortKeys, RunspecError] as unknown as Case;',
        ].join('\n'),
      ),
      file('cli/commands/ui.ts', "export const load = async () => (await import('../../app/console.js')).start;\n"),
    ];
    expect(violations(files)).toEqual([]);
  });

  it('lists computed import() specifiers', () => {
    const f = file('engine/x.ts', "export const a = async (n: string) => [await import(n), await import('./y.js'), await import(`./${n}.js`)];\n");
    expect(computedImports(f)).toEqual(['engine/x.ts: n', 'engine/x.ts: `./${n}.js`']);
  });

  it('flags an import of cli/ or console/ from anywhere, including the public index', () => {
    const files = [file('index.ts', "export { main } from './cli/main.js';\n"), file('app/run.ts', "export { serve } from '../console/server.js';\n")];
    expect(violations(files)).toEqual(["index.ts imports cli/ ('./cli/main.js')", "app/run.ts imports console/ ('../console/server.js')"]);
  });
});
