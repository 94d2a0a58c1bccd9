// The CLI as one file (plus lazily loaded chunks): `npm run build` runs tsc (dist/, the library and its
// types), then this, which bundles dist/cli/main.js over itself with esbuild. Node 20 has no module
// compile cache, and resolving, reading and linking ~240 ES modules (ours, zod's, undici's) was most of a
// command's start-up; one file starts in about two thirds of the time (see bench/, startup rows).
//
// Bundled: our code and the small pure-JS dependencies the commands load on every run. Left as
// imports: @opentelemetry/* (the API is a peer dependency whose one global instance must be shared with
// the host; the SDK and exporters load only when traces are exported), gRPC, protobufjs and the MCP SDK
// (loaded on use; gRPC reads .proto files next to its own modules).
// Code that needs files of the package finds its root by walking up (src/core/package-root.ts), so it
// does not depend on where the bundler puts it.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const BUNDLED = new Set(['zod', 'undici', 'commander', 'smol-toml', 're2js', 'cli-progress', 'croner', 'diff', 'fzstd', '@opentelemetry/semantic-conventions', '@arizeai/openinference-semantic-conventions']);
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].filter((d) => !BUNDLED.has(d)).flatMap((d) => [d, `${d}/*`]);
const outdir = join(root, 'dist', 'cli');
rmSync(join(outdir, 'chunks'), { recursive: true, force: true });

// zod re-exports all of its ~60 message locales as `z.locales` (about half of its chunk; importing it cost
// ~35 ms of every command's start). Nothing of ours reads `z.locales`, and the messages come from the
// English locale, which zod installs itself (classic/schemas.js imports locales/en.js directly): so the
// bundled `z.locales` holds English only, and every message stays the same.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: 'export { default as en } from "./en.js";\n', resolveDir: dirname(args.path), loader: 'js' }));
  },
};

// The one HTTP client (core/http-client.ts) needs undici's Agent only, but undici's index loads all of undici (fetch,
// WebSocket, cookies, caches, mocks; its cookies module even reads globalThis.Headers, which loads Node's own
// copy of undici): ~25 ms of every run's start. The client's `import { Agent } from 'undici'` gets what
// the index does for an Agent: the request API on the Dispatcher prototype and the global dispatcher
// (lib/global.js, which the index loads too). The same modules serve a later import of the whole index.
const undiciRoot = join(root, 'node_modules', 'undici');
const undiciAgentOnly = {
  name: 'undici-agent-only',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      /[\\/]core[\\/]http-client\.js$/.test(args.importer) ? { path: 'undici-agent', namespace: 'undici-agent' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-agent' }, () => ({
      contents: [
        "import Dispatcher from './lib/dispatcher/dispatcher.js';",
        "import api from './lib/api/index.js';",
        "import './lib/global.js';",
        "import Agent from './lib/dispatcher/agent.js';",
        'Object.assign(Dispatcher.prototype, api);',
        'export { Agent };',
      ].join('\n'),
      resolveDir: undiciRoot,
      loader: 'js',
    }));
  },
};

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
  plugins: [zodEnglishOnly, undiciAgentOnly],
  // CommonJS dependencies (undici, commander) call require() for Node's own modules.
  banner: { js: "import { createRequire as __runspecRequire } from 'node:module'; const require = __runspecRequire(import.meta.url);" },
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
