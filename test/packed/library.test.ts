// The installed package as a library: imported from ESM and required from CommonJS (Node 20.19+, through the
// `default` export condition), the root without the OpenTelemetry SDK, a consumer type-checked against the
// published .d.ts files, and the install without the optional peers smaller than the one with them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { isolatedEnv } from './_cli.js';

const { bare, full } = inject('packed');
const ENTRY_POINTS = ['runspec-eval', 'runspec-eval/traces', 'runspec-eval/telemetry', 'runspec-eval/semconv', 'runspec-eval/report'];

function node(args: string[], cwd = bare): { status: number | null; stdout: string; stderr: string } {
  const env = isolatedEnv();
  try {
    const r = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(env.HOME!, { recursive: true, force: true });
  }
}

function sizeOf(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    if (name.isDirectory()) n += sizeOf(p);
    else if (name.isFile()) n += statSync(p).size;
  }
  return n;
}

describe('the installed package as a library', () => {
  it('imports every entry point from ESM and requires it from CommonJS, with the same names', () => {
    writeFileSync(
      join(bare, 'esm.mjs'),
      `const out = {};\nfor (const e of ${JSON.stringify(ENTRY_POINTS)}) out[e] = Object.keys(await import(e)).sort();\nconsole.log(JSON.stringify(out));\n`,
    );
    writeFileSync(
      join(bare, 'cjs.cjs'),
      `const out = {};\nfor (const e of ${JSON.stringify(ENTRY_POINTS)}) out[e] = Object.keys(require(e)).filter((k) => k !== '__esModule' && k !== 'module.exports').sort();\nconsole.log(JSON.stringify(out));\n`,
    );
    const esm = node(['esm.mjs']);
    expect(esm.status, esm.stderr).toBe(0);
    const cjs = node(['cjs.cjs']);
    expect(cjs.status, cjs.stderr).toBe(0);
    const esmNames = JSON.parse(esm.stdout) as Record<string, string[]>;
    expect(JSON.parse(cjs.stdout)).toEqual(esmNames);
    expect(esmNames['runspec-eval']).toContain('runEvalSuite');
    expect(esmNames['runspec-eval/telemetry']).toContain('createTelemetry');
    expect(esmNames['runspec-eval']).not.toContain('createTelemetry');
  });

  it('publishes no other subpath', () => {
    writeFileSync(join(bare, 'private.mjs'), "try { await import('runspec-eval/core'); console.log('loaded'); } catch (e) { console.log(e.code); }\n");
    expect(node(['private.mjs']).stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('loads the root without the OpenTelemetry SDK or exporters', () => {
    writeFileSync(
      join(bare, 'hooks.mjs'),
      'export async function resolve(s, c, next) { const r = await next(s, c); if (/@opentelemetry\\/(sdk-|exporter-|resources)/.test(r.url)) process.stderr.write(`SDK ${r.url}\\n`); return r; }\n',
    );
    writeFileSync(join(bare, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    writeFileSync(join(bare, 'root.mjs'), "const root = await import('runspec-eval');\nconsole.log(typeof root.runEvalSuite);\n");
    const r = node(['--import', './register.mjs', 'root.mjs']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('function');
    expect(r.stderr).not.toMatch(/SDK /);
    // The hook sees the SDK where it does load: the telemetry subpath.
    writeFileSync(join(bare, 'telemetry.mjs'), "await import('runspec-eval/telemetry');\n");
    expect(node(['--import', './register.mjs', 'telemetry.mjs']).stderr).toMatch(/SDK .*sdk-trace-base/);
  });

  it('type-checks a consumer against the published types (strict, nodenext)', () => {
    writeFileSync(
      join(bare, 'consumer.mts'),
      [
        "import { loadFixtureFile, runEvalSuite, type Case, type RunEvalOutcome } from 'runspec-eval';",
        "import { createTelemetry, type TelemetryConfig } from 'runspec-eval/telemetry';",
        "import { readTracePaths } from 'runspec-eval/traces';",
        "import { ATTR_RUNSPEC_EVAL_CATEGORY } from 'runspec-eval/semconv';",
        "import { renderJUnit } from 'runspec-eval/report';",
        'const cases: Case[] = loadFixtureFile("evals/ops.toml").flatMap((s) => s.cases);',
        'const key: string = ATTR_RUNSPEC_EVAL_CATEGORY;',
        'declare const outcome: RunEvalOutcome;',
        'const code: number = outcome.exitCode;',
        'export const used = [cases, key, code, runEvalSuite, createTelemetry, readTracePaths, renderJUnit] as const;',
        'export type Config = TelemetryConfig;',
        '// @ts-expect-error the root does not export the telemetry setup',
        "import { createTelemetry as fromRoot } from 'runspec-eval';",
        'export const never = fromRoot;',
        '// @ts-expect-error a case id is a string',
        'export const wrong: number = cases[0]!.id;',
      ].join('\n'),
    );
    writeFileSync(
      join(bare, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          lib: ['es2023'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
        },
        files: ['consumer.mts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(bare, 'tsconfig.json')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('installs smaller without the optional peers', () => {
    const bareBytes = sizeOf(join(bare, 'node_modules'));
    const fullBytes = sizeOf(join(full, 'node_modules'));
    process.stdout.write(
      `installed node_modules: ${(bareBytes / 1024 / 1024).toFixed(1)} MB without the optional peers, ${(fullBytes / 1024 / 1024).toFixed(1)} MB with them\n`,
    );
    // The optional peers are absent from the bare install, and that is what makes it smaller.
    for (const peer of ['@grpc/grpc-js', '@modelcontextprotocol/sdk', '@opentelemetry/exporter-trace-otlp-grpc']) {
      expect(existsSync(join(bare, 'node_modules', peer)), peer).toBe(false);
      expect(existsSync(join(full, 'node_modules', peer)), peer).toBe(true);
    }
    expect(fullBytes - bareBytes).toBeGreaterThan(5 * 1024 * 1024);
  });
});
