import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { RunspecError } from '../../errors.js';
import { ensureOutputDir } from '../../report/out-path.js';
import { cwdPath, ensureNewline, OUTPUT_FORMATS, type OutputFormat } from './_run-options.js';

export const mergeCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('merge')
      .description(
        'Combine shard results (--shard i/n, 1-based: 1/n … n/n, split by SHA-256 of the case id) into one results file, in the unsharded case order',
      )
      .argument('<files...>', 'results JSON files of the shards')
      .option('--out <file>', 'write the merged results JSON here (default: print it to stdout)')
      .option('--output <format>', `with --out, also print a report: ${OUTPUT_FORMATS.join(', ')}`)
      .addHelpText('after', '\nExit codes: 0 every case meets its threshold, 1 some case does not, 2 bad input, 3 a case whose every sample errored.\n')
      .action(
        action(getContext, setExit, async (ctx, files: string[], flags: { out?: string; output?: string }) => {
          if (flags.output && !(OUTPUT_FORMATS as readonly string[]).includes(flags.output)) {
            throw new RunspecError('USAGE', `merge --output: expected one of ${OUTPUT_FORMATS.join(', ')} (got ${JSON.stringify(flags.output)})`);
          }
          const { mergeDocuments, readResultsDocument, writeResultsDocument } = await import('../../report/results-docs.js');
          const { renderDocument } = await import('../../report/render.js');
          const { caseResultsFromDocument, resultsDocumentText } = await import('../../report/results.js');
          const merged = mergeDocuments(files.map((file) => ({ file, doc: readResultsDocument(cwdPath(ctx, file)) })));
          if (flags.out) {
            const out = cwdPath(ctx, flags.out);
            ensureOutputDir(out, '--out');
            writeResultsDocument(out, merged);
            ctx.err(`results: ${out}`);
            if (flags.output) ctx.stdout.write(ensureNewline(renderDocument(merged, flags.output as OutputFormat)));
          } else {
            ctx.stdout.write(resultsDocumentText(merged));
          }
          const results = caseResultsFromDocument(merged);
          if (results.some((r) => r.samples.length > 0 && r.samples.every((s) => s.status === 'errored'))) return 3;
          return results.some((r) => !r.meetsThreshold) ? 1 : 0;
        }),
      );
  },
};
