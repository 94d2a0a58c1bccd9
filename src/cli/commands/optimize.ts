import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const optimizeCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('optimize')
      .description('Prompt optimisation loop (optimiser + observer)')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'optimize: not implemented yet');
        }),
      );
  },
};
