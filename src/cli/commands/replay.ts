import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const replayCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('replay')
      .description('Replay a recorded script deterministically (no key, no network)')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'replay: not implemented yet');
        }),
      );
  },
};
