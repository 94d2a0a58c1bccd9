// What a command loads before its action runs: the static (non-type) imports reachable from its module. A
// command's --help imports its module only, so a heavy package reached statically (zod, undici, the
// OpenTelemetry API) is start-up time for a line of help; and a run on a model loads nothing of OpenTelemetry
// when telemetry is off. Heavy work belongs behind an `await import()` in the action.
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Specifiers a file's compiled JavaScript imports: static imports and re-exports but `import type` and `export type`. */
function valueImportsOf(path: string): string[] {
  const text = readFileSync(join(SRC, path), 'utf8');
  const parsed = parseSync(path, text, { lang: 'ts', sourceType: 'module' });
  const out: string[] = [];
  // Only `import type` and `export type` are erased: under verbatimModuleSyntax `import { type A } from './a.js'`
  // compiles to `import {} from './a.js'`, which still evaluates a.js.
  const typeOnly = (start: number): boolean => /^(?:import|export)\s+type\s/.test(text.slice(start, start + 16));
  for (const imp of parsed.module.staticImports) {
    if (!typeOnly(imp.start)) out.push(imp.moduleRequest.value);
  }
  for (const exp of parsed.module.staticExports) {
    const request = exp.entries.find((e) => e.moduleRequest)?.moduleRequest;
    if (request && !typeOnly(exp.start)) out.push(request.value);
  }
  return out;
}

/** The src modules and the packages reached from `entry` (src-relative) through value imports, each with the chain that reaches it. */
function reached(entry: string): { modules: Map<string, string>; packages: Map<string, string> } {
  const chains = new Map<string, string>([[entry, entry]]);
  const queue = [entry];
  const packages = new Map<string, string>();
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const spec of valueImportsOf(file)) {
      if (spec.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts');
        if (!chains.has(target)) {
          chains.set(target, `${chains.get(file)} > ${target}`);
          queue.push(target);
        }
      } else if (!spec.startsWith('node:')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, `${chains.get(file)} > ${spec}`);
      }
    }
  }
  return { modules: chains, packages };
}

/** The packages reached from `entry` (src-relative) through value imports, each with the chain that reaches it. */
const packagesReached = (entry: string): Map<string, string> => reached(entry).packages;

const HEAVY = ['zod', 'undici', 'smol-toml', 're2js', '@opentelemetry/api', '@opentelemetry/core', '@opentelemetry/sdk-trace-base'];

/** The heavy packages reached from `entry`, as chains (empty when none is). */
const heavyFrom = (entry: string): string[] => [...packagesReached(entry)].filter(([name]) => HEAVY.includes(name)).map(([, chain]) => chain);

describe('start-up imports', () => {
  it('the entry point reaches no heavy package (top-level --help imports no command module)', () => {
    expect(heavyFrom('cli/main.ts')).toEqual([]);
  });

  it.each(['run', 'score', 'list', 'ci', 'validate', 'schema', 'diff', 'config', 'schedule', 'ui'])(
    '%s --help reaches no heavy package through its module',
    (name) => {
      expect(heavyFrom(`cli/commands/${name}.ts`)).toEqual([]);
    },
  );

  it('a run on a model reaches no OpenTelemetry package (the SDK, exporters and an agent target load on use)', () => {
    const otel = [...packagesReached('app/run-suite.ts')].filter(
      ([name]) => name.startsWith('@opentelemetry/') && name !== '@opentelemetry/semantic-conventions',
    );
    expect(otel.map(([, chain]) => chain)).toEqual([]);
  });

  // A run still loads zod for the fixture schemas, but building the results schema (about 10 ms of CPU) is for
  // reading documents; a run reached it through the report/results.js barrel and `import { type … }`.
  it.each(['app/run-suite.ts', 'cli/commands/_run-io.ts'])('a run does not build the results schema (%s reaches no report/results-schema)', (entry) => {
    expect(reached(entry).modules.get('report/results-schema.ts')).toBeUndefined();
  });

  // `score` reads no results document: its verdict lines and the document it may build need the writers only.
  it.each(['app/score-traces.ts', 'report/verdict-line.ts'])(
    'scoring traces does not build the results schema (%s reaches no report/results-schema)',
    (entry) => {
      expect(reached(entry).modules.get('report/results-schema.ts')).toBeUndefined();
    },
  );

  it('a run loads the progress bar only on a terminal and the report renderers only for a rendered report', () => {
    expect(packagesReached('cli/commands/_run-io.ts').has('cli-progress')).toBe(false);
    expect(valueImportsOf('cli/commands/_run-io.ts')).not.toContain('../../report/render.js');
  });

  it('sees a heavy package through a chain of value imports, and not through a type-only one', () => {
    expect(heavyFrom('report/json.ts')).toEqual([expect.stringMatching(/^report\/json\.ts > .* > zod/)]);
    // run.ts names app/run-suite.js (the engine, undici, zod) for a type only; the run loads it in its action.
    expect(readFileSync(join(SRC, 'cli/commands/run.ts'), 'utf8')).toContain("import type { RunProgress } from '../../app/run-suite.js'");
    expect(valueImportsOf('cli/commands/run.ts')).not.toContain('../../app/run-suite.js');
  });
});
