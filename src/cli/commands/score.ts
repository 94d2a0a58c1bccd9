import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const scoreCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('score')
      .description('Score OTLP traces offline (files, directories or stdin)')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'score: not implemented yet');
        }),
      );
  },
};
