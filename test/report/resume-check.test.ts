import { hash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { loadFixtureFile } from '../../src/fixtures/load.js';
import { caseDigests } from '../../src/report/resume-check.js';
import type { Case } from '../../src/types/case.js';

const dir = mkdtempSync(join(tmpdir(), 'resume-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The digest as the log header has always stored it: canonical JSON of the case without its source. */
function digestOf(c: Case): string {
  const { source: _source, ...content } = c as Case & { source?: unknown };
  return hash('sha256', canonicalJson(content), 'buffer').toString('hex', 0, 8);
}

describe('caseDigests', () => {
  it('digests each case as the canonical JSON of its content, shared (frozen) parts included', () => {
    const file = join(dir, 'cases.toml');
    const cases = Array.from({ length: 12 }, (_, i) =>
      [
        '[[suite.eval]]',
        `id = "c${i}"`,
        `prompt = "check the service on host-${i % 3} (#${i})"`,
        `expect_tool = "${i % 2 ? 'service_status' : 'restart'}"`,
        `expect_args = { host = "host-${i % 3}", options = { z = 1, a = [${i % 2}, { y = true, b = "x" }] } }`,
        `tags = ["ops", "t${i % 2}"]`,
        i % 4 === 0 ? 'samples = 2' : '',
      ].join('\n'),
    );
    writeFileSync(file, `[[suite]]\nname = "ops"\nsystem = "You are an operations assistant with a long system prompt."\n\n${cases.join('\n\n')}\n`);
    const loaded = loadFixtureFile(file).flatMap((s) => s.cases);
    expect(loaded).toHaveLength(12);
    // The sharer hands out one frozen object for equal parts: the digests go over them more than once.
    expect(loaded.filter((c) => Object.isFrozen(c.tags)).length).toBeGreaterThan(0);
    const twice = [...loaded, ...loaded.map((c) => ({ ...c, id: `${c.id}-copy` }))];
    expect(caseDigests(twice)).toEqual(Object.fromEntries(twice.map((c) => [c.id, digestOf(c)])));
  });
});
