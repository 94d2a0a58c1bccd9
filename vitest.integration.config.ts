import { defineConfig } from 'vitest/config';

// The integration tier (`npm run test:integration`): real backends (Arize Phoenix, an OpenTelemetry Collector
// built with the official builder, Prometheus, Python instrumentations), installed and started by the tier
// itself (test/integration/setup/), on 127.0.0.1 with free ports and data in temp folders. One worker: the
// backends are heavy and the machine has two cores. Installs are cached outside the clone (see setup/cache.ts).
export default defineConfig({
  test: {
    name: 'integration',
    include: ['test/integration/**/*.test.ts'],
    testTimeout: 120_000,
    // A cold install (Phoenix's wheels, the Collector's Go build) happens in a beforeAll.
    hookTimeout: 45 * 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    passWithNoTests: false,
    // The per-run temp root (the unpacked test browser lives there); no per-file HOME isolation here: the
    // tier's install caches are found through HOME (setup/cache.ts).
    globalSetup: ['test/setup/global-setup.ts'],
    reporters: ['default'],
  },
});
