import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';

// A second interrupt while the results document is written calls process.exit(130) between event-loop
// turns: no finally or abort runs, so the atomic writer's temp file (hundreds of MB for a big run) used to
// stay behind. Its 'exit' listener removes it; the target keeps its previous content or stays absent.

const ATOMIC = pathToFileURL(join(REPO_ROOT, 'dist/core/atomic-write.js')).href;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-exit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Open writers, write 3 MiB (past the 1 MiB buffer, so bytes are on disk), commit `commit` of them, then process.exit(130). */
function exitMidWrite(files: string[], commit: string[] = []): { status: number | null; stderr: string } {
  const script = `
    import { existsSync, readdirSync } from 'node:fs';
    const { createAtomicFileWriter } = await import(${JSON.stringify(ATOMIC)});
    const files = ${JSON.stringify(files)};
    const commit = new Set(${JSON.stringify(commit)});
    for (const f of files) {
      const w = createAtomicFileWriter(f);
      for (let i = 0; i < 3; i++) w.write('x'.repeat(1 << 20));
      if (commit.has(f)) w.commit();
    }
    const temps = readdirSync(${JSON.stringify(dir)}).filter((n) => n.endsWith('.tmp'));
    if (temps.length !== files.length - commit.size) { console.error('expected temp files on disk, saw ' + temps.join(',')); process.exit(1); }
    setTimeout(() => process.exit(130), 1);
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('process.exit while an atomic write is open', () => {
  it('removes the temp file and leaves the previous target intact', () => {
    const target = join(dir, 'results.json');
    writeFileSync(target, 'previous');
    const r = exitMidWrite([target]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(130);
    expect(readdirSync(dir)).toEqual(['results.json']);
    expect(readFileSync(target, 'utf8')).toBe('previous');
  });

  it('removes every open temp file, leaves absent targets absent and keeps a committed one', () => {
    const [a, b, c] = ['a.json', 'b.json', 'c.json'].map((n) => join(dir, n));
    const r = exitMidWrite([a!, b!, c!], [b!]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(130);
    expect(readdirSync(dir)).toEqual(['b.json']);
    expect(readFileSync(b!, 'utf8')).toHaveLength(3 << 20);
  });
});
