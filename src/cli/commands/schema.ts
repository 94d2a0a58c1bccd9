import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import { jsonSchemaFor } from '../../fixtures/index.js';
import type { Dialect } from '../../types/case.js';

const DIALECTS: Dialect[] = ['runspec', 'replio', 'turnstone'];

export const schemaCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('schema')
      .description('Print the JSON Schema of a fixture dialect (runspec|replio|turnstone), generated from the loader\'s zod schema')
      .argument('<dialect>', 'runspec (TOML [[eval]] / [[suite]]), replio (JSON fixture) or turnstone (JSON suite)')
      .addHelpText(
        'after',
        `
Point your editor at the output, e.g. for VS Code's json.schemas or taplo:
  runspec-eval schema replio > replio.schema.json`,
      )
      .action(
        action(getContext, setExit, (ctx, dialect: string) => {
          if (!(DIALECTS as string[]).includes(dialect))
            throw new UsageError('USAGE', `schema: unknown dialect "${dialect}"; expected one of ${DIALECTS.join(', ')}`, {
              hint: 'runspec-eval schema runspec',
            });
          ctx.out(JSON.stringify(jsonSchemaFor(dialect as Dialect), null, 2));
          return 0;
        }),
      );
  },
};
