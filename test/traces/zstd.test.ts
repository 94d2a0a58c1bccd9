// Files compressed whole with the zstd tool used to read as "nothing readable" (exit 2): only zstd inside
// a length-prefixed frame was understood. Fixtures by scripts/zstd-fixtures.mjs with Debian's zstd; read
// with the pure-JS decoder (fzstd) on every Node version.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraceStream, type TraceInputItem } from '../../src/traces/readers.js';
import { runCli } from '../helpers/run-cli.js';
import { verdictLines } from '../helpers/verdict-lines.js';

const DIR = join(import.meta.dirname, 'fixtures', 'zstd');
const PLAIN = join(import.meta.dirname, 'fixtures', 'producers', 'ai-sdk-6-content-on.jsonl');

async function read(file: string): Promise<TraceInputItem[]> {
  const items: TraceInputItem[] = [];
  for await (const item of readTraceStream(createReadStream(file), { name: file })) items.push(item);
  return items;
}
const spanIds = (items: TraceInputItem[]) => items.flatMap((i) => (i.kind === 'spans' ? i.spans.map((s) => s.spanId) : [])).sort();

describe('zstd inputs', () => {
  it.each(['whole.jsonl.zst', 'frames.jsonl.zst', 'skippable-first.jsonl.zst', 'native-proto.zst'])(
    '%s reads the same spans as the plain file',
    async (name) => {
      const plain = await read(PLAIN);
      const items = await read(join(DIR, name));
      expect(items.filter((i) => i.kind === 'problem')).toEqual([]);
      expect(spanIds(items)).toEqual(spanIds(plain));
      expect(spanIds(items).length).toBeGreaterThan(0);
    },
  );

  const tmp = mkdtempSync(join(tmpdir(), 'runspec-zstd-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('reports corrupt zstd data as an input problem naming the file', async () => {
    const bad = join(tmp, 'bad.zst');
    writeFileSync(bad, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
    const items = await read(bad);
    expect(items).toEqual([{ kind: 'problem', problem: { place: bad, reason: expect.stringMatching(/^corrupt zstd data/) } }]);
  });

  it('score reads a whole-file zstd and the Collector native layout through the built CLI', async () => {
    const r = await runCli(['score', join(DIR, 'whole.jsonl.zst'), join(DIR, 'native-proto.zst')], {
      cwd: tmp,
      spawn: true,
      env: { HOME: tmp, XDG_CONFIG_HOME: tmp, TMPDIR: tmp },
    });
    expect(r.stderr).not.toMatch(/nothing readable/);
    expect(r.exitCode).toBe(0);
    const lines = verdictLines(r.stdout);
    // Both files hold the same four traces (their spans join): one final line each.
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => l.traceId)).size).toBe(4);
    expect(lines.every((l) => l.family === 'ai-sdk' && l.final)).toBe(true);
  });
});
