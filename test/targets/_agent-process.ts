// Start a test agent as its own process and read the URL it prints; pick a port for the run's receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';

/** A port that was free a moment ago (bind 0, read the port, close). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

export interface AgentProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Run `node file` (or `interpreter file`) with `env` (plus PATH) and wait for the first stdout line (its URL). */
export async function startAgentProcess(file: string, env: Record<string, string>, interpreter: string = process.execPath): Promise<AgentProcess> {
  const child = spawn(interpreter, [file], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`agent exited with ${code}: ${err}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null) {
        child.kill();
        await once(child, 'exit');
      }
    },
  };
}
