import { createServer } from 'node:net';

/**
 * A loopback port with nothing listening on it: bind 127.0.0.1:0, take the port the kernel gave, close it.
 * Nothing else binds it in the moment a test needs it, so a connection there is refused on any machine
 * (unlike a fixed port such as 9, which may be open somewhere).
 * @example const url = `http://127.0.0.1:${await closedPort()}`
 */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('closedPort: the server has no port');
  return address.port;
}
