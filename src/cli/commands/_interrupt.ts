import { killRunningCommands } from '../../engine/sandbox/command.js';
import { detachWorktreeMounts } from '../../engine/sandbox/disk-mount.js';
import type { CliContext } from '../context.js';
import { openAtomicWrites } from '../../core/atomic-write.js';

// SIGINT and SIGTERM end a run the same way: the first lets in-flight samples end as cancelled (their
// worktrees and commands are cleaned up, the resume line is printed, exit 3); a second one kills every
// running command and exits at once (worktrees left then are swept by the next run). Once the samples
// are done and the results document is being written, the first lets the write finish.

/** Install the handlers; returns the function that removes them. */
export function handleInterrupts(ctx: CliContext, ac: AbortController): () => void {
  const onSignal = (signal: NodeJS.Signals): void => {
    if (ac.signal.aborted) {
      killRunningCommands();
      detachWorktreeMounts();
      ctx.err(`interrupted again (${signal}): stopped at once`);
      process.exit(signal === 'SIGTERM' ? 143 : 130);
    }
    // Once the samples are done the results document is written between event-loop turns; the first
    // interrupt lets it finish, the second leaves it unwritten (its temp file removed on exit).
    const writing = openAtomicWrites();
    ctx.err(
      writing.length > 0
        ? `interrupted (${signal}): finishing writing ${writing.join(', ')} (interrupt again to stop at once without it)`
        : `interrupted (${signal}): finishing in-flight samples as cancelled (interrupt again to stop at once)`,
    );
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
