// A minimal OpenAI Chat Completions server for the benchmarks, run as its own process so its work is not
// charged to the client being measured. Every request gets the same tool call after LATENCY_MS.
// Prints `PORT <n>` on stdout once listening.
import { createServer } from 'node:http';

const latencyMs = Number(process.env.LATENCY_MS ?? 0);
let n = 0;
// Chat requests in flight, integrated over time between the first arrival and the last answer: the
// mean is the concurrency the client really kept (GET /stats reads it).
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
const reply = (id) =>
  JSON.stringify({
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1764000000,
    model: 'bench-model',
    choices: [{
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: 'restart-service', arguments: '{"service":"nginx","host":"web-01"}' } }],
      },
    }],
    usage: { prompt_tokens: 812, completion_tokens: 31, total_tokens: 843 },
  });
const models = JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model' }] });

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url.startsWith('/stats')) {
      const body = JSON.stringify({ meanInFlight: last > first ? area / (last - first) : 0, maxInFlight, requests: n, spanMs: last > first ? last - first : 0 });
      // Read and reset: each measurement gets its own figures.
      inFlight = maxInFlight = area = since = first = last = n = 0;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(body);
    }
    const chat = req.url.endsWith('/chat/completions');
    if (chat) tick(1);
    const send = () => {
      if (chat) tick(-1);
      // POST /v1/traces: a bare OTLP receiver (telemetry share runs export here).
      const body = req.url.startsWith('/v1/traces') ? '{}' : req.url.endsWith('/models') ? models : reply(n++);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (latencyMs > 0 && !req.url.startsWith('/v1/traces')) setTimeout(send, latencyMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
