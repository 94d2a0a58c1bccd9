// resolveTelemetryConfig: flag > env > runspec.toml > default, with OTEL_EXPORTER_OTLP_* as the
// specification defines them; bad OTEL_* values warn and fall back, bad values of ours are ConfigErrors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import type { ConfigFile } from '../../src/config/file.js';
import { phoenixBase, resolveTelemetryConfig, type TelemetryFlags } from '../../src/config/telemetry.js';
import { ConfigError } from '../../src/errors.js';

const PROJECT = '/work/project';

function resolve(env: Record<string, string> = {}, file?: ConfigFile['telemetry'], flags: TelemetryFlags = {}) {
  const e = readEnv(env);
  const config = resolveTelemetryConfig({ flags, env: e, file, projectDir: PROJECT });
  return { config, warnings: e.warnings };
}

describe('resolveTelemetryConfig', () => {
  it('capture_content = "hashed" needs RUNSPEC_HASH_KEY; a flag or env turning content on wins; trace_url must be http(s)', () => {
    expect(() => resolve({}, { capture_content: 'hashed' })).toThrow(/capture_content: "hashed" needs a key in RUNSPEC_HASH_KEY/);
    expect(resolve({ RUNSPEC_HASH_KEY: 'k' }, { capture_content: 'hashed' }).config).toMatchObject({
      captureContent: false,
      captureHashed: true,
      hashKey: 'k',
    });
    expect(resolve({ RUNSPEC_HASH_KEY: 'k' }, { capture_content: 'hashed' }, { captureContent: true }).config).toMatchObject({
      captureContent: true,
      captureHashed: false,
    });
    expect(resolve({}, { trace_url: 'http://p/{trace_id}' }).config.traceUrl).toBe('http://p/{trace_id}');
    expect(() => resolve({}, { trace_url: 'javascript:alert(1)' })).toThrow(ConfigError);
  });

  it('defaults to enabled, no content, no annotations, JSON lines under .runspec/traces', () => {
    const { config, warnings } = resolve();
    expect(config).toMatchObject({
      enabled: true,
      captureContent: false,
      annotations: false,
      exporter: { kind: 'file', dir: join(PROJECT, '.runspec', 'traces') },
      timeoutMs: 10_000,
      serviceName: 'runspec-eval',
      resourceAttributes: {},
      apiKeyEnv: 'PHOENIX_API_KEY',
    });
    expect(warnings).toEqual([]);
  });

  it('uses OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, and appends v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(resolve({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }).config.exporter).toMatchObject({
      kind: 'otlp',
      url: 'http://c:4318/custom',
    });
    expect(resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).config.exporter).toMatchObject({ url: 'http://c:4318/v1/traces' });
    expect(resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://api.smith.langchain.com/otel/' }).config.exporter).toMatchObject({
      url: 'https://api.smith.langchain.com/otel/v1/traces',
    });
    expect(
      resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://specific:4318/v1/traces' }).config.exporter,
    ).toMatchObject({ url: 'http://specific:4318/v1/traces' });
  });

  it('ranks the flag over the environment over runspec.toml', () => {
    const file = { endpoint: 'http://file:6006/v1/traces' };
    expect(resolve({}, file).config.exporter).toMatchObject({ url: 'http://file:6006/v1/traces' });
    expect(resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }, file).config).toMatchObject({
      exporter: { url: 'http://env:4318/v1/traces' },
      sources: { endpoint: 'env' },
    });
    expect(resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }, file, { endpoint: 'http://flag:6006' }).config).toMatchObject({
      exporter: { url: 'http://flag:6006/v1/traces' },
      sources: { endpoint: 'flag' },
    });
    expect(resolve({}, { enabled: false }, { telemetry: true }).config.enabled).toBe(true);
    expect(resolve({}, { capture_content: true }).config.captureContent).toBe(true);
    expect(resolve({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' }, { capture_content: true }).config.captureContent).toBe(false);
    expect(resolve({}, { capture_content: true }, { captureContent: false }).config.captureContent).toBe(false);
  });

  it('merges generic and traces headers, the traces value winning, percent-decoded', () => {
    const { config } = resolve({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://api.smith.langchain.com/otel',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=generic,Langsmith-Project=evals%20nightly',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=specific',
    });
    expect(config.exporter).toMatchObject({ headers: { 'x-api-key': 'specific', 'Langsmith-Project': 'evals nightly' } });
  });

  it('reads protocol, timeout (ms) and compression, traces-specific first', () => {
    const { config, warnings } = resolve({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    expect(config).toMatchObject({ timeoutMs: 2500, exporter: { protocol: 'http/json', compression: 'gzip' } });
    expect(warnings).toEqual([]);
  });

  it.each([
    { name: 'unknown protocol', env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }, warning: /expected http\/protobuf, http\/json or grpc/ },
    { name: 'non-numeric timeout', env: { OTEL_EXPORTER_OTLP_TIMEOUT: '10s' }, warning: /OTEL_EXPORTER_OTLP_TIMEOUT: expected an integer/ },
    { name: 'zero timeout', env: { OTEL_EXPORTER_OTLP_TIMEOUT: '0' }, warning: /positive number of milliseconds/ },
    { name: 'bad compression', env: { OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' }, warning: /expected gzip or none/ },
    { name: 'missing certificate', env: { OTEL_EXPORTER_OTLP_CERTIFICATE: '/nonexistent/ca.pem' }, warning: /does not exist/ },
    { name: 'header without =', env: { OTEL_EXPORTER_OTLP_HEADERS: 'broken' }, warning: /OTEL_EXPORTER_OTLP_HEADERS: entry without "="/ },
  ])('warns and falls back on a bad OTEL_* value: $name', ({ env, warning }) => {
    const { config, warnings } = resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...(env as unknown as Record<string, string>) });
    expect(warnings.join('\n')).toMatch(warning);
    expect(config.exporter).toMatchObject({ kind: 'otlp', protocol: 'http/protobuf', compression: 'none', headers: {} });
    expect(config.timeoutMs).toBe(10_000);
  });

  it('takes grpc and uses the endpoint as given (no /v1/traces for gRPC)', () => {
    const { config, warnings } = resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(warnings).toEqual([]);
    expect(config.exporter).toMatchObject({ kind: 'otlp', protocol: 'grpc', url: 'http://c:4317' });
  });

  it('ignores a non-URL endpoint variable with a warning and falls back to the file sink', () => {
    const { config, warnings } = resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' });
    expect(config.exporter.kind).toBe('file');
    expect(warnings.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('takes service.name from OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES, and decodes the other attributes', () => {
    const { config } = resolve({ OTEL_SERVICE_NAME: 'svc', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other,team=agents,note=a%2Cb' });
    expect(config.serviceName).toBe('svc');
    expect(config.resourceAttributes).toEqual({ team: 'agents', note: 'a,b' });
    expect(resolve({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=other' }).config.serviceName).toBe('other');
  });

  it('discards the whole OTEL_RESOURCE_ATTRIBUTES on a decode error', () => {
    const { config, warnings } = resolve({ OTEL_RESOURCE_ATTRIBUTES: 'team=agents,bad=%zz' });
    expect(config.resourceAttributes).toEqual({});
    expect(warnings.join('\n')).toMatch(/OTEL_RESOURCE_ATTRIBUTES/);
  });

  it('turns OTEL_SDK_DISABLED=true into disabled telemetry unless the flag says otherwise', () => {
    expect(resolve({ OTEL_SDK_DISABLED: 'true' }).config.enabled).toBe(false);
    expect(resolve({ OTEL_SDK_DISABLED: 'true' }, {}, { telemetry: true }).config.enabled).toBe(true);
  });

  it('maps project, ca_file, api_key_env and annotations from [telemetry]', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-tel-'));
    writeFileSync(join(dir, 'ca.pem'), 'pem');
    const e = readEnv({ MY_PHOENIX_KEY: 'px-secret' });
    const config = resolveTelemetryConfig({
      flags: {},
      env: e,
      projectDir: dir,
      file: { endpoint: 'http://phoenix:6006/v1/traces', project: 'evals', ca_file: 'ca.pem', api_key_env: 'MY_PHOENIX_KEY', eval_annotations: true },
    });
    expect(config).toMatchObject({
      project: 'evals',
      annotations: true,
      annotationsUrl: 'http://phoenix:6006',
      apiKeyEnv: 'MY_PHOENIX_KEY',
      apiKey: 'px-secret',
      exporter: { kind: 'otlp', caFile: join(dir, 'ca.pem') },
    });
  });

  it('sends the Phoenix key on the export only with annotations on and no explicit authorization header', () => {
    const file = { endpoint: 'http://phoenix:6006/v1/traces', eval_annotations: true };
    expect(resolve({ PHOENIX_API_KEY: 'px-1' }, file).config.exporter).toMatchObject({ headers: { authorization: 'Bearer px-1' } });
    expect(resolve({ PHOENIX_API_KEY: 'px-1' }, { ...file, eval_annotations: false }).config.exporter).toMatchObject({ headers: {} });
    expect(resolve({ PHOENIX_API_KEY: 'px-1', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20other' }, file).config.exporter).toMatchObject({
      headers: { Authorization: 'Bearer other' },
    });
  });

  it('lets annotations_url override the derived Phoenix base URL', () => {
    const { config } = resolve({}, { endpoint: 'http://collector:4318/v1/traces', annotations_url: 'http://phoenix:6006/', eval_annotations: true });
    expect(config.annotationsUrl).toBe('http://phoenix:6006');
  });

  it('warns that annotations need an endpoint when only the file sink is configured', () => {
    const { config, warnings } = resolve({}, { eval_annotations: true });
    expect(config.annotations).toBe(false);
    expect(warnings.join('\n')).toMatch(/annotations need a Phoenix endpoint/);
  });

  it.each([
    { name: 'endpoint that is not a URL', file: { endpoint: 'phoenix:6006' }, message: /telemetry\.endpoint: expected an http\(s\) URL/ },
    { name: 'grpc endpoint scheme', file: { endpoint: 'grpc://c:4317' }, message: /telemetry\.endpoint: expected an http\(s\) URL/ },
    { name: 'api_key_env holding a key', file: { api_key_env: 'px-123 secret' }, message: /telemetry\.api_key_env: expected the NAME/ },
    { name: 'missing ca_file', file: { ca_file: 'nope.pem' }, message: /telemetry\.ca_file: expected a readable CA file/ },
  ])('throws a one-line ConfigError for a bad value of ours: $name', ({ file, message }) => {
    let caught: unknown;
    try {
      resolve({}, file);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).not.toContain('\n');
  });

  it("reads the OTEL_BSP_* the user set (they win over the run's batch settings) and ignores bad ones with a warning", () => {
    expect(resolve().config.batch).toBeUndefined();
    expect(
      resolve({ OTEL_BSP_MAX_QUEUE_SIZE: '4096', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64', OTEL_BSP_SCHEDULE_DELAY: '0', OTEL_BSP_EXPORT_TIMEOUT: '2500' }).config
        .batch,
    ).toEqual({ maxQueueSize: 4096, maxExportBatchSize: 64, scheduledDelayMs: 0, exportTimeoutMs: 2500 });
    const bad = resolve({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0', OTEL_BSP_SCHEDULE_DELAY: 'soon' });
    expect(bad.config.batch).toBeUndefined();
    expect(bad.warnings).toEqual([
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE: expected an integer of at least 1 (got 0); ignored',
      'OTEL_BSP_SCHEDULE_DELAY: expected an integer (got "soon"); ignored',
    ]);
  });

  it('derives the Phoenix base from a traces endpoint', () => {
    expect(phoenixBase('http://127.0.0.1:6006/v1/traces')).toBe('http://127.0.0.1:6006');
    expect(phoenixBase('https://app.phoenix.arize.com/s/team/v1/traces')).toBe('https://app.phoenix.arize.com/s/team');
  });
});
