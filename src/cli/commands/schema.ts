import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';

export const schemaCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('schema')
      .description('Print the JSON Schema of a fixture dialect (runspec|replio|turnstone)')
      .action(
        action(getContext, setExit, () => {
          throw new UsageError('USAGE', 'schema: not implemented yet');
        }),
      );
  },
};
