// The Run tab's run: the app layer's suite run, the one `runspec-eval run` calls, so the console writes the
// same results file and log, and sends the same traces.
import { runEvalSuite } from '../app/run-suite.js';
import type { EnvSource } from '../config/env.js';
import type { EvalRunner } from './_runs.js';

/** An EvalRunner over `runEvalSuite` for one project; status lines and warnings go to `onLine`. */
export function appRunner(opts: { projectDir: string; env: EnvSource; onLine?: (line: string) => void }): EvalRunner {
  return async ({ targets, flags, signal, onProgress }) => {
    const problems: string[] = [];
    let total = 0;
    const outcome = await runEvalSuite(
      {
        projectDir: opts.projectDir,
        cwd: opts.projectDir,
        env: opts.env,
        err: (line) => opts.onLine?.(line),
        warn: (line) => {
          problems.push(line);
          opts.onLine?.(`warning: ${line}`);
        },
      },
      {
        targets,
        flags,
        signal,
        progress: {
          start(totalSamples) {
            total = totalSamples;
            onProgress(0, totalSamples);
          },
          update(done) {
            onProgress(done, total);
          },
          stop() {},
        },
      },
    );
    if (outcome.noCases) problems.push(`no cases selected by ${targets.join(', ')}`);
    const run = outcome.runs[0]?.result;
    for (const c of run?.infraFailed ?? []) problems.push(`${c.caseId}: every sample failed: ${c.message}`);
    if (run?.badInput) problems.push(run.badInput.message);
    return { interrupted: run?.interrupted ?? false, exitCode: outcome.exitCode, problems };
  };
}
