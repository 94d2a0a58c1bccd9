// The import-direction checker behind test/architecture.test.ts: parses each source file with oxc-parser
// (static imports, re-exports, side-effect imports and dynamic `import()` with a literal specifier) and checks
// every edge between src/ modules against the graph in STYLE.md "Which way imports point".
import { posix } from 'node:path';
import { parseSync } from 'oxc-parser';

/**
 * STYLE.md "Which way imports point", as direct edges:
 *
 *   cli · console ──► app ──► engine · traces · report · optimize · config
 *   engine · traces · report · optimize ──► scoring ──► fixtures · toolset ──► types · errors · semconv
 *   engine ──► providers;  engine · traces ──► telemetry;  the edges (HTTP, OTel SDK, sockets) ──► leaves only
 *   every layer ──► core ──► types · errors
 *
 * A module may import what it reaches along these arrows (a layer may skip the layers in between). Nothing
 * imports cli/ or console/. `index` (src/index.ts, the public API) sits above everything but the front ends,
 * and nothing inside src/ imports it.
 */
export const EDGES: Readonly<Record<string, readonly string[]>> = {
  index: ['app', 'engine', 'traces', 'report', 'optimize', 'config', 'scoring', 'fixtures', 'toolset', 'providers', 'telemetry'],
  cli: ['app'],
  console: ['app'],
  vitest: ['app'],
  app: ['engine', 'traces', 'report', 'optimize', 'config'],
  engine: ['scoring', 'providers', 'telemetry'],
  traces: ['scoring', 'telemetry'],
  report: ['scoring'],
  optimize: ['scoring'],
  config: [],
  scoring: ['fixtures', 'toolset'],
  fixtures: ['types', 'errors', 'semconv'],
  toolset: ['types', 'errors', 'semconv'],
  // The edges (HTTP, OTel SDK, sockets) import leaves only.
  providers: ['types', 'errors', 'semconv'],
  telemetry: ['types', 'errors', 'semconv'],
  core: ['types', 'errors'],
  types: [],
  errors: [],
  semconv: [],
};

/** Every module except these may import core/ ("every layer ──► core"). */
const NOT_ABOVE_CORE = new Set(['core', 'types', 'errors', 'semconv']);

function closure(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const reach = (m: string, seen: Set<string>): void => {
    const direct = [...(EDGES[m] ?? []), ...(NOT_ABOVE_CORE.has(m) ? [] : ['core'])];
    for (const next of direct) {
      if (seen.has(next)) continue;
      seen.add(next);
      reach(next, seen);
    }
  };
  for (const m of Object.keys(EDGES)) {
    const seen = new Set<string>();
    reach(m, seen);
    out.set(m, seen);
  }
  return out;
}

export const ALLOWED: ReadonlyMap<string, ReadonlySet<string>> = closure();

export interface SourceFile {
  /** Path relative to src/, with forward slashes: `engine/loop.ts`, `index.ts`. */
  path: string;
  text: string;
}

export interface ImportEdge {
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file relative to src/. */
  target: string;
  dynamic: boolean;
}

/** The module a src-relative path belongs to: its first folder, or the file name for top-level files. */
export function moduleOf(path: string): string {
  const first = path.split('/')[0] ?? path;
  return first.replace(/\.ts$/, '');
}

/** Relative imports of one file (static, re-export, side-effect, and literal dynamic `import()`). */
export function importsOf(file: SourceFile): ImportEdge[] {
  const parsed = parseSync(file.path, file.text, { lang: 'ts', sourceType: 'module' });
  if (parsed.errors.length > 0) throw new Error(`${file.path}: cannot parse: ${parsed.errors[0]?.message ?? ''}`);
  const specs: { specifier: string; dynamic: boolean }[] = [];
  for (const imp of parsed.module.staticImports) specs.push({ specifier: imp.moduleRequest.value, dynamic: false });
  for (const exp of parsed.module.staticExports) {
    for (const entry of exp.entries) if (entry.moduleRequest) specs.push({ specifier: entry.moduleRequest.value, dynamic: false });
  }
  for (const dyn of parsed.module.dynamicImports) {
    const arg = file.text.slice(dyn.moduleRequest.start, dyn.moduleRequest.end).trim();
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(arg);
    // A computed specifier (a user's fixture file) cannot name a src/ module by accident; a literal one can.
    if (literal?.[2] !== undefined) specs.push({ specifier: literal[2], dynamic: true });
  }
  const dir = posix.dirname(file.path);
  return specs
    .filter((s) => s.specifier.startsWith('.'))
    .map((s) => ({
      from: file.path,
      specifier: s.specifier,
      target: posix.normalize(posix.join(dir, s.specifier)).replace(/\.js$/, '.ts'),
      dynamic: s.dynamic,
    }));
}

/** Dynamic `import()` calls whose specifier is computed (not a string literal), as `file: expression`. */
export function computedImports(file: SourceFile): string[] {
  const parsed = parseSync(file.path, file.text, { lang: 'ts', sourceType: 'module' });
  return parsed.module.dynamicImports
    .map((dyn) => file.text.slice(dyn.moduleRequest.start, dyn.moduleRequest.end).trim())
    .filter((arg) => !/^(['"`])([^'"`$]*)\1$/.test(arg))
    .map((arg) => `${file.path}: ${arg}`);
}

/** One line per import that breaks STYLE.md's direction: `engine/x.ts imports cli/ ('../cli/y.js')`. */
export function violations(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const from = moduleOf(file.path);
    for (const edge of importsOf(file)) {
      if (edge.target.startsWith('../')) continue; // outside src/ (package.json and the like)
      const to = moduleOf(edge.target);
      if (to === from) continue;
      if (ALLOWED.get(from)?.has(to)) continue;
      out.push(`${file.path} imports ${to}/ (${edge.dynamic ? 'dynamic ' : ''}'${edge.specifier}')`);
    }
  }
  return out;
}

/** Module-level pairs (`scoring -> config`) of a list of violations. */
export function pairsOf(lines: readonly string[]): Set<string> {
  const pairs = new Set<string>();
  for (const line of lines) {
    const m = /^(\S+) imports ([^/]+)\//.exec(line);
    if (m?.[1] && m[2]) pairs.add(`${moduleOf(m[1])} -> ${m[2]}`);
  }
  return pairs;
}
