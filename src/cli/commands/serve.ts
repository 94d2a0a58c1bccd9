import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const serveCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('serve')
      .description('OTLP/HTTP receiver that scores traces as they arrive')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'serve: not implemented yet');
        }),
      );
  },
};
