import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port the kernel hands out for a `listen(0)` (Linux: ip_local_port_range; 32768 elsewhere, the
 * default there too).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Bind 127.0.0.1:`port` (0: the kernel's pick) and close it again; the port, or undefined when it is taken. */
async function bindAndClose(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return undefined;
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address && typeof address !== 'string' ? address.port : undefined;
}

/**
 * A loopback port with nothing listening on it, that stays so while the test uses it: a free port below the
 * kernel's ephemeral range, where no test's `listen(0)` (every server the tests start) can land on it.
 * The kernel's own pick, freed again, was handed to another test's server now and then. A fixed port such as
 * 9 may be open on some machine; this one is checked free.
 * @example const url = `http://127.0.0.1:${await closedPort()}`
 */
export async function closedPort(): Promise<number> {
  const low = ephemeralLow();
  const from = Math.min(10_000, low - 1000);
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = await bindAndClose(from + Math.floor(Math.random() * (low - from)));
    if (port !== undefined) return port;
  }
  const port = await bindAndClose(0);
  if (port === undefined) throw new Error('closedPort: no free loopback port');
  return port;
}
