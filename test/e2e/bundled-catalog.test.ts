import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-list-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('list of the bundled catalog', () => {
  it('is written by the build for the bundled fixtures as they are now', async () => {
    const catalog = (await import(pathToFileURL(join(REPO_ROOT, 'dist/fixtures/catalog.js')).href)) as {
      BUNDLED_FIXTURES_DIR: string;
      bundledFiles(dir: string): string[];
    };
    const bundled = (await import(pathToFileURL(join(REPO_ROOT, 'dist/fixtures/bundled.js')).href)) as {
      readBundledCatalog(dir: string, files: string[]): unknown;
    };
    expect(bundled.readBundledCatalog(catalog.BUNDLED_FIXTURES_DIR, catalog.bundledFiles(catalog.BUNDLED_FIXTURES_DIR))).toBeDefined();
  });

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
