import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

// One directory per test run, under the machine's temp folder: every test file gets its own empty HOME,
// XDG_CONFIG_HOME and TMPDIR inside it (test/setup/isolate.ts), and the unpacked test browser lives in it
// (test/helpers/browser.ts). Nothing a test writes outlives the run, and nothing the machine has (a global
// fixture in ~/.config/runspec-eval/eval, stale worktrees in /tmp) reaches a test.

declare module 'vitest' {
  export interface ProvidedContext {
    runRoot: string;
    npmCache: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'runspec-test-run-'));
  // Traversable like /tmp: as root the command sandbox drops to an unprivileged uid that must reach worktrees.
  chmodSync(root, 0o755);
  project.provide('runRoot', root);
  // npm's download cache stays where it was (an explicit directory outside the clone): a cache changes only
  // speed, never a result, and an empty one would send every `npm pack`/install to the registry.
  project.provide('npmCache', process.env.npm_config_cache || join(homedir(), '.npm'));
  return () => {
    if (!process.env.RUNSPEC_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  };
}
