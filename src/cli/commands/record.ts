import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const recordCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('record')
      .description("Live tier: run and record the model's decisions to a replay script")
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'record: not implemented yet');
        }),
      );
  },
};
