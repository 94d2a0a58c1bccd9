// The lint rules STYLE.md promises, proved on synthetic files linted with the repository's .oxlintrc.json:
// no floating promises (type-aware, oxlint-tsgolint), no explicit `any`, no console or process.exit outside
// src/cli/. `npm run lint` (run by .ci/run) keeps the real tree clean.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/run-cli.js';

const OXLINT = join(REPO_ROOT, 'node_modules/oxlint/bin/oxlint');

interface Diagnostic {
  code: string;
  filename: string;
  labels: { span: { line: number } }[];
}

describe('lint rules', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-lint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('flag floating promises, explicit any, and console/process.exit outside src/cli/, also through globalThis or global', async () => {
    const config = JSON.parse(readFileSync(join(REPO_ROOT, '.oxlintrc.json'), 'utf8')) as Record<string, unknown>;
    delete config.$schema;
    writeFileSync(join(dir, '.oxlintrc.json'), JSON.stringify(config));
    const write = (rel: string, text: string): void => {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    };
    write(
      'src/engine/bad.ts',
      [
        'export async function later(): Promise<number> {',
        '  return 1;',
        '}',
        'export function run(x: any): void {',
        '  later();',
        '  console.log(x);',
        '  process.exit(1);',
        '}',
        // Reaching process and console through the global object does not evade the rules.
        'export function sly(): void {',
        "  globalThis.console.error('x');",
        '  globalThis.process.exit(1);',
        "  global.console.log('y');",
        '  const { exit } = global.process;',
        '  exit(2);',
        '}',
        '',
      ].join('\n'),
    );
    write(
      'src/cli/ok.ts',
      [
        'export async function later(): Promise<number> {',
        '  return 1;',
        '}',
        'export async function run(): Promise<void> {',
        '  console.log(await later());',
        "  globalThis.console.error('done');",
        '  process.exit(0);',
        '}',
        '',
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [OXLINT, '--type-aware', '-c', join(dir, '.oxlintrc.json'), '--format', 'json', join(dir, 'src')],
      {
        cwd: dir,
        timeout: 60_000,
      },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const found = (JSON.parse(stdout) as { diagnostics: Diagnostic[] }).diagnostics
      .map((d) => `${isAbsolute(d.filename) ? relative(dir, d.filename) : d.filename}:${d.labels[0]?.span.line ?? 0} ${d.code}`)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(found).toEqual([
      'src/engine/bad.ts:4 typescript(no-explicit-any)',
      'src/engine/bad.ts:5 typescript(no-floating-promises)',
      'src/engine/bad.ts:6 eslint(no-console)',
      'src/engine/bad.ts:7 eslint(no-restricted-properties)',
      'src/engine/bad.ts:10 eslint(no-restricted-properties)',
      'src/engine/bad.ts:11 eslint(no-restricted-properties)',
      'src/engine/bad.ts:12 eslint(no-restricted-properties)',
      'src/engine/bad.ts:13 eslint(no-restricted-properties)',
    ]);
  });
});
