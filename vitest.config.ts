import { defineConfig } from 'vitest/config';

// Test files that replace a module with vi.mock: vitest clears mocks and the module cache between files only
// in isolated workers, so these run in their own project, each in a fresh worker.
export const MOCKING = ['test/providers/openai.test.ts', 'test/telemetry/deferred-load-failure.test.ts'];
const NOT_UNIT = ['test/e2e/**', 'test/packed/**', 'test/integration/**', '**/node_modules/**'];

// Four projects: `unit` and `unit-mocks` (in-process, including the CLI through main()), `e2e` (whole runs,
// real processes, a browser) and `packed` (the `npm pack` tarball installed into empty projects, driven as
// users get it; run `npm run build` first). `npm run test:unit` (`--project 'unit*'`) for a quick loop;
// `npm test` runs them all.
//
// `unit` reuses each worker for the next file (isolate: false): a fresh process per file cost more CPU than the
// in-process tests themselves (starting the worker and importing the same modules again). Every file still
// gets its own empty HOME, XDG_* and TMPDIR (setupFiles run before each file), and no test there changes
// global state it does not put back. `e2e` keeps a fresh worker per file: its tests start and signal
// processes, and a shared worker that outlived them was once slow to stop at the end of the run.
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
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...NOT_UNIT, ...MOCKING], isolate: false } },
      { extends: true, test: { name: 'unit-mocks', include: MOCKING } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
      { extends: true, test: { name: 'packed', include: ['test/packed/**/*.test.ts'], globalSetup: ['test/packed/global-setup.ts'], testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
  },
});
