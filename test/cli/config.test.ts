import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

describe('runspec-eval config', () => {
  it('shows each resolved value with its source and never a secret value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-config-cli-'));
    writeFileSync(
      join(dir, 'runspec.toml'),
      '[llm]\nprovider = "local"\ntool_mode = "search"\n\n[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:8080/v1"\nmodel = "m1"\napi_key_env = "LOCAL_KEY"\n',
    );
    const r = await runCli(['--path', dir, 'config', '--output', 'json'], {
      env: {
        LOCAL_KEY: 'sk-local-secret',
        RUNSPEC_CONCURRENCY: '2',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=hdr-secret-value,Langsmith-Project=evals',
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const cfg = JSON.parse(r.stdout);
    expect(cfg.provider).toEqual({ value: 'local', source: 'file' });
    expect(cfg['provider.base_url']).toEqual({ value: 'http://127.0.0.1:8080/v1', source: 'file' });
    expect(cfg['provider.api_key']).toEqual({ value: 'LOCAL_KEY (set)', source: 'env' });
    expect(cfg.tool_mode).toEqual({ value: 'search', source: 'file' });
    expect(cfg.concurrency).toEqual({ value: '2', source: 'env' });
    expect(cfg['telemetry.endpoint']).toEqual({ value: 'http://127.0.0.1:4318/v1/traces', source: 'env' });
    expect(cfg['telemetry.headers'].value).toBe('x-api-key=***, Langsmith-Project=***');
    expect(r.stdout + r.stderr).not.toMatch(/sk-local-secret|hdr-secret-value/);
  });

  it('falls back to the defaults in an empty project', async () => {
    const r = await runCli(['--path', mkdtempSync(join(tmpdir(), 'runspec-config-cli-')), 'config']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/provider\s+openai\s+\(default\)/);
    expect(r.stdout).toMatch(/telemetry\.endpoint\s+\(none: OTLP JSON lines under .*\.runspec\/traces\)/);
  });

  // The file's project used to beat PHOENIX_PROJECT_NAME, and `config` guessed the sources ("file" always).
  it('ranks the environment over the file for the Phoenix project and the service name, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-config-cli-'));
    writeFileSync(join(dir, 'runspec.toml'), '[telemetry]\nendpoint = "http://127.0.0.1:6006/v1/traces"\nproject = "fromfile"\nservice_name = "svc-file"\n');
    const fromEnv = await runCli(['--path', dir, 'config'], { env: { PHOENIX_PROJECT_NAME: 'fromenv', OTEL_RESOURCE_ATTRIBUTES: 'service.name=svc-env' } });
    expect(fromEnv.exitCode, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toMatch(/^telemetry\.project\s+fromenv\s+\(env\)$/m);
    expect(fromEnv.stdout).toMatch(/^telemetry\.service_name\s+svc-env\s+\(env\)$/m);
    const fromFile = await runCli(['--path', dir, 'config']);
    expect(fromFile.stdout).toMatch(/^telemetry\.project\s+fromfile\s+\(file\)$/m);
    expect(fromFile.stdout).toMatch(/^telemetry\.service_name\s+svc-file\s+\(file\)$/m);
  });
});
