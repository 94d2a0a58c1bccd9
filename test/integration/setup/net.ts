import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: bind port 0, take the port the kernel chose, close.
 * Another process may take it before the caller binds it; backends started with it fail fast (the supervisor
 * reports the exit), which is rarer than any fixed port being taken.
 *
 * @example const port = await freePort();
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const addr = server.address();
      if (addr === null || typeof addr === 'string') {
        server.close();
        reject(new Error(`freePort: no TCP address from ${host}:0`));
        return;
      }
      server.close(() => resolve(addr.port));
    });
  });
}

/** `count` distinct free ports (a backend that takes several: HTTP and gRPC). */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  // Bounded: the kernel hands out distinct ephemeral ports; a repeat only costs one more attempt.
  for (let attempt = 0; ports.size < count && attempt < count * 10; attempt++) ports.add(await freePort(host));
  if (ports.size < count) throw new Error(`freePorts: got only ${ports.size} distinct ports of ${count}`);
  return [...ports];
}
