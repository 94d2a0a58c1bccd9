import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const reportCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('report')
      .description('Re-render saved results')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'report: not implemented yet');
        }),
      );
  },
};
