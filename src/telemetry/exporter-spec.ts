// Where spans go, resolved without loading the OpenTelemetry SDK: the destination for logs, the file path of
// the JSON-lines sink, and the TLS files read up front (a missing CA file disables telemetry before the run,
// wherever the exporter itself will live: this thread or the telemetry worker). Plain data, so it can be
// posted to a worker.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OtlpCompression, OtlpProtocol, TelemetryConfig } from '../config/telemetry.js';

export type ExporterSpec =
  | { kind: 'file'; path: string }
  | {
      kind: 'otlp';
      url: string;
      protocol: OtlpProtocol;
      headers: Record<string, string>;
      compression: OtlpCompression;
      timeoutMs: number;
      tls: { ca?: Buffer; cert?: Buffer; key?: Buffer };
    };

/** Resolve the exporter of a config; throws when a TLS file cannot be read. */
export function resolveExporterSpec(config: TelemetryConfig, fileName: string | undefined): { spec: ExporterSpec; destination: string } {
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
