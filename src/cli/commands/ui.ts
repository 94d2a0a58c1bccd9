import { spawn } from 'node:child_process';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import type { CliContext } from '../context.js';
import { isLoopbackHost } from '../../core/loopback.js';
import { VERSION } from '../../core/version.js';
import { findExecutable } from '../../engine/sandbox/command.js';
import { intOption } from './score.js';
import { handleInterrupts } from './_interrupt.js';

interface UiFlags {
  host: string;
  port: number;
  open?: boolean;
}

/** The first of `names` that is an executable on the user's PATH (never a fixed system path). */
function onPath(names: string[], env: Record<string, string | undefined>): string | undefined {
  for (const n of names) {
    const found = findExecutable(n, env.PATH ?? '');
    if (found) return found;
  }
  return undefined;
}

function openBrowser(ctx: CliContext, url: string): void {
  const opener =
    process.platform === 'darwin' ? onPath(['open'], ctx.env) : process.platform === 'win32' ? undefined : onPath(['xdg-open', 'sensible-browser'], ctx.env);
  if (!opener) {
    ctx.warn('--open: no browser opener found on PATH; open the URL yourself');
    return;
  }
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => ctx.warn('--open: could not start the browser; open the URL yourself'));
  child.unref();
}

async function ui(ctx: CliContext, flags: UiFlags): Promise<number> {
  if (!isLoopbackHost(flags.host))
    ctx.warn(`listening on ${flags.host}: the console is reachable beyond this machine (the session token still guards every request)`);
  // The config modules (zod, smol-toml) load when the console starts: `ui --help` starts fast.
  const { consoleSetup } = await import('../../app/console-setup.js');
  const { defaults, providers, traceUrl } = consoleSetup(ctx);
  const { startConsole } = await import('../../console/server.js');
  const server = await startConsole({
    projectDir: ctx.projectDir,
    env: ctx.env,
    host: flags.host,
    port: flags.port,
    version: VERSION,
    providers,
    defaults,
    ...(traceUrl ? { traceUrl } : {}),
    onWarning: (w) => ctx.warn(w),
  });
  ctx.out(`runspec-eval console: ${server.url}`);
  ctx.err('press Ctrl-C to stop');
  if (flags.open) openBrowser(ctx, server.url);
  // The first SIGINT/SIGTERM stops the console (a run in progress ends as cancelled); a second one kills
  // running commands and exits at once, as it does for `run`.
  const ac = new AbortController();
  const off = handleInterrupts(ctx, ac);
  try {
    await new Promise<void>((done) => ac.signal.addEventListener('abort', () => done(), { once: true }));
    await server.close();
  } finally {
    off();
  }
  return 0;
}

export const uiCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('ui')
      .description('Open the Evals console: suites, runs, saved reports and production verdicts in the browser')
      .option('--host <host>', 'address to bind (loopback unless given)', '127.0.0.1')
      .option('--port <port>', 'port (0 picks a free one)', intOption('--port', 0), 0)
      .option('--open', 'open the console in the default browser')
      .addHelpText(
        'after',
        '\nThe URL it prints carries a per-session token (after #); every API request must present it, and\n' +
          'state-changing requests must come from the console page itself (Origin check).\n',
      )
      .action(action(getContext, setExit, (ctx, flags: UiFlags) => ui(ctx, flags)));
  },
};
