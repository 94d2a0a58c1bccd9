// examples/phoenix and examples/langsmith: the runspec.toml parses and, with the env snippet, resolves to
// the documented set-up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { loadConfigFile } from '../../src/config/file.js';
import { resolveTelemetryConfig } from '../../src/config/telemetry.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

/** The uncommented `export NAME="value"` lines of an env snippet, with ${VAR} expanded. */
function sourceEnv(file: string, given: Record<string, string>): Record<string, string> {
  const env = { ...given };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^export ([A-Z_]+)="(.*)"$/.exec(line.trim());
    if (!m) continue;
    if (m[1]! in given) continue;
    env[m[1]!] = m[2]!.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => env[name] ?? '');
  }
  return env;
}

describe('telemetry examples', () => {
  it('phoenix: protobuf to :6006, annotations on, project set, key from PHOENIX_API_KEY', () => {
    const dir = join(REPO_ROOT, 'examples', 'phoenix');
    const env = readEnv(sourceEnv(join(dir, 'env.sh'), { PHOENIX_API_KEY: 'px-test' }));
    const config = resolveTelemetryConfig({ flags: {}, env, file: loadConfigFile(dir).telemetry, projectDir: dir });
    expect(config).toMatchObject({
      enabled: true,
      captureContent: true,
      annotations: true,
      annotationsUrl: 'http://127.0.0.1:6006',
      project: 'runspec-evals',
      apiKey: 'px-test',
      exporter: { kind: 'otlp', url: 'http://127.0.0.1:6006/v1/traces', protocol: 'http/protobuf', headers: { authorization: 'Bearer px-test' } },
    });
    expect(env.warnings).toEqual([]);
  });

  it('langsmith: the standard OTLP variables carry the endpoint, x-api-key and Langsmith-Project', () => {
    const dir = join(REPO_ROOT, 'examples', 'langsmith');
    const env = readEnv(sourceEnv(join(dir, 'env.sh'), { LANGSMITH_API_KEY: 'ls-test' }));
    const config = resolveTelemetryConfig({ flags: {}, env, file: loadConfigFile(dir).telemetry, projectDir: dir });
    expect(config).toMatchObject({
      enabled: true,
      annotations: false,
      exporter: {
        kind: 'otlp',
        url: 'https://api.smith.langchain.com/otel/v1/traces',
        protocol: 'http/protobuf',
        headers: { 'x-api-key': 'ls-test', 'Langsmith-Project': 'runspec-evals' },
      },
    });
    expect(env.warnings).toEqual([]);
  });
});
