import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const runCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('run')
      .description('Run eval cases against a model and score them')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'run: not implemented yet');
        }),
      );
  },
};
