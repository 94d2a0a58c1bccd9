import { defineConfig } from 'vitest/config';
import { runspecEvals, RunspecReporter } from 'runspec-eval/vitest';
export default defineConfig({
  plugins: [runspecEvals()],
  test: { include: ['*.test.mjs'], reporters: ['default', ['junit', { outputFile: 'junit.xml' }], new RunspecReporter({ out: 'results.json' })] },
});
