import type { Command } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import { addExecutionOptions, addModelOptions, addSelectionOptions, suiteLabelOf, type RunFlags } from './_run-options.js';

/** Split `p1,p2` into provider names (at least two, no duplicates). */
export function parseProviderList(spec: string, flag: string): string[] {
  const names = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length < 2 || new Set(names).size !== names.length) {
    throw new UsageError('USAGE', `${flag}: expected two or more distinct providers separated by commas (got ${JSON.stringify(spec)})`, {
      hint: 'e.g. --compare ollama,openai',
    });
  }
  return names;
}

export const compareCommand: CommandModule = {
  register(program, getContext, setExit) {
    const cmd = program
      .command('compare')
      .description('Run the same suite once per provider or [targets.NAME] and compare pass rates')
      .argument('<providers>', 'two or more providers or targets, comma-separated (e.g. ollama,openai or gpt,my-agent)')
      .argument('[targets...]', "suite names or fixture files (default: the project's own cases, or the bundled demo cases when it has none)");
    addSelectionOptions(cmd);
    addModelOptions(cmd, { provider: false });
    addExecutionOptions(cmd, { out: 'results JSON file stem: one <stem>.<provider>.json per provider' });
    cmd.action(
      action(getContext, setExit, async (ctx, providers: string, targets: string[], flags: RunFlags, _c: Command) => {
        const { runTargets } = await import('./run.js');
        return runTargets(ctx, targets, flags, { suiteLabel: suiteLabelOf(targets), compare: parseProviderList(providers, 'compare') });
      }),
    );
  },
};
