// OTLP/gRPC span export through the official OpenTelemetry JS gRPC exporter, for
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc. Loaded only then: @grpc/grpc-js is a heavy import.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

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
  const grpc = await import('@grpc/grpc-js');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(opts.headers)) metadata.set(k.toLowerCase(), v);
  const secure = opts.url.startsWith('https:');
  const credentials = secure
    ? grpc.credentials.createSsl(opts.tls.ca ?? null, opts.tls.key ?? null, opts.tls.cert ?? null)
    : grpc.credentials.createInsecure();
  return new OTLPTraceExporter({
    url: opts.url,
    metadata,
    credentials,
    timeoutMillis: opts.timeoutMillis,
    compression: opts.compression as never,
  });
}
