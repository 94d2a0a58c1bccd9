import { readFileSync, statSync } from 'node:fs';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { ensureOutputDir } from '../../report/out-path.js';
import { cwdPath } from './_run-options.js';

function readInput(file: string, what: string): string {
  // A FIFO, socket or device would block the read (or never end): only regular files are read.
  const st = statSafe(file);
  if (st && !st.isFile()) {
    const kind = st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device';
    throw new UsageError('USAGE', `${what}: ${file} is ${kind}, not a regular file`, { hint: 'pass a BFCL JSON-lines file' });
  }
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError('USAGE', `${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
      hint: 'pass a BFCL JSON-lines file',
    });
  }
}

function statSafe(file: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** `import bfcl QUESTIONS [ANSWERS] --out FILE`: a BFCL category as a runspec suite that carries its tools. */
export const importCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program.command('import').description('Import cases from another format (bfcl)');
    cmd
      .command('bfcl')
      .description('Convert BFCL v3/v4 question (and possible-answer) JSON lines into a runspec suite that carries its tools')
      .argument('<questions>', 'BFCL question file, e.g. BFCL_v4_parallel.json')
      .argument('[answers]', 'BFCL possible-answer file, e.g. possible_answer/BFCL_v4_parallel.json (not needed for irrelevance)')
      .requiredOption('--out <file>', 'write the suite here: .toml ([[eval]] cases) or .json; run it with `runspec-eval run FILE`')
      .option('--category <name>', 'BFCL category of every entry (default: read from each id)')
      .addHelpText(
        'after',
        '\nCategories: simple, multiple, parallel, parallel_multiple, irrelevance and their live_* forms.\nThe cases check with equality = "bfcl" (docs/bfcl.md).\n',
      )
      .action(
        action(getContext, setExit, async (ctx, questions: string, answers: string | undefined, flags: { out: string; category?: string }) => {
          const { bfclOutFormat, bfclSuiteText, importBfcl } = await import('../../fixtures/bfcl.js');
          // The extension names the format: checked before anything is read, so a .yaml name fails at once.
          const format = bfclOutFormat(flags.out);
          if (!format)
            throw new UsageError('USAGE', `--out ${flags.out}: expected a .json or .toml file name (the extension names the format written)`, {
              hint: 'runspec-eval import bfcl Q.json A.json --out cases.toml',
            });
          const qFile = cwdPath(ctx, questions);
          const aFile = answers !== undefined ? cwdPath(ctx, answers) : undefined;
          const result = importBfcl({
            questions: readInput(qFile, 'QUESTIONS'),
            questionsFile: questions,
            ...(aFile !== undefined && answers !== undefined ? { answers: readInput(aFile, 'ANSWERS'), answersFile: answers } : {}),
            ...(flags.category !== undefined ? { category: flags.category } : {}),
          });
          for (const w of result.warnings) ctx.warn(w);
          if (result.suite.eval.length === 0)
            throw new UsageError('USAGE', `${questions}: no case to import`, {
              hint: 'pass a single-response BFCL category (simple, multiple, parallel, parallel_multiple, irrelevance, live_*)',
            });
          const out = cwdPath(ctx, flags.out);
          if (statSafe(out)?.isDirectory())
            throw new UsageError('USAGE', `--out ${out}: is a directory`, { hint: `name a file, e.g. --out ${out.replace(/\/+$/, '')}/suite.json` });
          ensureOutputDir(out, '--out');
          writeFileAtomic(out, bfclSuiteText(result.suite, format, flags.out));
          const counts = Object.entries(result.counts)
            .filter(([, n]) => n > 0)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ');
          ctx.err(`import bfcl: ${result.suite.eval.length} cases (${counts}) → ${out}`);
          return 0;
        }),
      );
  },
};
