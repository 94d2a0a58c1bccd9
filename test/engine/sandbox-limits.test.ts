import { afterEach, describe, expect, it } from 'vitest';
import { treeDiskBytes } from '../../src/engine/sandbox/beneath.js';
import { createCommandSandbox, type CommandSandbox } from '../../src/engine/sandbox/command.js';
import { runCase } from '../../src/engine/run-case.js';
import { executeWorkspaceTool } from '../../src/engine/workspace-tools.js';
import { createWorktree, type Worktree } from '../../src/engine/worktree.js';
import { createMockProvider } from '../../src/providers/mock.js';
import type { Case } from '../../src/types/case.js';

// One command used to write ~856 MB to the host: only the per-file size, the time limit and max_turns
// bounded it. A case now has a disk budget; its commands are stopped once the worktree passes it.

const MiB = 1024 ** 2;
const BUDGET = 32 * MiB;
/** 2 GiB in files under the 256 MiB per-file limit. */
const WRITE_2GIB = 'for i in 1 2 3 4 5 6 7 8; do head -c 268435455 /dev/zero > big$i; done; echo finished';

const bwrap = createCommandSandbox({ limits: { maxDiskBytes: BUDGET, diskPollMs: 20 } });
const bwrapReady = (await bwrap.ready()).ok;
const sandboxes: Array<{ name: string; make: () => CommandSandbox; usable: boolean }> = [
  { name: 'bubblewrap', make: () => bwrap, usable: bwrapReady },
  { name: 'host (opt-out)', make: () => createCommandSandbox({ mode: 'none', limits: { maxDiskBytes: BUDGET, diskPollMs: 20 } }), usable: true },
];

let wt: Worktree | undefined;
afterEach(async () => {
  await wt?.remove();
  wt = undefined;
});

it('has bubblewrap working in CI, so the sandboxed budget is tested there', () => {
  if (process.env.CI === 'true') expect(bwrapReady).toBe(true);
  else expect(typeof bwrapReady).toBe('boolean');
});

describe.each(sandboxes)('disk budget, $name', ({ make, usable }) => {
  it.runIf(usable)(
    'stops a command writing 2 GiB near the budget and reports it',
    async () => {
      wt = await createWorktree({ 'a.txt': 'a' });
      const r = await make().run({ shell: 'sh', command: WRITE_2GIB, root: wt.root, env: {}, timeoutMs: 120_000, maxOutputBytes: 4096 });
      expect(r.diskBudgetExceeded).toBe(true);
      expect(r.output).not.toContain('finished');
      // Polled every 20 ms here: what was written past the budget is one interval's worth, far below 2 GiB.
      expect(await treeDiskBytes(wt.root)).toBeLessThan(BUDGET + 256 * MiB);
    },
    120_000,
  );

  it.runIf(usable)('leaves a command under the budget alone', async () => {
    wt = await createWorktree({ 'a.txt': 'a' });
    const r = await make().run({
      shell: 'sh',
      command: 'head -c 1048576 /dev/zero > small; echo finished',
      root: wt.root,
      env: {},
      timeoutMs: 60_000,
      maxOutputBytes: 4096,
    });
    expect(r.diskBudgetExceeded).toBeUndefined();
    expect(r.output).toContain('finished');
  });

  it.runIf(usable)(
    'fails the case with "disk budget exceeded" and makes no further model call',
    async () => {
      const c = {
        id: 'writer',
        dialect: 'turnstone',
        mode: 'trajectory',
        prompt: 'write a lot',
        files: { 'a.txt': 'a' },
        settings: {},
        expect: { kind: 'turnstone', actions: [], matchMode: 'subset' },
      } as unknown as Case;
      const provider = createMockProvider({
        script: {
          cases: {
            writer: [
              { toolCalls: [{ name: 'bash', arguments: { command: WRITE_2GIB } }] },
              { toolCalls: [{ name: 'bash', arguments: { command: 'echo again' } }] },
              { text: 'done' },
            ],
          },
        },
      });
      const run = await runCase({ case: c, sample: 0, provider, sandbox: make(), commandTimeoutMs: 120_000, maxTurns: 5 });
      expect(run.status).toBe('error');
      expect(run.error).toMatchObject({ code: 'DISK_BUDGET' });
      expect(run.error?.message).toMatch(/^disk budget exceeded/);
      expect(run.toolCalls).toHaveLength(1);
      expect(run.modelCalls).toHaveLength(1);
    },
    120_000,
  );
});

describe('many commands at once', () => {
  it.runIf(bwrapReady)(
    'runs more than 10 commands on one abort signal without a MaxListenersExceededWarning',
    async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      const trees = await Promise.all(Array.from({ length: 12 }, () => createWorktree({})));
      try {
        const signal = new AbortController().signal;
        const outs = await Promise.all(
          trees.map((w) => executeWorkspaceTool('bash', { command: 'sleep 0.3; echo ok' }, { worktree: w, sandbox: bwrap, signal })),
        );
        expect(outs.map((o) => o.result.trim())).toEqual(Array(12).fill('ok'));
        await new Promise((r) => setImmediate(r));
        expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
      } finally {
        process.off('warning', onWarning);
        await Promise.all(trees.map((w) => w.remove()));
      }
    },
    60_000,
  );
});
