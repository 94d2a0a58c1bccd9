import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const compareCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('compare')
      .description('Run the same suite once per provider and compare pass rates')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'compare: not implemented yet');
        }),
      );
  },
};
