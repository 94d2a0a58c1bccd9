// A minimal OpenAI Chat Completions server for the benchmarks, run as its own process so its work is not
// charged to the client being measured. It answers case i (the `(#i)` in the prompt) with
// `replyFor(i)` from _cases.mjs after LATENCY_MS, and is also the OTLP sink of the telemetry rows
// (POST /v1/traces, counted, answered with an empty ExportTraceServiceResponse).
// GET /stats reads and resets what it saw since the last read: chat requests and their body bytes, the
// first chat body (the bare loop's template), OTLP posts and bytes, and the requests in flight.
// BENCH_FAKE_DROP=1 leaves the first chat request after each reset uncounted, as if it never arrived
// (the harness's own test: a row must then fail its request check).
// Prints `PORT <n>` on stdout once listening.
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { replyFor } from './_cases.mjs';

const latencyMs = Number(process.env.LATENCY_MS ?? 0);
const drop = process.env.BENCH_FAKE_DROP === '1';
let dropped = false;
let requests = 0;
let bodyBytes = 0;
let firstBody;
let otlpPosts = 0;
let otlpBytes = 0;
// OTLP bodies kept until /stats, which counts the distinct case ids in them (after the run, off its clock).
let otlpBodies = [];
let otlpFirstAt = 0;
let otlpLastAt = 0;
let serial = 0;
// Chat requests in flight, integrated over time between the first arrival and the last answer: the
// mean is the concurrency the client really kept.
let inFlight = 0;
let maxInFlight = 0;
let area = 0;
let since = 0;
let first = 0;
let last = 0;
const tick = (delta) => {
  const now = performance.now();
  if (first === 0) first = now;
  else area += inFlight * (now - since);
  since = now;
  inFlight += delta;
  maxInFlight = Math.max(maxInFlight, inFlight);
  if (delta < 0) last = now;
};
const CASE = /\(#(\d+)\)/;
const reply = (caseIndex) => {
  const call = replyFor(caseIndex);
  const id = serial++;
  return JSON.stringify({
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1764000000,
    model: 'bench-model',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${id}`, type: 'function', function: call }] },
      },
    ],
    usage: { prompt_tokens: 812, completion_tokens: 31, total_tokens: 843 },
  });
};
const models = JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model' }] });
// An empty ExportTraceServiceResponse in protobuf is zero bytes.
const EMPTY = Buffer.alloc(0);

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url.startsWith('/stats')) {
      const ids = new Set();
      for (const b of otlpBodies) for (const m of b.toString('latin1').matchAll(/case-(\d+)/g)) ids.add(m[1]);
      otlpBodies = [];
      const body = JSON.stringify({
        requests,
        bodyBytes,
        firstBody,
        otlpPosts,
        otlpBytes,
        otlpCases: ids.size,
        otlpSpanMs: otlpLastAt - otlpFirstAt,
        meanInFlight: last > first ? area / (last - first) : 0,
        maxInFlight,
        spanMs: last > first ? last - first : 0,
      });
      requests = bodyBytes = otlpPosts = otlpBytes = otlpFirstAt = otlpLastAt = inFlight = maxInFlight = area = since = first = last = 0;
      firstBody = undefined;
      dropped = false;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(body);
    }
    if (req.url.startsWith('/v1/traces')) {
      otlpPosts++;
      const raw = Buffer.concat(chunks);
      otlpBytes += raw.length;
      otlpBodies.push(req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw);
      otlpLastAt = performance.now();
      if (otlpFirstAt === 0) otlpFirstAt = otlpLastAt;
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
      return res.end(EMPTY);
    }
    if (req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(models) });
      return res.end(models);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (drop && !dropped) dropped = true;
    else {
      requests++;
      bodyBytes += Buffer.byteLength(text);
    }
    firstBody ??= text;
    const m = CASE.exec(text);
    tick(1);
    const send = () => {
      tick(-1);
      const body = m ? reply(Number(m[1])) : JSON.stringify({ error: { message: 'no (#i) in the prompt' } });
      res.writeHead(m ? 200 : 400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
// Close idle keep-alive connections too, so SIGTERM ends the process promptly.
process.on('SIGTERM', () => server.closeAllConnections?.());
