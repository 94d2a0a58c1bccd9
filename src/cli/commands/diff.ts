import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { ensureOutputDir } from '../../report/out-path.js';
import { DIFF_FORMATS, type DiffFormat } from '../../report/diff.js';
import { parseFailOn } from '../../report/fail-on.js';
import { cwdPath } from './_run-options.js';

export const diffCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('diff')
      .description('Compare a run against a baseline: flipped cases, new and removed cases, verdict and pass-rate changes')
      .argument('<base>', 'baseline results JSON, or a directory of them (the newest is used)')
      .argument('<head>', 'results JSON of the run to check')
      .option('--output <format>', `report format: ${DIFF_FORMATS.join(', ')}`, 'table')
      .option('--out <file>', 'write the diff here instead of stdout')
      .option('--fail-on <when>', 'exit 1 on: any (every pass → fail flip), significant (only flips whose 95% intervals do not overlap), none', 'any')
      .addHelpText('after', '\nExit codes: 0 nothing regressed, 1 a case went from meeting its threshold to missing it (see --fail-on), 2 bad input.\n')
      .action(
        action(getContext, setExit, async (ctx, base: string, head: string, flags: { output: string; out?: string; failOn: string }) => {
          if (!(DIFF_FORMATS as readonly string[]).includes(flags.output)) {
            throw new UsageError('USAGE', `diff --output: expected one of ${DIFF_FORMATS.join(', ')} (got ${JSON.stringify(flags.output)})`);
          }
          const failOn = parseFailOn(flags.failOn, 'diff --fail-on');
          const { diffResultFiles } = await import('../../app/diff.js');
          const { renderDiff } = await import('../../report/diff.js');
          const { diff, exitCode } = diffResultFiles({ base: cwdPath(ctx, base), head: cwdPath(ctx, head), failOn });
          const text = renderDiff(diff, flags.output as DiffFormat);
          if (flags.out) {
            const out = cwdPath(ctx, flags.out);
            ensureOutputDir(out, '--out');
            writeFileAtomic(out, text);
            ctx.err(`diff: ${out}`);
          } else {
            ctx.stdout.write(text);
          }
          return exitCode;
        }),
      );
  },
};
