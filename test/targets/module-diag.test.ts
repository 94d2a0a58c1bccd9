import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEvalSuite } from '../../src/app/run-suite.js';
import { AGENTS, makeProject } from './_project.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

// While a module target is imported the run listens to the OpenTelemetry diag logger (to learn whether the
// module registers a tracer provider of its own); the module's other diag errors are passed on, not swallowed.
describe('a module target that reports a diag error at import', () => {
  it('passes the error on as a warning naming the target', async () => {
    const dir = makeProject(`[targets.agent]\nkind = "module"\nmodule = "${AGENTS}diag-error.mjs"\n`);
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const lines: string[] = [];
    await runEvalSuite(
      { projectDir: dir, cwd: dir, env: { HOME: dir }, err: (l) => lines.push(l), warn: (l) => lines.push(`warning: ${l}`) },
      { targets: ['cases.toml'], flags: { target: 'agent', out: join(dir, 'results.json'), quietMs: 50 } },
    );
    expect(lines).toContain(
      'warning: target agent (module): OpenTelemetry diag error while importing the module: weather-agent instrumentation: cannot patch the model client',
    );
    expect(lines.join('\n')).not.toMatch(/registers its own global tracer provider/);
  });
});
