import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/file.js';
import { readEnv } from '../../src/config/env.js';
import { redactSecrets } from '../../src/core/redact.js';
import { firstSet } from '../../src/config/setting.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

function project(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-config-'));
  writeFileSync(join(dir, 'runspec.toml'), text);
  return dir;
}

describe('runspec.toml', () => {
  it('accepts every key of examples/runspec.toml', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-config-'));
    copyFileSync(join(REPO_ROOT, 'examples/runspec.toml'), join(dir, 'runspec.toml'));
    const cfg = loadConfigFile(dir);
    expect(cfg.llm?.tool_mode).toBe('dedup');
    expect(cfg.providers?.local?.kind).toBe('openai');
  });

  it('treats a missing file as empty', () => {
    expect(loadConfigFile(mkdtempSync(join(tmpdir(), 'runspec-config-')))).toEqual({});
  });

  it('names file, line and column of a TOML syntax error', () => {
    expect(() => loadConfigFile(project('[llm]\nmodel = \n'))).toThrow(/runspec\.toml:2:\d+: TOML syntax error/);
  });

  it('names the field of a schema error', () => {
    expect(() => loadConfigFile(project('[llm]\ntool_mode = "flat"\n'))).toThrow(/runspec\.toml:2: llm\.tool_mode: /);
    expect(() => loadConfigFile(project('[telemetry]\ncapture = true\n'))).toThrow(
      /runspec\.toml:2: telemetry\.capture: unknown field; did you mean "capture_content"\?/,
    );
  });
});

describe('environment', () => {
  it('treats empty values as unset and warns on bad ones', () => {
    const env = readEnv({ A: '', B: ' x ', N: 'ten', U: 'not a url' });
    expect(env.get('A')).toBeUndefined();
    expect(env.get('B')).toBe('x');
    expect(env.int('N')).toBeUndefined();
    expect(env.url('U')).toBeUndefined();
    expect(env.warnings).toHaveLength(2);
  });

  it('redacts secret values wherever they appear', () => {
    const text = 'calling with sk-test-secret and header abc123';
    expect(redactSecrets(text, { OPENAI_API_KEY: 'sk-test-secret', OTEL_EXPORTER_OTLP_HEADERS: 'abc123', HOME: '/root' })).toBe(
      'calling with *** and header ***',
    );
  });

  it('resolves flag > env > file > default and remembers the source', () => {
    expect(firstSet(undefined, 'e', 'f', 'd')).toEqual({ value: 'e', source: 'env' });
    expect(firstSet('x', 'e', 'f', 'd')).toEqual({ value: 'x', source: 'flag' });
    expect(firstSet(undefined, undefined, undefined, 'd')).toEqual({ value: 'd', source: 'default' });
  });
});

describe('[targets.NAME]', () => {
  it.each([
    { name: 'an unknown key', text: '[targets.bot]\nkind = "module"\nmodule = "a.mjs"\ntimeout = 5\n', want: /runspec\.toml:\d: targets\.bot.*timeout/ },
    { name: 'a missing required key', text: '[targets.bot]\nkind = "module"\n', want: /runspec\.toml:\d: targets\.bot\.module: / },
    {
      name: 'an unknown kind',
      text: '[targets.bot]\nkind = "lambda"\n',
      want: /runspec\.toml:2: targets\.bot\.kind: .*'model' \| 'module' \| 'http' \| 'command'/,
    },
    {
      name: 'a command that is not a list',
      text: '[targets.bot]\nkind = "command"\ncommand = "python agent.py"\n',
      want: /runspec\.toml:3: targets\.bot\.command: .*expected array/,
    },
  ])('refuses $name with the line and field', ({ text, want }) => {
    expect(() => loadConfigFile(project(text))).toThrow(want);
  });
});
