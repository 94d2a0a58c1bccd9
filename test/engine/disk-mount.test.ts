import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorktreeMounter } from '../../src/engine/sandbox/disk-mount.js';

// Where root may not mount a tmpfs (a container without CAP_SYS_ADMIN), the disk budget falls back to the
// watchdog and a run says so in one line, once; not root, nothing is mounted and nothing is said.
// (The mounted path itself, as root, is tested in test/integration/disk-budget-tmpfs.test.ts.)

const dir = mkdtempSync(join(tmpdir(), 'runspec-mounter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('worktree mounter', () => {
  it('says once, in one line, that the watchdog is the budget when root cannot mount', async () => {
    const m = createWorktreeMounter(1024 ** 2, { asRoot: true, mountCommand: 'runspec-eval-no-such-mount' });
    const note = await m.probe();
    expect(note).toMatch(
      /^disk budget: running as root, but a tmpfs cannot be mounted for the worktrees here \(.+\); the budget is enforced by checking each worktree's size every 250 ms instead$/,
    );
    expect(note).not.toContain('\n');
    // The interval said is the one the watchdog uses.
    const fast = createWorktreeMounter(1024 ** 2, { asRoot: true, mountCommand: 'runspec-eval-no-such-mount', pollMs: 40 });
    expect(await fast.probe()).toMatch(/every 40 ms instead$/);
    expect(m.probe()).toBe(m.probe());
    expect(await m.mount(dir)).toBeUndefined();
    expect(m.isMounted(dir)).toBe(false);
    // The probe's directory is gone.
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`runspec-eval-probe-pid${process.pid}-`))).toEqual([]);
  });

  it('mounts nothing and says nothing as root in watchdog mode (the mount is not even tried)', async () => {
    const m = createWorktreeMounter(1024 ** 2, { asRoot: true, mountCommand: 'runspec-eval-no-such-mount', mode: 'watchdog' });
    expect(await m.probe()).toBeUndefined();
    expect(await m.mount(dir)).toBeUndefined();
    expect(m.isMounted(dir)).toBe(false);
  });

  it('mounts nothing and says nothing when not root', async () => {
    const m = createWorktreeMounter(1024 ** 2, { asRoot: false });
    expect(await m.probe()).toBeUndefined();
    expect(await m.mount(dir)).toBeUndefined();
  });
});
