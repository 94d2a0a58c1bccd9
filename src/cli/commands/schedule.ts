import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const scheduleCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('schedule')
      .description('Manage and run scheduled eval sweeps')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'schedule: not implemented yet');
        }),
      );
  },
};
