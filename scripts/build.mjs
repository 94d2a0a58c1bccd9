// `npm run build` (and `prepare`, so a git install and `npm pack` build too): tsc writes dist/ (the library
// and its types), bundle-cli.mjs bundles the CLI over dist/cli/main.js, bundled-catalog.mjs writes the
// bundled fixtures' catalog. Writing dist/cli/main.js afresh drops its mode bits, so the bin is made
// executable here, after every build: without it `npx runspec-eval` says "Permission denied".
//
// No source maps are built or shipped: they were 8.6 of the package's 13.1 MB unpacked (now 5.0 MB), the bundle and the
// library are unminified JavaScript whose comments name the source file, and stacks show only with --debug.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (file, args = []) => execFileSync(process.execPath, [file, ...args], { cwd: root, stdio: 'inherit' });

rmSync(join(root, 'dist'), { recursive: true, force: true });
run(join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc'), ['-p', join(root, 'tsconfig.json')]);
run(join(root, 'scripts', 'bundle-cli.mjs'));
run(join(root, 'scripts', 'bundled-catalog.mjs'));
chmodSync(join(root, 'dist', 'cli', 'main.js'), 0o755);
