import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const listCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('list')
      .description('List discovered fixtures (bundled, plugins, global, local)')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'list: not implemented yet');
        }),
      );
  },
};
