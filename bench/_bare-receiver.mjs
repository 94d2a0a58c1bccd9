// The floor of `serve`: a node:http server that reads each POST body, gunzips it and decodes it as an
// OTLP ExportTraceServiceRequest (protobufjs, bench/_otlp.mjs), nothing else (bench/_receiver.mjs). Prints
// `PORT <n>`; on SIGTERM prints `SPANS <n>` (spans decoded) and exits.
import { receive } from './_receiver.mjs';

receive(
  () => {},
  (spans) => {
    process.stdout.write(`SPANS ${spans}\n`);
  },
);
