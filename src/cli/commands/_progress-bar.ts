// The progress bar of a suite run on a terminal. Its own module so that cli-progress loads only when stderr
// is a terminal (`_run-io.ts` imports this on demand; a bundled CommonJS package is never imported dynamically
// itself, see scripts/bundle-cli.mjs).

import cliProgress from 'cli-progress';
import type { RunProgress } from '../../app/run-suite.js';
import type { CliContext } from '../context.js';

/** A progress bar on `ctx.stderr` (a terminal). */
export function terminalProgressBar(ctx: CliContext): RunProgress {
  let bar: cliProgress.SingleBar | undefined;
  return {
    start(total, label) {
      bar = new cliProgress.SingleBar(
        { stream: ctx.stderr, format: `${label} [{bar}] {value}/{total} samples | {case}`, hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, { case: '' });
    },
    update(done, caseId) {
      bar?.update(done, { case: caseId });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
