import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, renameSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandSandbox, findExecutable, type CommandSandbox } from '../../src/engine/sandbox/command.js';
import { executeWorkspaceTool } from '../../src/engine/workspace-tools.js';
import { createWorktree, type Worktree } from '../../src/engine/worktree.js';

// A root harness hands the worktree to uid 65534 while commands run. Any process of that uid can then
// swap a directory of the tree for a symlink at any moment. These races used to make the root harness
// chown a root-owned directory's files to 65534, write a model-chosen file into a root-only directory,
// read a root-only file back to the model, and delete outside files while removing the worktree.
// Here a real uid-65534 process swaps in a bounded loop while the harness works, with commands enabled.

const isRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;
const setpriv = findExecutable('setpriv');
const NOBODY = 65534;

const sandbox: CommandSandbox = createCommandSandbox();
const commandsReady = isRoot && !!setpriv && (await sandbox.ready()).ok;
let victim: string;

it('runs the root race tests in CI (root, bubblewrap working): a skip there is a failure', () => {
  if (process.env.CI === 'true') expect(commandsReady, 'CI=true: the root race tests need root, setpriv and a working bubblewrap').toBe(true);
  else expect(typeof commandsReady).toBe('boolean');
});

/** A root-only directory outside the worktree with root-owned files in it. */
function makeVictim(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-race-victim-'));
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}.txt`), `root secret ${i}\n`);
  writeFileSync(join(dir, 'secret.txt'), 'root-only secret\n');
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * A uid-65534 process that, for at most `maxSwaps` rounds or `maxMs`, renames `dir` aside, puts a symlink
 * to `target` in its place, and puts the directory back.
 */
function startSwapper(dir: string, target: string, maxSwaps = 2_000_000, maxMs = 60_000): ChildProcess {
  const script = `
    const fs = require('node:fs');
    const [dir, target, max, ms] = process.argv.slice(1);
    const aside = dir + '.aside';
    const end = Date.now() + Number(ms);
    // Each state held a little (0.2 ms), so a check and a use that are apart in time see different ones.
    const hold = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 0.2);
    for (let i = 0; i < Number(max) && Date.now() < end; i++) {
      try {
        fs.renameSync(dir, aside);
        fs.symlinkSync(target, dir);
        hold();
        fs.unlinkSync(dir);
        fs.renameSync(aside, dir);
        hold();
      } catch {}
    }
  `;
  return spawn(
    setpriv!,
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script, dir, target, String(maxSwaps), String(maxMs)],
    {
      stdio: 'ignore',
    },
  );
}

async function stopSwapper(p: ChildProcess, dir: string): Promise<void> {
  if (p.exitCode === null && p.signalCode === null) {
    p.kill('SIGKILL');
    await new Promise((r) => p.once('exit', r));
  }
  // Leave the tree as it was if the swapper was stopped halfway.
  // (write_file may have made a fresh `d` while the real one was aside.)
  if (existsSync(`${dir}.aside`)) {
    rmSync(dir, { recursive: true, force: true });
    renameSync(`${dir}.aside`, dir);
  }
}

function victimUntouched(): void {
  const names = readdirSync(victim).sort();
  expect(names).not.toContain('pwn.txt');
  expect(names).toHaveLength(21);
  for (const n of names) expect(statSync(join(victim, n)).uid, `${victim}/${n} changed owner`).toBe(0);
  expect(statSync(victim).uid).toBe(0);
}

describe.runIf(commandsReady)('root harness against a uid-65534 process swapping directories for symlinks', () => {
  let wt: Worktree;
  let swapper: ChildProcess | undefined;

  beforeEach(() => {
    victim = makeVictim();
  });
  afterEach(async () => {
    rmSync(victim, { recursive: true, force: true });
    if (swapper) await stopSwapper(swapper, join(wt.root, 'd'));
    swapper = undefined;
    await wt.remove().catch(() => undefined);
  });

  async function handedOver(): Promise<Worktree> {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`d/f${i}.txt`] = `${i}\n`;
    const w = await createWorktree(files);
    // The first command hands the tree to uid 65534, as a case with commands does.
    const r = await sandbox.run({ shell: 'sh', command: 'true', root: w.root, env: {}, timeoutMs: 20_000, maxOutputBytes: 1024 });
    expect(r.exitCode, r.spawnError ?? r.output).toBe(0);
    expect(statSync(join(w.root, 'd')).uid).toBe(NOBODY);
    return w;
  }

  it('hands the tree over before every command without chowning anything outside it', async () => {
    wt = await handedOver();
    swapper = startSwapper(join(wt.root, 'd'), victim);
    for (let i = 0; i < 40; i++) {
      // Root-owned files the harness wrote between commands, to be handed over by the next command.
      writeFileSync(join(wt.root, `new${i}.txt`), 'x');
      await sandbox.run({ shell: 'sh', command: 'true', root: wt.root, env: {}, timeoutMs: 20_000, maxOutputBytes: 1024 });
      if (readdirSync(victim).some((n) => statSync(join(victim, n)).uid !== 0)) break;
    }
    await stopSwapper(swapper, join(wt.root, 'd'));
    victimUntouched();
    // The hand-over still works: the harness's files went to uid 65534.
    expect(statSync(join(wt.root, 'new0.txt')).uid).toBe(NOBODY);
  }, 120_000);

  it('never writes or reads outside the tree through a directory swapped mid-call', async () => {
    wt = await handedOver();
    swapper = startSwapper(join(wt.root, 'd'), victim);
    const ctx = { worktree: wt, sandbox };
    const reads: string[] = [];
    for (let i = 0; i < 1500; i++) {
      await executeWorkspaceTool('write_file', { path: 'd/pwn.txt', content: 'model-chosen\n' }, ctx);
      reads.push((await executeWorkspaceTool('read_file', { path: 'd/secret.txt' }, ctx)).result);
      if (existsSync(join(victim, 'pwn.txt'))) break;
    }
    await stopSwapper(swapper, join(wt.root, 'd'));
    victimUntouched();
    expect(reads.filter((r) => r.includes('root-only secret'))).toEqual([]);
    // Between swaps the writes did land inside.
    expect(existsSync(join(wt.root, 'd', 'pwn.txt'))).toBe(true);
  }, 120_000);

  it('removes the worktree without deleting anything outside it', async () => {
    for (let round = 0; round < 10; round++) {
      wt = await handedOver();
      mkdirSync(join(wt.root, 'd', 'sub'));
      swapper = startSwapper(join(wt.root, 'd'), victim);
      await new Promise((r) => setTimeout(r, 20));
      await wt.remove().catch(() => undefined);
      await stopSwapper(swapper, join(wt.root, 'd'));
      swapper = undefined;
      victimUntouched();
      await wt.remove().catch(() => undefined);
    }
  }, 120_000);
});
