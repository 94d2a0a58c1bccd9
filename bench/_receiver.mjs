// The receiving half of the `serve` floor and ceiling: a node:http server that reads each POST body, gunzips
// it and decodes it as an OTLP ExportTraceServiceRequest (protobufjs, bench/_otlp.mjs), hands the request to
// `onRequest` and answers 200. Prints `PORT <n>`; on SIGTERM awaits `onStop(spans decoded)`, then exits.
import { createServer } from 'node:http';
import { gunzip } from 'node:zlib';
import { ExportTraceServiceRequest } from './_otlp.mjs';

/** @param {(request: object) => void} onRequest @param {(spans: number) => Promise<void> | void} onStop */
export function receive(onRequest, onStop) {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      gunzip(Buffer.concat(chunks), (err, body) => {
        if (err) {
          res.writeHead(400).end();
          return;
        }
        const request = ExportTraceServiceRequest.decode(body);
        for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) spans += ss.spans.length;
        onRequest(request);
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
        res.end();
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
  process.on('SIGTERM', async () => {
    await onStop(spans);
    process.exit(0);
  });
}
