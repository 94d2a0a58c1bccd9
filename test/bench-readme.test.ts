// The README's performance table is the rendering of bench/results.json (node bench/render-readme.mjs),
// so it quotes the committed bench run and nothing else.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

describe('README performance table', () => {
  it('is bench/results.json rendered', () => {
    const r = spawnSync(process.execPath, [join(root, 'bench', 'render-readme.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
