#!/usr/bin/env node
import { Command, CommanderError, Help } from 'commander';
import { fstatSync, realpathSync } from 'node:fs';
import { Writable } from 'node:stream';
import { outputError, writeAllSync } from '../core/atomic-write.js';
import { fileURLToPath } from 'node:url';
import { exitCodeFor, isRunspecError } from '../errors.js';
import { redactSecrets, redactUrlsInText } from '../core/redact.js';
import { createContext, type CliContext } from './context.js';
import { COMMAND_LOADERS } from './commands/index.js';
import { VERSION } from '../core/version.js';

export interface MainOptions {
  argv: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdout?: CliContext['stdout'];
  stderr?: CliContext['stderr'];
  stdin?: CliContext['stdin'];
  /** The clock commands read for "now" (default: the system clock). */
  now?: () => Date;
}

/** Parse argv, run one command, and return its exit code. Never calls process.exit itself. */
export async function main(opts: MainOptions): Promise<number> {
  const env = opts.env ?? process.env;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const stdin = opts.stdin ?? process.stdin;
  let exitCode = 0;
  let ctx: CliContext | undefined;
  const program = new Command('runspec-eval');
  program
    .description('Test how LLM agents use tools, and score their traces. Every eval case is also an OpenTelemetry trace.')
    .version(VERSION, '-V, --version')
    .option('--path <project>', 'project directory (holds runspec.toml and .runspec/)', '.')
    .option('--debug', 'print stack traces on errors')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => void stdout.write(s),
      writeErr: (s) => void stderr.write(s),
    })
    .exitOverride();
  const getContext = (): CliContext => {
    if (!ctx) {
      const g = program.opts<{ path: string; debug?: boolean }>();
      ctx = createContext({
        cwd: opts.cwd ?? process.cwd(),
        path: g.path,
        env,
        debug: !!g.debug,
        stdout,
        stderr,
        stdin,
        ...(opts.now ? { now: opts.now } : {}),
      });
    }
    return ctx;
  };
  const name = commandName(opts.argv);
  // `help X` needs X's module only.
  const wanted = COMMAND_LOADERS.find((c) => c.name === (name === 'help' ? commandName(opts.argv.slice(opts.argv.indexOf('help') + 1)) : name));
  if (wanted) {
    (await wanted.load()).register(program, getContext, (c) => (exitCode = c));
  } else {
    // Top-level help, --version, or an unknown command: list the commands from the table, importing none
    // of them (start-up stays near a bare `node`).
    const terms = new Map(COMMAND_LOADERS.map((c) => [c.name, c.term]));
    for (const c of COMMAND_LOADERS) program.command(c.name).description(c.summary);
    const builtin = new Help();
    program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd.name()) ?? builtin.subcommandTerm(cmd) });
  }
  for (const sub of program.commands) sub.exitOverride().configureOutput(program.configureOutput());
  try {
    if (opts.argv.length === 0) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync(opts.argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    const debug = ctx?.debug ?? opts.argv.includes('--debug');
    if (isRunspecError(err)) {
      stderr.write(redactSecrets(redactUrlsInText(`error: ${err.message}\n`), env));
      if (err.hint) stderr.write(redactSecrets(redactUrlsInText(`hint: ${err.hint}\n`), env));
      if (debug && err.stack) stderr.write(redactSecrets(err.stack + '\n', env));
      return exitCodeFor(err);
    }
    const message = err instanceof Error ? err.message : String(err);
    stderr.write(redactSecrets(redactUrlsInText(`error: ${message.split('\n')[0]} (rerun with --debug for details)\n`), env));
    if (debug && err instanceof Error && err.stack) stderr.write(redactSecrets(err.stack + '\n', env));
    return 3;
  }
}

/** The subcommand named on the command line, skipping the global options; undefined for none. */
function commandName(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--path') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/** A stdout that writes a file descriptor whole, and remembers the first failure instead of throwing. */
function fileStdout(fd: number): { stream: Writable; failure?: unknown } {
  const state: { stream: Writable; failure?: unknown } = {
    stream: new Writable({
      write(chunk: Buffer, _enc, cb) {
        if (state.failure === undefined) {
          try {
            writeAllSync(fd, chunk);
          } catch (err) {
            state.failure = err;
          }
        }
        cb();
      },
    }),
  };
  return state;
}

function isEntryPoint(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // A closed pipe (`runspec-eval list | head`) ends the output, not the process with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  // stdout redirected to a file: every byte written here (Node's file stdout drops what a short write
  // leaves), and a full or read-only disk is exit 3 naming stdout, never a cut document with exit 0.
  let isFile = false;
  try {
    isFile = fstatSync(1).isFile();
  } catch {
    // stdout closed (`>&-`): nothing to write to; main() reports through stderr.
  }
  const file = isFile ? fileStdout(1) : undefined;
  let code = await main({ argv: process.argv.slice(2), ...(file ? { stdout: file.stream } : {}) });
  if (file?.failure !== undefined) {
    // Written in place as it went: what came before the failure is in the file, the rest is not.
    const err = outputError('stdout', file.failure, { outcome: 'the output is incomplete' });
    process.stderr.write(`error: ${err.message}\nhint: ${err.hint}\n`);
    code = 3;
  }
  // Drain stdout/stderr, then exit even if a keep-alive socket or timer is still open.
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  await new Promise<void>((r) => process.stderr.write('', () => r()));
  process.exit(code);
}
