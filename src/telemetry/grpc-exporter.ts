// OTLP/gRPC span export through the official OpenTelemetry JS gRPC exporter, for
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc. Loaded only then: @grpc/grpc-js is a heavy import.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { importOptionalPeer } from '../core/optional-peer.js';

export interface GrpcExporterOptions {
  /** http(s)://host:port, used as given (gRPC endpoints carry no path). */
  url: string;
  /** OTEL_EXPORTER_OTLP_*HEADERS, sent as gRPC metadata. */
  headers: Record<string, string>;
  timeoutMillis: number;
  compression: 'gzip' | 'none';
  /** PEM CA / client certificate and key for https endpoints. */
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer };
}

/** The official `@opentelemetry/exporter-trace-otlp-grpc` exporter with our endpoint, metadata and TLS. */
export async function loadGrpcTraceExporter(opts: GrpcExporterOptions): Promise<SpanExporter> {
  const { grpc, OTLPTraceExporter } = await loadGrpcExporterModules();
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(opts.headers)) metadata.set(k.toLowerCase(), v);
  const secure = opts.url.startsWith('https:');
  const credentials = secure ? grpc.credentials.createSsl(opts.tls.ca ?? null, opts.tls.key ?? null, opts.tls.cert ?? null) : grpc.credentials.createInsecure();
  return new OTLPTraceExporter({
    url: opts.url,
    metadata,
    credentials,
    timeoutMillis: opts.timeoutMillis,
    compression: opts.compression as never,
  });
}

/**
 * The two optional peers OTLP/gRPC export needs. A run calls it before it starts, so a missing peer stops
 * the command (exit 2, the install line) instead of dropping every batch with a warning.
 */
export async function loadGrpcExporterModules(): Promise<{
  grpc: typeof import('@grpc/grpc-js');
  OTLPTraceExporter: typeof import('@opentelemetry/exporter-trace-otlp-grpc').OTLPTraceExporter;
}> {
  const grpc = await importOptionalPeer('@grpc/grpc-js', 'OTLP/gRPC export', () => import('@grpc/grpc-js'));
  const { OTLPTraceExporter } = await importOptionalPeer(
    '@opentelemetry/exporter-trace-otlp-grpc',
    'OTLP/gRPC export',
    () => import('@opentelemetry/exporter-trace-otlp-grpc'),
  );
  return { grpc, OTLPTraceExporter };
}
