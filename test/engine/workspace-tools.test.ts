import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureError } from '../../src/errors.js';
import { executeWorkspaceTool, WORKSPACE_TOOL_NAMES } from '../../src/engine/workspace-tools.js';
import { createWorktree, type Worktree } from '../../src/engine/worktree.js';
import { WORKSPACE_RUNNABLES } from '../../src/toolset/workspace.js';

const outside = mkdtempSync(join(tmpdir(), 'runspec-outside-'));
writeFileSync(join(outside, 'secret.txt'), 'outside secret');
let wt: Worktree;
const big = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

beforeAll(async () => {
  wt = await createWorktree({
    'src/app.py': 'import sys\n\ndef main():\n    return 0\n',
    'src/shop/config/settings.py': 'DEBUG = False\n',
    'README.md': '# demo\nmain entry\n',
    'logs/big.log': big,
    'dup.txt': 'a a\n',
  });
  symlinkSync(join(outside, 'secret.txt'), join(wt.root, 'link-out.txt'));
  symlinkSync(outside, join(wt.root, 'dir-out'));
});
afterAll(async () => {
  await wt.remove();
  rmSync(outside, { recursive: true, force: true });
});

const run = (name: string, args: Record<string, unknown>, extra: Partial<Parameters<typeof executeWorkspaceTool>[2]> = {}) =>
  executeWorkspaceTool(name, args, { worktree: wt, ...extra });

describe('worktree', () => {
  it('implements every tool of the built-in workspace toolset', () => {
    expect([...WORKSPACE_TOOL_NAMES].sort()).toEqual(WORKSPACE_RUNNABLES.map((r) => r.name).sort());
  });

  it.each([{ path: '../escape.txt' }, { path: '/etc/passwd' }, { path: 'a/../../b' }])('refuses a case file at $path', async ({ path }) => {
    await expect(createWorktree({ [path]: 'x' })).rejects.toThrow(FixtureError);
  });

  it.each([
    { name: 'a parent path', path: '../../etc/passwd', msg: 'escapes the workspace' },
    { name: 'an absolute path', path: '/etc/passwd', msg: 'absolute paths are not allowed' },
    { name: 'a symlinked file pointing out', path: 'link-out.txt', msg: 'through a symlink' },
    { name: 'a path under a symlinked directory', path: 'dir-out/secret.txt', msg: 'through a symlink' },
    { name: 'a new file under a symlinked directory', path: 'dir-out/new.txt', msg: 'through a symlink' },
  ])('refuses $name', async ({ path, msg }) => {
    for (const tool of ['file_read', 'read_file']) {
      const r = await run(tool, { path });
      expect(r.isError).toBe(true);
      expect(r.result).toContain(msg);
      expect(r.result).not.toContain('outside secret');
    }
    const w = await run('write_file', { path, content: 'x' });
    expect(w.result).toMatch(/^Error: /);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('allows a path that climbs and comes back inside', async () => {
    expect((await run('read_file', { path: 'src/../README.md' })).result).toBe('# demo\nmain entry\n');
  });
});

describe('workspace tools', () => {
  it('file_read numbers lines and pages with offset and limit', async () => {
    expect((await run('file_read', { path: 'src/app.py' })).result).toBe('     1\timport sys\n     2\t\n     3\tdef main():\n     4\t    return 0');
    const page = (await run('file_read', { path: 'logs/big.log', offset: 240, limit: 2 })).result;
    expect(page).toBe('   240\tline 240\n   241\tline 241\n[lines 240-241 of 1000; call file_read with offset=242 to continue]');
    const first = (await run('file_read', { path: 'logs/big.log' })).result;
    expect(first).toContain('[lines 1-400 of 1000; call file_read with offset=401 to continue]');
    expect((await run('file_read', { path: 'logs/big.log', offset: 2000 })).result).toMatch(/^Error: offset 2000 is past the end/);
    expect((await run('file_read', { path: 'nope.py' })).result).toBe('Error: no such file or directory: nope.py');
    expect((await run('file_read', { path: 'src' })).result).toMatch(/^Error: src is a directory/);
  });

  it('glob matches ** and bare names at any depth, sorted, relative to the root', async () => {
    expect((await run('glob', { pattern: '**/*.py' })).result).toBe('src/app.py\nsrc/shop/config/settings.py');
    expect((await run('glob', { pattern: 'settings.*' })).result).toBe('src/shop/config/settings.py');
    expect((await run('glob', { pattern: '*.{md,txt}', path: '.' })).result).toBe('README.md\ndup.txt');
    expect((await run('glob', { pattern: 'config/*.py', path: 'src/shop' })).result).toBe('src/shop/config/settings.py');
    expect((await run('glob', { pattern: '**/*.nothing' })).result).toBe('No files match **/*.nothing');
  });

  it('grep searches with a linear-time regex and reports path:line', async () => {
    expect((await run('grep', { pattern: 'def\\s+main' })).result).toBe('src/app.py:3: def main():');
    expect((await run('grep', { pattern: 'main', glob: '*.md' })).result).toBe('README.md:2: main entry');
    expect((await run('grep', { pattern: 'DEBUG', path: 'src/shop/config/settings.py' })).result).toBe('src/shop/config/settings.py:1: DEBUG = False');
    expect((await run('grep', { pattern: '(a+)+\\1' })).result).toMatch(/^Error: invalid regular expression/);
    expect((await run('grep', { pattern: 'zzz' })).result).toBe('No matches for zzz');
  });

  it('list_directory prints a tree to the requested depth, leaving out links that point outside', async () => {
    const tree = (await run('list_directory', {})).result;
    expect(tree.split('\n')).toEqual(['README.md', 'dup.txt', 'logs/', '  big.log', 'src/', '  app.py', '  shop/']);
    expect((await run('list_directory', { path: 'src', depth: 3 })).result).toBe('app.py\nshop/\n  config/\n    settings.py');
  });

  it('edits an exact unique string, and refuses a missing or ambiguous one', async () => {
    await run('write_file', { path: 'new/dir/f.txt', content: 'hello wrld\n' });
    expect((await run('file_edit', { path: 'new/dir/f.txt', old_string: 'wrld', new_string: 'world' })).result).toBe(
      'Edited new/dir/f.txt: replaced 1 occurrence',
    );
    expect(readFileSync(join(wt.root, 'new/dir/f.txt'), 'utf8')).toBe('hello world\n');
    expect((await run('edit_file', { path: 'new/dir/f.txt', old_string: 'zzz', new_string: 'y' })).result).toBe('Error: old_string not found in new/dir/f.txt');
    expect((await run('edit_file', { path: 'dup.txt', old_string: 'a', new_string: 'b' })).result).toMatch(/^Error: old_string occurs 2 times/);
    expect((await run('file_write', { path: 'w.txt', content: 'abc' })).result).toBe('Wrote 3 bytes to w.txt');
  });

  it('runs commands in the worktree with a minimal environment, the worktree path shown as "."', async () => {
    process.env.RUNSPEC_TEST_LEAK = 'sk-should-not-leak';
    try {
      const r = await run('run_command', { command: 'pwd; ls src; echo "[$RUNSPEC_TEST_LEAK]"' });
      expect(r.isError).toBe(false);
      // the random worktree path shows as "." so a recorded run replays identically
      expect(r.result).toBe('.\napp.py\nshop\n[]\n');
    } finally {
      delete process.env.RUNSPEC_TEST_LEAK;
    }
    expect((await run('bash', { command: 'echo $((1+2)) >&2' })).result).toBe('3\n');
    expect((await run('bash', { command: 'exit 3' })).result).toBe('Error: command exited with code 3');
  });

  it('stops a command at its time limit and caps its output', async () => {
    const slow = await run('run_command', { command: 'echo started; sleep 5' }, { commandTimeoutMs: 200 });
    expect(slow.result).toBe('Error: command timed out after 200 ms\nstarted\n');
    const loud = await run('bash', { command: 'yes | head -c 100000' }, { maxOutputBytes: 1000 });
    expect(loud.result.length).toBeLessThan(1100);
    expect(loud.result).toContain('[output truncated at 1000 bytes]');
  });

  it('answers unparseable arguments and missing ones with an error', async () => {
    expect((await run('file_read', { _raw: '{"path": ' })).result).toBe('Error: the arguments are not valid JSON');
    expect((await run('file_read', {})).result).toBe('Error: missing required argument "path"');
    expect((await run('teleport', {})).result).toBe('Error: unknown tool "teleport"');
  });
});
