import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_LOADERS } from '../../src/cli/commands/index.js';
import { runCli } from '../helpers/run-cli.js';

describe('runspec-eval CLI', () => {
  it('prints help listing every subcommand and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.exitCode).toBe(0);
    for (const c of ['list', 'run', 'validate', 'score', 'serve', 'compare', 'merge', 'report']) expect(r.stdout).toContain(c);
  });

  it('exits 2 on an unknown command with a one-line error and no stack trace', async () => {
    const r = await runCli(['bogus']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown command 'bogus'");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  // The top-level help lists commands from a table so that it imports no command module; a command
  // whose options, arguments or description changed used to be listed the old way.
  it.each(COMMAND_LOADERS.map((c) => ({ name: c.name, loader: c })))('lists $name in --help exactly as its module registers it', async ({ loader }) => {
    const program = new Command('runspec-eval');
    (await loader.load()).register(
      program,
      () => {
        throw new Error('not run');
      },
      () => {},
    );
    const sub = program.commands.find((c) => c.name() === loader.name)!;
    expect(new Help().subcommandTerm(sub)).toBe(loader.term);
    expect(sub.description()).toBe(loader.summary);
    const r = await runCli(['--help']);
    expect(r.stdout).toContain(loader.term);
  });
});
