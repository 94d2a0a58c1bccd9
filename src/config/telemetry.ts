// [telemetry] resolution: flag > environment (OTel's own variables) > runspec.toml > default.
// OTEL_EXPORTER_OTLP_* follow opentelemetry-specification v1.60.0 protocol/exporter.md: the per-signal
// traces endpoint is used as given, the generic one gets `v1/traces` appended; generic and per-signal
// headers merge with the per-signal value winning; timeouts are milliseconds. A bad OTEL_* value warns and
// falls back (as opentelemetry-js does); a bad value of ours is a ConfigError.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { ConfigError } from '../errors.js';
import { hashKeyOf, type Env } from './env.js';
import { OTLP_PROTOCOLS, type ConfigFile } from './file.js';
import { firstSet, type Source } from './setting.js';

export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
export type OtlpCompression = 'gzip' | 'none';

/** Where spans go: an OTLP/HTTP endpoint, or the embedded OTLP JSON lines file sink. */
export type TelemetryExporterConfig =
  | {
      kind: 'otlp';
      /** Full traces URL (…/v1/traces). */
      url: string;
      protocol: OtlpProtocol;
      /** Merged OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (secrets: never print). */
      headers: Record<string, string>;
      compression: OtlpCompression;
      /** Trusted CA file (PEM) for TLS. */
      caFile?: string;
      clientKeyFile?: string;
      clientCertFile?: string;
    }
  | {
      kind: 'file';
      /** Directory that receives `*.jsonl` files (Collector file-exporter JSON lines). */
      dir: string;
    };

export interface TelemetryConfig {
  enabled: boolean;
  /** Attach prompts, messages, arguments and results to spans. @default false */
  captureContent: boolean;
  /**
   * `capture_content = "hashed"`: no content, but per argument a keyed hash (HMAC-SHA-256 with `hashKey`)
   * of its tolerant-canonical value, so equality expectations can be re-checked offline.
   */
  captureHashed: boolean;
  /** RUNSPEC_HASH_KEY (secret: never print). */
  hashKey?: string;
  /**
   * Link template for a verdict's trace: `{trace_id}`, `{span_id}`, `{langsmith_run_id}`, `{project}`.
   * @example "http://localhost:6006/projects/{project}/traces/{trace_id}"
   */
  traceUrl?: string;
  /** POST verdicts to Phoenix's /v1/span_annotations after export. @default false */
  annotations: boolean;
  /** Record the run as a Phoenix experiment (`phoenix_experiment`, `--phoenix-experiment`). @default false */
  phoenixExperiment: boolean;
  exporter: TelemetryExporterConfig;
  /** Export timeout; also the most shutdown waits. @default 10000 */
  timeoutMs: number;
  /** The batch span processor's OTEL_BSP_* settings the user set (each wins over ours); absent when none is. */
  batch?: BatchSettings;
  /** `service.name` resource attribute. @default "runspec-eval" */
  serviceName: string;
  /** Extra resource attributes (OTEL_RESOURCE_ATTRIBUTES). */
  resourceAttributes: Record<string, string>;
  /** Phoenix project (resource `openinference.project.name`). */
  project?: string;
  /** Phoenix base URL for annotations (no trailing slash); derived from the traces endpoint. */
  annotationsUrl?: string;
  /** Name of the environment variable holding the Phoenix API key. @default "PHOENIX_API_KEY" */
  apiKeyEnv: string;
  /** The key read from `apiKeyEnv` (secret: never print). */
  apiKey?: string;
  /** LangSmith native feedback, when `[telemetry.langsmith] feedback = true` or the flag asks for it. */
  langsmith?: LangSmithFeedbackConfig;
  /** Where each setting came from, for `config`. */
  sources: Record<'enabled' | 'captureContent' | 'annotations' | 'endpoint' | 'protocol' | 'timeoutMs' | 'serviceName' | 'project' | 'annotationsUrl', Source>;
}

/** The default LangSmith API base, as LangSmith's SDKs use it when LANGSMITH_ENDPOINT is unset. */
export const LANGSMITH_DEFAULT_ENDPOINT = 'https://api.smith.langchain.com';

export interface LangSmithFeedbackConfig {
  /** API base: LANGSMITH_ENDPOINT > runspec.toml > https://api.smith.langchain.com. */
  endpoint: string;
  /** Where each setting came from, for `config`. */
  sources: Record<'feedback' | 'endpoint' | 'maxWaitMs', Source>;
  /** From LANGSMITH_API_KEY (or `api_key_env`); secret: never print. */
  apiKey?: string;
  /** @default 60000 */
  maxWaitMs: number;
  /** First retry backoff. @default 1000 */
  backoffMs?: number;
  /** The project traces go to (LANGSMITH_PROJECT, as LangSmith's SDKs read it): feedback names its session. @default "default" */
  project?: string;
  /** PEM CA file for https: the export's (`ca_file` / OTEL_EXPORTER_OTLP_*CERTIFICATE). */
  caFile?: string;
}

/** OTEL_BSP_* (opentelemetry-specification configuration/sdk-environment-variables.md, "Batch Span Processor"). */
export interface BatchSettings {
  /** OTEL_BSP_MAX_QUEUE_SIZE */
  maxQueueSize?: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE */
  maxExportBatchSize?: number;
  /** OTEL_BSP_SCHEDULE_DELAY */
  scheduledDelayMs?: number;
  /** OTEL_BSP_EXPORT_TIMEOUT */
  exportTimeoutMs?: number;
}

export interface TelemetryFlags {
  /** `--telemetry` / `--no-telemetry`. */
  telemetry?: boolean;
  /** `--capture-content`. */
  captureContent?: boolean;
  /** `--annotations`. */
  annotations?: boolean;
  /** `--phoenix-experiment`. */
  phoenixExperiment?: boolean;
  /** `--endpoint` (run) / `--otlp-endpoint` (score): a traces URL (a bare origin gets `/v1/traces`). */
  endpoint?: string;
  /** `--langsmith-feedback` / `--no-langsmith-feedback`. */
  langsmithFeedback?: boolean;
  /** Feedback on traces exported elsewhere (`score --annotate`): no OTLP endpoint needed. */
  feedbackOnly?: boolean;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Resolve the telemetry settings. Warnings about bad OTEL_* values are appended to `env.warnings`.
 *
 * @example
 * const cfg = resolveTelemetryConfig({ flags: {}, env: readEnv(process.env), file: file.telemetry, projectDir });
 */
export function resolveTelemetryConfig(input: { flags: TelemetryFlags; env: Env; file?: ConfigFile['telemetry']; projectDir: string }): TelemetryConfig {
  const { flags, env, projectDir } = input;
  const file = input.file ?? {};
  const warn = (msg: string): void => {
    env.warnings.push(msg);
  };
  const place = (key: string): string => `runspec.toml: telemetry.${key}`;

  const sdkDisabled = env.bool('OTEL_SDK_DISABLED') === true ? false : undefined;
  const enabled = firstSet(flags.telemetry, sdkDisabled, file.enabled, true);

  const captureContent = firstSet(flags.captureContent, captureFromEnv(env, warn), file.capture_content === 'hashed' ? false : file.capture_content, false);
  const captureHashed = captureContent.value === false && file.capture_content === 'hashed';
  const hashKey = hashKeyOf(env);
  if (captureHashed && hashKey === undefined) {
    throw new ConfigError('CONFIG', `${place('capture_content')}: "hashed" needs a key in RUNSPEC_HASH_KEY (not set)`, {
      hint: 'export RUNSPEC_HASH_KEY=<secret>; score with the same key to re-check arguments',
    });
  }
  if (file.trace_url !== undefined && !/^https?:\/\//.test(file.trace_url)) {
    throw new ConfigError('CONFIG', `${place('trace_url')}: expected an http(s) URL template with {trace_id} (got ${JSON.stringify(file.trace_url)})`, {
      hint: 'e.g. trace_url = "http://localhost:6006/projects/{project}/traces/{trace_id}"',
    });
  }
  const annotations = firstSet(flags.annotations, undefined, file.eval_annotations, false);
  const phoenixExperiment = firstSet(flags.phoenixExperiment, undefined, file.phoenix_experiment, false);

  const protocol = firstSet<OtlpProtocol>(undefined, envProtocol(env, warn), file.protocol, 'http/protobuf');
  const grpc = protocol.value === 'grpc';

  // Endpoint: ours (flag, file) is a traces URL; a bare origin gets /v1/traces for convenience. Over gRPC
  // every endpoint is used as given (the spec appends no path for grpc).
  const flagUrl = flags.endpoint === undefined ? undefined : oursTracesUrl(flags.endpoint, 'endpoint flag', grpc);
  const fileUrl = file.endpoint === undefined ? undefined : oursTracesUrl(file.endpoint, place('endpoint'), grpc);
  const envUrl = envTracesUrl(env, warn, grpc);
  const endpoint = firstSet<string | undefined>(flagUrl, envUrl, fileUrl, undefined);

  const envTimeout = envTimeoutMs(env, warn);
  const timeoutMs = firstSet(undefined, envTimeout, file.timeout_ms, DEFAULT_TIMEOUT_MS);

  const batch = envBatch(env, warn);

  const headers = {
    ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_HEADERS', warn),
    ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', warn),
  };
  const compression = envCompression(env, warn) ?? 'none';

  const caFromEnv = envFile(env, 'CERTIFICATE', warn);
  let caFile = caFromEnv;
  if (caFile === undefined && file.ca_file !== undefined) {
    const p = resolvePath(projectDir, file.ca_file);
    if (!existsSync(p)) {
      throw new ConfigError('CONFIG', `${place('ca_file')}: expected a readable CA file (PEM); ${p} does not exist`, {
        hint: 'fix the path (relative paths start at the project directory) or remove ca_file',
      });
    }
    caFile = p;
  }
  const clientKeyFile = envFile(env, 'CLIENT_KEY', warn);
  const clientCertFile = envFile(env, 'CLIENT_CERTIFICATE', warn);

  const resourceAttributes = parseResourceAttributes(env, warn);
  // OTel: OTEL_SERVICE_NAME, else service.name in OTEL_RESOURCE_ATTRIBUTES (both the environment).
  const serviceName = firstSet(undefined, env.get('OTEL_SERVICE_NAME') ?? resourceAttributes[ATTR_SERVICE_NAME], file.service_name, 'runspec-eval');
  delete resourceAttributes[ATTR_SERVICE_NAME];

  const apiKeyEnv = file.api_key_env ?? 'PHOENIX_API_KEY';
  if (!ENV_NAME_RE.test(apiKeyEnv)) {
    throw new ConfigError('CONFIG', `${place('api_key_env')}: expected the NAME of an environment variable (got ${JSON.stringify(apiKeyEnv)})`, {
      hint: 'write api_key_env = "PHOENIX_API_KEY" and export the key in that variable; keys never go in files',
    });
  }

  // Derived from the traces endpoint unless the file names it: then it comes from where the endpoint did.
  const annotationsUrl =
    file.annotations_url !== undefined
      ? firstSet(undefined, undefined, stripSlash(checkUrl(file.annotations_url, place('annotations_url'))), undefined)
      : { value: endpoint.value !== undefined ? phoenixBase(endpoint.value) : undefined, source: endpoint.source };
  if (annotations.value && enabled.value && endpoint.value === undefined && file.annotations_url === undefined) {
    warn('telemetry: eval annotations need a Phoenix endpoint (telemetry.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT); skipped');
  }
  if (phoenixExperiment.value && enabled.value && endpoint.value === undefined && file.annotations_url === undefined) {
    warn('telemetry: a Phoenix experiment needs a Phoenix endpoint (telemetry.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT); skipped');
  }

  const exporter: TelemetryExporterConfig =
    endpoint.value === undefined
      ? { kind: 'file', dir: resolvePath(projectDir, file.dir ?? join('.runspec', 'traces')) }
      : {
          kind: 'otlp',
          url: endpoint.value,
          protocol: protocol.value,
          headers,
          compression,
          ...(caFile !== undefined ? { caFile } : {}),
          ...(clientKeyFile !== undefined ? { clientKeyFile } : {}),
          ...(clientCertFile !== undefined ? { clientCertFile } : {}),
        };

  const project = firstSet(undefined, env.get('PHOENIX_PROJECT_NAME'), file.project, undefined);
  const apiKey = env.get(apiKeyEnv);
  // With annotations on and the traces going to the same Phoenix, its key authenticates the export too
  // (Phoenix reads only `Authorization: Bearer`); an explicit OTLP authorization header wins.
  if (
    exporter.kind === 'otlp' &&
    annotations.value &&
    apiKey !== undefined &&
    file.annotations_url === undefined &&
    !Object.keys(exporter.headers).some((h) => h.toLowerCase() === 'authorization')
  ) {
    exporter.headers.authorization = `Bearer ${apiKey}`;
  }
  let langsmith = resolveLangSmith(flags, env, file.langsmith, place, headers);
  if (langsmith && caFile !== undefined) langsmith.caFile = caFile;
  if (langsmith && enabled.value && exporter.kind === 'file' && !flags.feedbackOnly) {
    warn('telemetry: LangSmith feedback needs the traces exported to LangSmith (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=…/otel/v1/traces); skipped');
    langsmith = undefined;
  }
  return {
    ...(langsmith !== undefined ? { langsmith } : {}),
    enabled: enabled.value,
    captureContent: captureContent.value,
    captureHashed,
    ...(hashKey !== undefined ? { hashKey } : {}),
    ...(file.trace_url !== undefined ? { traceUrl: file.trace_url } : {}),
    annotations: annotations.value && annotationsUrl.value !== undefined,
    phoenixExperiment: phoenixExperiment.value && annotationsUrl.value !== undefined,
    exporter,
    timeoutMs: timeoutMs.value,
    ...(batch !== undefined ? { batch } : {}),
    serviceName: serviceName.value,
    resourceAttributes,
    ...(project.value !== undefined ? { project: project.value } : {}),
    ...(annotationsUrl.value !== undefined ? { annotationsUrl: annotationsUrl.value } : {}),
    apiKeyEnv,
    ...(apiKey !== undefined ? { apiKey } : {}),
    sources: {
      enabled: enabled.source,
      captureContent: captureContent.source,
      annotations: annotations.source,
      endpoint: endpoint.source,
      protocol: protocol.source,
      timeoutMs: timeoutMs.source,
      serviceName: serviceName.source,
      project: project.source,
      annotationsUrl: annotationsUrl.source,
    },
  };
}

function resolveLangSmith(
  flags: TelemetryFlags,
  env: Env,
  file: NonNullable<ConfigFile['telemetry']>['langsmith'],
  place: (key: string) => string,
  otlpHeaders: Record<string, string> = {},
): LangSmithFeedbackConfig | undefined {
  const on = firstSet(flags.langsmithFeedback, undefined, file?.feedback, false);
  if (!on.value) return undefined;
  const keyEnv = file?.api_key_env ?? 'LANGSMITH_API_KEY';
  if (!ENV_NAME_RE.test(keyEnv)) {
    throw new ConfigError('CONFIG', `${place('langsmith.api_key_env')}: expected the NAME of an environment variable (got ${JSON.stringify(keyEnv)})`, {
      hint: 'write api_key_env = "LANGSMITH_API_KEY" and export the key in that variable; keys never go in files',
    });
  }
  // As LangSmith's SDKs read them: LANGSMITH_* first, then the older LANGCHAIN_* names.
  const endpointSetting = firstSet(undefined, env.get('LANGSMITH_ENDPOINT') ?? env.get('LANGCHAIN_ENDPOINT'), file?.endpoint, LANGSMITH_DEFAULT_ENDPOINT);
  const endpoint = stripSlash(
    checkUrl(
      endpointSetting.value,
      endpointSetting.source === 'env'
        ? env.get('LANGSMITH_ENDPOINT') !== undefined
          ? 'LANGSMITH_ENDPOINT'
          : 'LANGCHAIN_ENDPOINT'
        : place('langsmith.endpoint'),
    ),
  );
  const maxWaitMs = firstSet(undefined, undefined, file?.max_wait_ms, 60_000);
  const apiKey = env.get(keyEnv) ?? (file?.api_key_env === undefined ? env.get('LANGCHAIN_API_KEY') : undefined);
  // The project the traces go to: the Langsmith-Project header of the OTLP export (what doctor recommends),
  // else LangSmith's own variables. Neither: no session_id (not the "default" project's).
  const headerProject = Object.entries(otlpHeaders).find(([k]) => k.toLowerCase() === 'langsmith-project')?.[1];
  const project = headerProject ?? env.get('LANGSMITH_PROJECT') ?? env.get('LANGCHAIN_PROJECT');
  return {
    endpoint,
    ...(project !== undefined ? { project } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    maxWaitMs: maxWaitMs.value,
    sources: { feedback: on.source, endpoint: endpointSetting.source, maxWaitMs: maxWaitMs.source },
    ...(file?.backoff_ms !== undefined ? { backoffMs: file.backoff_ms } : {}),
  };
}

/** The Phoenix base URL of a traces endpoint: `http://h:6006/v1/traces` → `http://h:6006`. */
export function phoenixBase(tracesUrl: string): string {
  const u = new URL(tracesUrl);
  u.search = '';
  u.hash = '';
  u.pathname = u.pathname.replace(/\/v1\/traces\/?$/, '');
  return stripSlash(u.toString());
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function resolvePath(projectDir: string, p: string): string {
  return isAbsolute(p) ? p : join(projectDir, p);
}

function checkUrl(value: string, where: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new ConfigError('CONFIG', `${where}: expected an http(s) URL (got ${JSON.stringify(value)})`, {
      hint: 'write e.g. "http://127.0.0.1:6006/v1/traces"',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError('CONFIG', `${where}: expected an http(s) URL (got ${JSON.stringify(value)})`, {
      hint: 'write http(s)://host:port; for OTLP/gRPC set OTEL_EXPORTER_OTLP_PROTOCOL=grpc (port 4317)',
    });
  }
  return value;
}

function oursTracesUrl(value: string, where: string, grpc = false): string {
  const u = new URL(checkUrl(value, where));
  if (grpc) return value;
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1/traces';
  return u.toString();
}

function envTracesUrl(env: Env, warn: (m: string) => void, grpc = false): string | undefined {
  const specific = httpUrlFromEnv(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', warn);
  if (specific !== undefined) return specific;
  const base = httpUrlFromEnv(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', warn);
  if (base === undefined) return undefined;
  if (grpc) return base;
  return base.endsWith('/') ? `${base}v1/traces` : `${base}/v1/traces`;
}

export function httpUrlFromEnv(env: Env, name: string, warn: (m: string) => void): string | undefined {
  const v = env.url(name);
  if (v === undefined) return undefined;
  const proto = new URL(v).protocol;
  if (proto !== 'http:' && proto !== 'https:') {
    warn(`${name}: expected an http(s) URL (got ${JSON.stringify(v)}); ignored`);
    return undefined;
  }
  return v;
}

/**
 * An OTLP exporter setting as OTel reads it: the traces-specific variable, then the generic one; the first
 * that is set decides. `parse` turns its text into the value or a complaint; a complaint warns (naming the
 * variable) and falls back to the default, as the OTel SDK does.
 */
function otlpEnv<T>(
  env: Env,
  setting: 'PROTOCOL' | 'TIMEOUT' | 'COMPRESSION' | 'CERTIFICATE' | 'CLIENT_KEY' | 'CLIENT_CERTIFICATE',
  parse: (text: string) => { value: T } | { problem: string },
  warn: (m: string) => void,
): T | undefined {
  for (const name of [`OTEL_EXPORTER_OTLP_TRACES_${setting}`, `OTEL_EXPORTER_OTLP_${setting}`]) {
    const text = env.get(name);
    if (text === undefined) continue;
    const r = parse(text);
    if ('value' in r) return r.value;
    warn(`${name}: ${r.problem}`);
    return undefined;
  }
  return undefined;
}

function envProtocol(env: Env, warn: (m: string) => void): OtlpProtocol | undefined {
  return otlpEnv(
    env,
    'PROTOCOL',
    (v) =>
      (OTLP_PROTOCOLS as readonly string[]).includes(v)
        ? { value: v as OtlpProtocol }
        : { problem: `expected http/protobuf, http/json or grpc (got ${JSON.stringify(v)}); using http/protobuf` },
    warn,
  );
}

/**
 * OTEL_BSP_*: each one set wins over the batch settings a run uses (the SDK's processor takes an explicit
 * setting over its environment variable, so they are read here). A bad value warns and is ignored.
 */
function envBatch(env: Env, warn: (m: string) => void): BatchSettings | undefined {
  const read = (name: string, min: number): number | undefined => {
    const n = env.int(name);
    if (n === undefined || n >= min) return n;
    warn(`${name}: expected an integer of at least ${min} (got ${n}); ignored`);
    return undefined;
  };
  const batch: BatchSettings = {};
  const maxQueueSize = read('OTEL_BSP_MAX_QUEUE_SIZE', 1);
  if (maxQueueSize !== undefined) batch.maxQueueSize = maxQueueSize;
  const maxExportBatchSize = read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1);
  if (maxExportBatchSize !== undefined) batch.maxExportBatchSize = maxExportBatchSize;
  const scheduledDelayMs = read('OTEL_BSP_SCHEDULE_DELAY', 0);
  if (scheduledDelayMs !== undefined) batch.scheduledDelayMs = scheduledDelayMs;
  const exportTimeoutMs = read('OTEL_BSP_EXPORT_TIMEOUT', 1);
  if (exportTimeoutMs !== undefined) batch.exportTimeoutMs = exportTimeoutMs;
  return Object.keys(batch).length > 0 ? batch : undefined;
}

function envTimeoutMs(env: Env, warn: (m: string) => void): number | undefined {
  return otlpEnv(
    env,
    'TIMEOUT',
    (v) => {
      if (!/^-?\d+$/.test(v)) return { problem: `expected an integer (got ${JSON.stringify(v)}); ignored` };
      // 0 means "no limit" in the spec; shutdown must never hang on a dead collector, so keep the default.
      const n = Number(v);
      return n > 0 ? { value: n } : { problem: `expected a positive number of milliseconds (got ${n}); using ${DEFAULT_TIMEOUT_MS}` };
    },
    warn,
  );
}

function envCompression(env: Env, warn: (m: string) => void): OtlpCompression | undefined {
  return otlpEnv(
    env,
    'COMPRESSION',
    (text) => {
      const v = text.toLowerCase();
      return v === 'gzip' || v === 'none' ? { value: v } : { problem: `expected gzip or none (got ${JSON.stringify(v)}); using none` };
    },
    warn,
  );
}

function envFile(env: Env, setting: 'CERTIFICATE' | 'CLIENT_KEY' | 'CLIENT_CERTIFICATE', warn: (m: string) => void): string | undefined {
  return otlpEnv(env, setting, (v) => (existsSync(v) ? { value: v } : { problem: `file ${JSON.stringify(v)} does not exist; ignored` }), warn);
}

// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is an instrumentation convention (true/false, or the
// opentelemetry-util-genai modes); span-capturing modes count as true.
function captureFromEnv(env: Env, warn: (m: string) => void): boolean | undefined {
  const name = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
  const v = env.get(name)?.toLowerCase();
  if (v === undefined) return undefined;
  if (v === 'true' || v === 'span_only' || v === 'span_and_event') return true;
  if (v === 'false' || v === 'no_content' || v === 'event_only') return false;
  warn(`${name}: expected true or false (got ${JSON.stringify(v)}); ignored`);
  return undefined;
}

/** `k1=v1,k2=v2` (W3C Baggage without properties, values percent-decoded); bad entries warn and drop. */
export function parseHeaders(env: Env, name: string, warn: (m: string) => void): Record<string, string> {
  const raw = env.get(name);
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const key = eq < 0 ? '' : entry.slice(0, eq).trim();
    if (eq < 0 || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(key)) {
      warn(`${name}: entry ${eq < 0 ? 'without "="' : 'with an invalid header name'} ignored`);
      continue;
    }
    try {
      out[key] = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      warn(`${name}: value of ${key} is not valid percent-encoding; ignored`);
    }
  }
  return out;
}

/** OTEL_RESOURCE_ATTRIBUTES: any decode error discards the whole variable (resource/sdk.md). */
export function parseResourceAttributes(env: Env, warn: (m: string) => void): Record<string, string> {
  const name = 'OTEL_RESOURCE_ATTRIBUTES';
  const raw = env.get(name);
  if (raw === undefined) return {};
  const out: Record<string, string> = {};
  try {
    for (const entry of raw.split(',')) {
      if (entry.trim() === '') continue;
      const eq = entry.indexOf('=');
      if (eq <= 0) throw new Error('entry without key=value');
      const key = decodeURIComponent(entry.slice(0, eq).trim());
      if (key === '') throw new Error('empty key');
      out[key] = decodeURIComponent(entry.slice(eq + 1).trim());
    }
  } catch {
    warn(`${name}: not a list of key=value pairs with percent-encoded values; ignored`);
    return {};
  }
  return out;
}
