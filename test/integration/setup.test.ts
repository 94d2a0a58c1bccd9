// The tier's own helpers: an install that cannot succeed fails naming the package (never a skip), the poller
// reports what it waited for, and a backend that dies before it is ready is reported with its log.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, freePorts } from './setup/net.js';
import { failingPackage, pipInstallVenv } from './setup/pip.js';
import { startBackend } from './setup/supervisor.js';
import { waitFor } from './setup/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'runspec-it-setup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('integration tier helpers', () => {
  it("fails an install of a package PyPI does not have, naming it and pip's reason", async () => {
    const constraints = join(scratch, 'constraints.txt');
    writeFileSync(constraints, 'runspec-eval-no-such-package-7f3e==0.0.1\n');
    const saved = process.env.RUNSPEC_IT_CACHE;
    process.env.RUNSPEC_IT_CACHE = join(scratch, 'cache');
    try {
      await expect(pipInstallVenv('missing', constraints)).rejects.toThrow(
        /venv missing: pip install -r .*constraints\.txt failed at package runspec-eval-no-such-package-7f3e==0\.0\.1: ERROR: No matching distribution found/,
      );
    } finally {
      if (saved === undefined) delete process.env.RUNSPEC_IT_CACHE;
      else process.env.RUNSPEC_IT_CACHE = saved;
    }
  });

  it.each([
    { name: 'a missing version', out: 'ERROR: Could not find a version that satisfies the requirement foo==9 (from versions: 1)\n', pkg: 'foo==9' },
    {
      name: 'a network failure mid-download',
      out: 'Collecting a==1\n  Downloading a-1.whl\nCollecting b==2\nERROR: Exception: ReadTimeoutError\n',
      pkg: 'b==2',
    },
  ])('names the package of $name', ({ out, pkg }) => {
    expect(failingPackage(out)).toBe(pkg);
  });

  it('gives distinct loopback ports that are free', async () => {
    const ports = await freePorts(3);
    expect(new Set(ports).size).toBe(3);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    server.close();
    expect(await freePort()).toBeGreaterThan(0);
  });

  it('polls until a value comes, and names what it waited for on timeout', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? n : undefined), { deadlineMs: 5000, intervalMs: 1 })).toBe(3);
    await expect(waitFor(() => false, { deadlineMs: 30, intervalMs: 1, what: 'nothing' })).rejects.toThrow(/timed out after 30 ms waiting for nothing/);
  });

  it('reports a backend that exits before it is ready, with its log', async () => {
    await expect(
      startBackend({
        name: 'dies',
        command: process.execPath,
        args: ['-e', 'console.error("port in use"); process.exit(4)'],
        ready: async () => false,
        readyDeadlineMs: 30_000,
      }),
    ).rejects.toThrow(/dies exited before it was ready \(code 4, signal null\)[\s\S]*port in use/);
  });
});
