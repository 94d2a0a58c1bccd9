// The embedded default sink: OTLP JSON lines in the Collector file exporter's `json` format (one
// ExportTraceServiceRequest per line; opentelemetry-collector-contrib exporter/fileexporter), so `score`
// and any OTLP tool can read the traces back. Appends synchronously and fsyncs on flush, so a crash
// after flush loses nothing.
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** A SpanExporter appending OTLP/JSON lines to `path` (directories are created on first write). */
export class OtlpJsonLinesFileExporter implements SpanExporter {
  readonly path: string;
  private fd: number | undefined;
  private closed = false;

  constructor(path: string) {
    this.path = path;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.closed) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('file exporter is shut down') });
      return;
    }
    try {
      const body = JsonTraceSerializer.serializeRequest(spans);
      if (!body) throw new Error('could not serialise spans');
      const line = Buffer.concat([Buffer.from(body), Buffer.from('\n')]);
      const fd = this.open();
      let written = 0;
      // writeSync may write less than asked; loop until the whole line is on disk (bounded by its length).
      while (written < line.length) written += writeSync(fd, line, written, line.length - written);
      resultCallback({ code: ExportResultCode.SUCCESS });
    } catch (err) {
      resultCallback({ code: ExportResultCode.FAILED, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }

  async forceFlush(): Promise<void> {
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== undefined) {
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private open(): number {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'a');
    }
    return this.fd;
  }
}
