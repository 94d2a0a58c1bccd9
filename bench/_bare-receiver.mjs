// The floor of `serve`: a node:http server that reads each POST body, gunzips it and decodes it as an
// OTLP ExportTraceServiceRequest (protobufjs, bench/_otlp.mjs), nothing else. Prints `PORT <n>`; on
// SIGTERM prints `SPANS <n>` (spans decoded) and exits.
import { createServer } from 'node:http';
import { gunzip } from 'node:zlib';
import { ExportTraceServiceRequest } from './_otlp.mjs';

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
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
      res.end();
    });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
process.on('SIGTERM', () => {
  process.stdout.write(`SPANS ${spans}\n`);
  process.exit(0);
});
