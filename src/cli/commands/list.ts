import { resolve } from 'node:path';
import { Option } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { discoverFixtures, mergeSuites } from '../../fixtures/catalog.js';
import { selectCases } from '../../fixtures/select.js';
import type { Case } from '../../types/case.js';
import { capHeapForLargeFiles } from './_heap.js';
import { commaList } from './_comma-list.js';

interface ListOptions {
  suite?: string[];
  id?: string[];
  tag?: string[];
  output: 'table' | 'json';
  bundled: boolean;
}

/** The table, a line at a time (100,000 cases never exist as one string or as rows of cells). */
function printTable(cases: Case[], out: (line: string) => void): void {
  const header = ['ID', 'SUITE', 'DIALECT', 'MODE', 'SOURCE', 'TAGS'];
  const cells = (c: Case): string[] => [c.id, c.suite ?? '', c.dialect, c.mode, c.source.source, c.tags.join(',')];
  const widths = header.map((h) => h.length);
  for (const c of cases) for (const [i, cell] of cells(c).entries()) widths[i] = Math.max(widths[i]!, cell.length);
  const fmt = (r: string[]): string =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  out(fmt(header));
  for (const c of cases) out(fmt(cells(c)));
}

/** `JSON.stringify(cases, null, 2)`, byte for byte, a case at a time. */
function printJson(cases: Case[], out: (line: string) => void): void {
  if (cases.length === 0) return out('[]');
  out('[');
  for (const [i, c] of cases.entries()) out(`  ${JSON.stringify(c, null, 2).replace(/\n/g, '\n  ')}${i < cases.length - 1 ? ',' : ''}`);
  out(']');
}

async function listCases(ctx: CliContext, paths: string[], o: ListOptions): Promise<number> {
  const onWarning = (msg: string): void => ctx.warn(msg);
  capHeapForLargeFiles(ctx.cwd, paths);
  const all =
    paths.length > 0
      ? mergeSuites(
          (await import('../../fixtures/discover.js')).loadCasesFromPaths(
            paths.map((p) => resolve(ctx.cwd, p)),
            { onWarning },
          ),
        ).cases
      : (await discoverFixtures({ projectDir: ctx.projectDir, env: ctx.env, includeBundled: o.bundled, onWarning })).cases;
  const cases = selectCases(all, { suites: o.suite, ids: o.id, tags: o.tag });
  if (o.output === 'json') {
    printJson(cases, (s) => ctx.out(s));
    return 0;
  }
  if (cases.length === 0) {
    ctx.err('no fixtures found (bundled catalog off, or nothing matches the selection)');
    return 0;
  }
  printTable(cases, (s) => ctx.out(s));
  return 0;
}

export const listCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('list')
      .description('List discovered fixtures (bundled < plugins < global < local, merged by id)')
      .argument('[paths...]', 'fixture files or directories to list instead of discovering the project')
      .option('--suite <names>', 'only these suites (comma-separated or repeated)', commaList)
      .option('--id <ids>', 'only these case ids (comma-separated or repeated)', commaList)
      .option('--tag <tags>', 'only cases with one of these tags (comma-separated or repeated)', commaList)
      .addOption(new Option('--output <format>', 'table or json (json prints the full normalised cases)').choices(['table', 'json']).default('table'))
      .option('--no-bundled', 'leave out the bundled catalog')
      .addHelpText(
        'after',
        `
Sources, later winning by case id:
  bundled   the package's fixtures/{replio,runspec,turnstone}/
  plugins   modules in runspec.toml [fixtures] plugins exporting registerFixtures(fixtures)
  global    $XDG_CONFIG_HOME/runspec-eval/eval/*.{json,toml} (default ~/.config/runspec-eval/eval)
  local     <project>/runspec_evals.toml [[suite]]s (a [sync] dir's suite replaces the local one
            of the same name), then <project>/.runspec/eval/*.{json,toml}
An unknown field is an error (exit 2, file:line and a did-you-mean); fields named x_* are
extension fields and are ignored. Warnings (an empty file) go to stderr.

Examples:
  runspec-eval --path ./proj list
  runspec-eval list --suite fleet --output json
  runspec-eval list evals/smoke.toml`,
      )
      .action(action(getContext, setExit, (ctx, paths: string[], o: ListOptions) => listCases(ctx, paths, o)));
  },
};
