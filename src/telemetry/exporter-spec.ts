// Where spans go, resolved without loading the OpenTelemetry SDK: the destination for logs, the file path of
// the JSON-lines sink, and the TLS files read up front (a missing CA file disables telemetry before the run
// rather than failing batch by batch).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TelemetryConfig, TelemetryExporterConfig } from '../config/telemetry.js';

/** The config's OTLP exporter with its TLS files read (contents instead of paths) and its timeout. */
type OtlpExporterSpec = Omit<Extract<TelemetryExporterConfig, { kind: 'otlp' }>, 'caFile' | 'clientCertFile' | 'clientKeyFile'> & {
  timeoutMs: number;
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer };
};

export type ExporterSpec = { kind: 'file'; path: string } | OtlpExporterSpec;

/** A config's exporter, resolved once: what to build and where spans go (for logs). */
export interface ResolvedExporter {
  spec: ExporterSpec;
  destination: string;
}

/** The warning of a config whose exporter cannot be resolved: telemetry is off for the run. */
export function setupWarning(err: unknown): string {
  return `disabled: ${(err as Error).message}`;
}

/** Resolve the exporter of a config; throws when a TLS file cannot be read. */
export function resolveExporterSpec(config: TelemetryConfig, fileName: string | undefined): ResolvedExporter {
  const e = config.exporter;
  if (e.kind === 'file') {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = join(e.dir, fileName ?? `traces-${stamp}-${process.pid}.jsonl`);
    return { spec: { kind: 'file', path }, destination: path };
  }
  const tls = {
    ...(e.caFile !== undefined ? { ca: readFileSync(e.caFile) } : {}),
    ...(e.clientCertFile !== undefined ? { cert: readFileSync(e.clientCertFile) } : {}),
    ...(e.clientKeyFile !== undefined ? { key: readFileSync(e.clientKeyFile) } : {}),
  };
  return {
    spec: { kind: 'otlp', url: e.url, protocol: e.protocol, headers: e.headers, compression: e.compression, timeoutMs: config.timeoutMs, tls },
    destination: e.url,
  };
}
