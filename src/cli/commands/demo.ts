import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const demoCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('demo')
      .description('Run the bundled suites on the embedded replay provider')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'demo: not implemented yet');
        }),
      );
  },
};
