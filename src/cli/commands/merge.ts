import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const mergeCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('merge')
      .description('Combine shard result files into one')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'merge: not implemented yet');
        }),
      );
  },
};
