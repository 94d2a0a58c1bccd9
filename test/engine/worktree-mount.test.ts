import { describe, expect, it } from 'vitest';
import { runCase } from '../../src/engine/run-case.js';
import type { CommandSandbox } from '../../src/engine/sandbox/command.js';
import { createMockProvider } from '../../src/providers/mock.js';
import { WORKSPACE_TOOLSET } from '../../src/toolset/workspace.js';
import type { Case } from '../../src/types/case.js';
import type { Toolset } from '../../src/types/toolset.js';

// A trajectory case's worktree is mounted as a tmpfs of the disk budget (as root) only when its toolset has
// a command tool: without one nothing can write big files, and the mount (and `mount` itself) is skipped.

const aCase: Case = {
  id: 'c1',
  dialect: 'replio',
  tags: [],
  source: { file: 'inline', source: 'file' },
  prompt: 'look around',
  files: { 'a.txt': 'a' },
  mode: 'trajectory',
  settings: {},
};

function spySandbox(): CommandSandbox & { mounts: string[] } {
  const mounts: string[] = [];
  return {
    mode: 'none',
    mounts,
    ready: () => Promise.resolve({ ok: true }),
    run: () => Promise.reject(new Error('no command expected')),
    mountWorktree(root) {
      mounts.push(root);
      return Promise.resolve(undefined);
    },
  };
}

describe('the worktree mount of a trajectory case', () => {
  it.each([
    { name: 'the workspace toolset (bash, run_command)', toolset: WORKSPACE_TOOLSET, mounted: 1 },
    {
      name: 'a toolset without command tools',
      toolset: { ...WORKSPACE_TOOLSET, runnables: WORKSPACE_TOOLSET.runnables.filter((r) => r.name !== 'bash' && r.name !== 'run_command') } as Toolset,
      mounted: 0,
    },
  ])('$name: mounted $mounted time(s)', async ({ toolset, mounted }) => {
    const sandbox = spySandbox();
    const provider = createMockProvider({ script: { default: [{ text: 'done' }] } });
    const run = await runCase({ case: aCase, sample: 0, provider, toolset, sandbox });
    expect(run.status).toBe('ok');
    expect(sandbox.mounts).toHaveLength(mounted);
  });
});
