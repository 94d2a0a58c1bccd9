import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { ensureOutputDir } from '../../report/out-path.js';
import { cwdPath, ensureNewline, OUTPUT_FORMATS, type OutputFormat } from './_run-options.js';

export const reportCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('report')
      .description('Re-render saved results (table, JSON, JUnit XML, Markdown, HTML)')
      .argument('<file>', 'results JSON written by run, record, replay or merge')
      .option('--output <format>', `report format: ${OUTPUT_FORMATS.join(', ')}`, 'table')
      .option('--out <file>', 'write the report here instead of stdout')
      .action(
        action(getContext, setExit, async (ctx, file: string, flags: { output: string; out?: string }) => {
          if (!(OUTPUT_FORMATS as readonly string[]).includes(flags.output)) {
            throw new UsageError('USAGE', `report --output: expected one of ${OUTPUT_FORMATS.join(', ')} (got ${JSON.stringify(flags.output)})`);
          }
          const { readResultsDocument } = await import('../../report/results-docs.js');
          const { renderDocument } = await import('../../report/render.js');
          const text = ensureNewline(
            renderDocument(
              readResultsDocument(cwdPath(ctx, file)),
              flags.output as OutputFormat,
              flags.output === 'html' ? (await import('./_run-io.js')).traceUrlOf(ctx.projectDir) : {},
            ),
          );
          if (flags.out) {
            const out = cwdPath(ctx, flags.out);
            ensureOutputDir(out, '--out');
            writeFileAtomic(out, text);
            ctx.err(`report: ${out}`);
          } else {
            ctx.stdout.write(text);
          }
          return 0;
        }),
      );
  },
};
