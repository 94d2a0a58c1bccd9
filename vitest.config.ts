import { defineConfig } from 'vitest/config';

// Three projects: `unit` (in-process, including the CLI through main()), `e2e` (whole runs, real processes,
// a browser) and `packed` (the `npm pack` tarball installed into empty projects, driven as users get it;
// run `npm run build` first). `npx vitest run --project unit` for a quick loop; `npm test` runs all three.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // A per-run temp root; each test file gets its own empty HOME, XDG_* and TMPDIR inside it.
    globalSetup: ['test/setup/global-setup.ts'],
    setupFiles: ['test/setup/isolate.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'test/packed/**', 'test/integration/**', '**/node_modules/**'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
      { extends: true, test: { name: 'packed', include: ['test/packed/**/*.test.ts'], globalSetup: ['test/packed/global-setup.ts'], testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
  },
});
