// The CLI as one file (plus lazily loaded chunks): `npm run build` runs tsc (dist/, the library and its
// types), then this, which bundles dist/cli/main.js over itself with esbuild. Node 20 has no module
// compile cache, and resolving, reading and linking ~240 ES modules (ours, zod's, undici's) was most of a
// command's start-up; one file starts in about two thirds of the time (see bench/, startup rows).
//
// Bundled: our code and the pure-JS dependencies the commands load on every run, as the packages ship them
// (no plugin rewrites or trims a dependency's files). Left as imports: @opentelemetry/* (the API is a peer
// dependency whose one global instance must be shared with the host; the SDK and exporters load only when
// traces are exported), protobufjs, gRPC and the MCP SDK (optional peers, loaded on use; gRPC reads .proto
// files next to its own modules).
//
// A bundled CommonJS package must never be reached by a dynamic import() of the package itself: with
// splitting, esbuild puts it into a chunk ending `export default require_x()`, whose namespace has no named
// exports (`const { Agent } = await import('undici')` gave undefined: "UndiciAgent is not a constructor" in
// Phoenix, LangSmith and doctor, while every test of the sources passed). Such callers import an ES module
// of ours that imports the package statically (src/telemetry/undici.ts). test/e2e/packaging.test.ts fails
// on any emitted `export default require_*()` chunk whose importers take named exports from it. undici is
// bundled whole: one file parses in less CPU than Node's loader reading its ~90 CommonJS files.
// Code that needs files of the package finds its root by walking up (src/core/package-root.ts), so it
// does not depend on where the bundler puts it.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const BUNDLED = new Set([
  'zod',
  'undici',
  'commander',
  'smol-toml',
  're2js',
  'cli-progress',
  'croner',
  'diff',
  'fzstd',
  '@opentelemetry/semantic-conventions',
  '@arizeai/openinference-semantic-conventions',
]);
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
  .filter((d) => !BUNDLED.has(d))
  .flatMap((d) => [d, `${d}/*`]);
const outdir = join(root, 'dist', 'cli');
rmSync(join(outdir, 'chunks'), { recursive: true, force: true });

await build({
  entryPoints: [join(outdir, 'main.js')],
  outdir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external,
  // CommonJS dependencies (undici, commander) call require() for Node's own modules.
  banner: { js: "import { createRequire as __runspecRequire } from 'node:module'; const require = __runspecRequire(import.meta.url);" },
  legalComments: 'linked',
  logLevel: 'warning',
});
