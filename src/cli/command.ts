import type { Command } from 'commander';
import type { CliContext } from './context.js';

/** A subcommand module: adds itself to the program; its action resolves to an exit code. */
export interface CommandModule {
  register(program: Command, getContext: () => CliContext, setExit: (code: number) => void): void;
}

/**
 * Wrap an action so that it receives the context and its resolved number becomes the exit code.
 * Errors propagate to main(), which prints them once.
 */
export function action<A extends unknown[]>(
  getContext: () => CliContext,
  setExit: (code: number) => void,
  fn: (ctx: CliContext, ...args: A) => Promise<number> | number,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const code = await fn(getContext(), ...args);
    setExit(code);
  };
}
