import { defineConfig } from 'vitest/config';

// Two projects: `unit` (in-process, including the CLI through main()) and `e2e` (whole runs, real processes,
// a browser). `npx vitest run --project unit` for a quick loop; `npm test` runs both.
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
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'test/integration/**', '**/node_modules/**'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
