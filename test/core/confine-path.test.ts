import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathRefusedError, resolveInside } from '../../src/core/confine-path.js';

describe('resolveInside', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'runspec-confine-')));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'runspec-confine-out-')));
  mkdirSync(join(root, 'a'));
  writeFileSync(join(root, 'a', 'f.txt'), 'x');
  writeFileSync(join(outside, 'secret'), 'x');
  symlinkSync(outside, join(root, 'out'));
  symlinkSync(join(root, 'a'), join(root, 'in'));

  it.each([
    { name: 'a parent path', path: '../x' },
    { name: 'an absolute path', path: join(root, 'a', 'f.txt') },
    { name: 'a link out', path: 'out/secret' },
    { name: 'a missing file under a link out', path: 'out/none/deeper' },
  ])('refuses $name by default', async ({ path }) => {
    await expect(resolveInside(root, path)).rejects.toBeInstanceOf(PathRefusedError);
  });

  it('refuses an outside path with the same message whether or not it exists', async () => {
    const a = await resolveInside(root, join(outside, 'secret'), { allowAbsolute: true, rootName: 'project' }).catch((e: Error) => e.message);
    const b = await resolveInside(root, join(outside, 'nothing'), { allowAbsolute: true, rootName: 'project' }).catch((e: Error) => e.message);
    expect(a).toBe(`path escapes the project: ${join(outside, 'secret')}`);
    expect(b).toBe(`path escapes the project: ${join(outside, 'nothing')}`);
  });

  it('resolves links that stay inside and keeps a missing tail', async () => {
    expect(await resolveInside(root, 'in/f.txt')).toBe(join(root, 'a', 'f.txt'));
    expect(await resolveInside(root, 'in/new/g.txt')).toBe(join(root, 'a', 'new', 'g.txt'));
    expect(await resolveInside(root, join(root, 'a'), { allowAbsolute: true })).toBe(join(root, 'a'));
  });
});
