import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import type { Dialect } from '../../types/case.js';
import { DIALECTS as ALL_DIALECTS } from '../../core/vocabulary.js';

const DIALECTS: readonly Dialect[] = ALL_DIALECTS;
const KINDS = [...DIALECTS, 'results'];

export const schemaCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('schema')
      .description('Print the JSON Schema of a fixture dialect (runspec|replio|turnstone) or of the results file, generated from the zod schema that reads it')
      .argument('<dialect>', 'runspec (TOML [[eval]] / [[suite]]), replio (JSON fixture), turnstone (JSON suite) or results (run --out)')
      .addHelpText(
        'after',
        `
Point your editor at the output, e.g. for VS Code's json.schemas or taplo:
  runspec-eval schema replio > replio.schema.json`,
      )
      .action(
        action(getContext, setExit, async (ctx, dialect: string) => {
          if (dialect === 'results') {
            const { resultsJsonSchema } = await import('../../report/results.js');
            ctx.out(JSON.stringify(resultsJsonSchema(), null, 2));
            return 0;
          }
          if (!(DIALECTS as string[]).includes(dialect))
            throw new UsageError('USAGE', `schema: unknown dialect "${dialect}"; expected one of ${KINDS.join(', ')}`, {
              hint: 'runspec-eval schema runspec',
            });
          // The fixture schemas (zod) load when the command runs: `schema --help` starts fast.
          const { jsonSchemaFor } = await import('../../fixtures/schemas.js');
          ctx.out(JSON.stringify(jsonSchemaFor(dialect as Dialect), null, 2));
          return 0;
        }),
      );
  },
};
