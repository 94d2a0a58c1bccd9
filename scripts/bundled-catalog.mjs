// Build step (after tsc): write dist/fixtures/bundled-catalog.json, the bundled fixtures already loaded,
// so `runspec-eval list` need not load zod and the parsers at start-up (src/fixtures/bundled.ts).
// A bundled fixture that does not load leaves no catalog: the CLI then loads the files and reports it.
import { rmSync, writeFileSync } from 'node:fs';
import { BUNDLED_FIXTURES_DIR, bundledFiles, loadBundledSuites } from '../dist/fixtures/catalog.js';
import { BUNDLED_CATALOG_FILE, bundledCatalogText } from '../dist/fixtures/bundled.js';

const warnings = [];
let text;
try {
  const files = bundledFiles(BUNDLED_FIXTURES_DIR);
  const suites = await loadBundledSuites(BUNDLED_FIXTURES_DIR, (w) => warnings.push(w));
  text = bundledCatalogText(BUNDLED_FIXTURES_DIR, files, suites, warnings);
  if (text === undefined) process.stderr.write('bundled-catalog: the cases do not survive JSON exactly; no catalog written\n');
} catch (err) {
  process.stderr.write(`bundled-catalog: the bundled fixtures do not load (${err instanceof Error ? err.message : String(err)}); no catalog written\n`);
}
if (text === undefined) rmSync(BUNDLED_CATALOG_FILE, { force: true });
else writeFileSync(BUNDLED_CATALOG_FILE, text);
