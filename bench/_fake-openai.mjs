// A minimal OpenAI Chat Completions server for the benchmarks, run as its own process so its work is not
// charged to the client being measured. Every request gets the same tool call after LATENCY_MS.
// Prints `PORT <n>` on stdout once listening.
import { createServer } from 'node:http';

const latencyMs = Number(process.env.LATENCY_MS ?? 0);
let n = 0;
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
    const send = () => {
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
