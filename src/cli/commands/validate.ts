import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const validateCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('validate')
      .description('Ground tier: check fixtures against a toolset (no model, no key)')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'validate: not implemented yet');
        }),
      );
  },
};
