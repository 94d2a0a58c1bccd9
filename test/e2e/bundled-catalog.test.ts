import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-list-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('list of the bundled catalog', () => {
  it('prints from the catalog the build wrote exactly what loading the bundled files prints', async () => {
    const env = { HOME: dir };
    const built = await runCli(['list', '--output', 'json'], { cwd: dir, env, spawn: true });
    const loaded = await runCli(['list', '--output', 'json'], { cwd: dir, env });
    expect(built.exitCode).toBe(0);
    expect(built.stderr).toBe(loaded.stderr);
    expect(JSON.parse(built.stdout)).toEqual(JSON.parse(loaded.stdout));
    expect(JSON.parse(built.stdout).length).toBeGreaterThan(5);
  });
});
